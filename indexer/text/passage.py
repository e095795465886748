"""A passage: the unit search ranks and a citation names, cut from a document's text.

Its own module, apart from the chunker (`indexer.text.chunk`) that makes passages: reading them
back from the index (a search) needs the record, not the Markdown parser.
"""

from __future__ import annotations

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
