"""A passage: the unit search ranks and a citation names, cut from a document's text.

Its own module, apart from the chunker (`indexer.text.chunk`) that makes passages: reading them
back from the index (a search) needs the record, not the Markdown parser.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass


@dataclass(frozen=True)
class Passage:
    """A piece of a document for search: `text == document_text[start:end]` exactly, with its lines."""

    ordinal: int
    start: int
    end: int
    line_start: int
    line_end: int
    heading: str
    text: str
    page_start: int | None = None
    page_end: int | None = None


# A passage as the index's writer takes it from the build's workers: its fields but its text (a
# slice of the version's), in `Passage`'s order: (ordinal, start, end, line_start, line_end,
# heading, page_start, page_end). Here, not in the index's store: the workers need no SQLite.
SpanFields = tuple[int, int, int, int, int, str, int | None, int | None]
SPAN_FIELDS = tuple(f.name for f in dataclasses.fields(Passage) if f.name != "text")
_span_values = operator.attrgetter(*SPAN_FIELDS)


def span_fields(passage: Passage) -> SpanFields:
    """A passage's fields but its text, as `IndexWriter.add_version` takes them (`spans`)."""
    fields: SpanFields = _span_values(passage)
    return fields
