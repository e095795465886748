"""The places Sphinx's cross-references land on across a project's documents: each label's and
glossary term's document, the id its page gives the place, and the title shown there
(docs/design.md#d17).

What one document defines is read from its text (`indexer.site.rst_places.scan`) and carried per blob
by the site's manifest (`Scanned.to_json`); the corpus's table (`CorpusPlaces`) keeps the names that
are one place: a label or term defined twice, in one document or in two, is none (Sphinx warns and
picks one; the page shows the reference's text rather than a link to the wrong place).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

# Scanned records of an older shape, or made by older rules of the scan, are not read (the blob is
# scanned again): raised whenever `rst_places.scan` reads other names or titles from the same text.
# 3: a label's id as docutils gives it under the `h-` prefix (`2to3` → `h-2to3`, not `h-to3`); the labels
# before a block other than a section (`blocks`); terms and `:name:`s inside directives count as names.
SCAN_FORM = 3


@dataclass(frozen=True)
class Place:
    """Where a name lands: the document, the id its page gives that place, and the title shown there."""

    document: str
    anchor: str
    title: str = ""  # a label's section title as shown; "" when the scan cannot say it

    def state(self, shown_title: bool = True) -> list[str]:
        """What a page naming this place shows of it: where it links, and the title when it shows that."""
        return [self.document, self.anchor, self.title if shown_title else ""]


@dataclass(frozen=True)
class Scanned:
    """What one document's text defines: its places (label → (id, title), term → id), and every label
    and term it defines, places or not (a name defined twice in the corpus is no place). `blocks`: the
    labels that stand before a paragraph, a list, a rubric… (label → id), with no section title to show."""

    labels: dict[str, tuple[str, str]] = field(default_factory=dict)
    terms: dict[str, str] = field(default_factory=dict)
    label_names: frozenset[str] = frozenset()
    term_names: frozenset[str] = frozenset()
    blocks: dict[str, str] = field(default_factory=dict)

    def to_json(self, identity: str) -> str:
        """The record the manifest keeps under the blob scanned; `identity` is its text's extractor's."""
        return json.dumps(
            {
                "form": SCAN_FORM,
                "identity": identity,
                "labels": {name: list(place) for name, place in sorted(self.labels.items())},
                "terms": dict(sorted(self.terms.items())),
                "blocks": dict(sorted(self.blocks.items())),
                "label_names": sorted(self.label_names),
                "term_names": sorted(self.term_names),
            },
            ensure_ascii=False,
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str | None, identity: str) -> Scanned | None:
        """The record as the manifest holds it; None when absent, of another form or of another text
        of the blob (another extractor's), or damaged: the blob is scanned again."""
        try:
            data = json.loads(text) if text is not None else None
        except ValueError:
            return None
        if not isinstance(data, dict) or data.get("form") != SCAN_FORM or data.get("identity") != identity:
            return None
        labels, terms, blocks = data.get("labels"), data.get("terms"), data.get("blocks")
        label_names, term_names = data.get("label_names"), data.get("term_names")
        if not (isinstance(labels, dict) and isinstance(terms, dict) and isinstance(blocks, dict)):
            return None
        if not (isinstance(label_names, list) and isinstance(term_names, list)):
            return None
        if not (_texts(label_names) and _texts(term_names) and _texts([*terms.values(), *blocks.values()])):
            return None
        if not all(_texts(place) and len(place) == 2 for place in labels.values()):
            return None
        return cls(
            {str(k): (v[0], v[1]) for k, v in labels.items()},
            {str(k): str(v) for k, v in terms.items()},
            frozenset(label_names),
            frozenset(term_names),
            {str(k): str(v) for k, v in blocks.items()},
        )


def _texts(values: object) -> bool:
    return isinstance(values, list) and all(isinstance(value, str) for value in values)


class CorpusPlaces:
    """The labels and glossary terms of the corpus's reST documents at the built commit, and where each lands."""

    def __init__(self, scanned: Mapping[str, Scanned] = {}):
        """`scanned`: what each document defines, by path."""
        label_count = Counter(name for found in scanned.values() for name in found.label_names)
        term_count = Counter(key for found in scanned.values() for key in found.term_names)
        self.labels = {
            name: Place(path, anchor, title)
            for path, found in scanned.items()
            for name, (anchor, title) in found.labels.items()
            if label_count[name] == 1
        }
        self.terms = {
            key: Place(path, anchor)
            for path, found in scanned.items()
            for key, anchor in found.terms.items()
            if term_count[key] == 1
        }
        self.blocks = {
            name: Place(path, anchor)
            for path, found in scanned.items()
            for name, anchor in found.blocks.items()
            if label_count[name] == 1
        }

    def digest(self) -> str:
        """What every page using a label or a term shares: a page carried over is keyed again when it changes."""
        places = [
            sorted((n, p.state()) for n, p in self.labels.items()),
            sorted((k, p.state()) for k, p in self.terms.items()),
            sorted((n, p.state()) for n, p in self.blocks.items()),
        ]
        return hashlib.sha256(json.dumps(places, ensure_ascii=False).encode("utf-8", "surrogateescape")).hexdigest()
