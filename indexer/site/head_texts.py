"""What the site derives from the whole texts at the built commit, kept from build to build.

`words.txt` (the search page's "did you mean", `vocabulary.py`) counts the words of the distinct
versions at the built commit. Reading 10,000 texts takes seconds; a version's text never changes,
so the word counts are kept in the site (`TEXTS_FILE`), with the versions they were made from, and
a build reads only the texts of the versions that came or went since. The file is read only when it
is the one the previous site's manifest names (its digest, `Manifest.texts`): counts edited, cut
short or left by another build are counted afresh.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from indexer.index.store import VersionMeta
from indexer.site.manifest import read_named_json, write_named_json
from indexer.site.vocabulary import WORD, word_counts

TEXTS_FILE = ".pincite-texts.json"
# The rules the kept figures were made by: other rules, and the figures are made again.
RULES = f"words {WORD.pattern} lowercased"


def version_key(meta: VersionMeta) -> str:
    """A version as the kept figures name it: its blob and identity (ids are the index file's own)."""
    return f"{meta.blob} {meta.identity}"


@dataclass
class HeadTexts:
    """Word counts over a set of versions' texts."""

    versions: set[str] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)

    @classmethod
    def load(cls, file: Path, digest: str | None = None) -> HeadTexts | None:
        """The figures an earlier build kept, or None (none, unreadable, made by other rules, or, given the
        `digest` the previous site's manifest recorded, not that file)."""
        try:
            data = read_named_json(file, digest)
            if data["rules"] != RULES:
                return None
            return cls(set(data["versions"]), Counter(data["counts"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(self, file: Path) -> str:
        """Write the figures; the file's digest, for the manifest to name."""
        data = {
            "rules": RULES,
            "versions": sorted(self.versions),
            "counts": dict(sorted(self.counts.items())),
        }
        return write_named_json(file, data)

    def add(self, key: str, text: str) -> None:
        self.versions.add(key)
        self.counts.update(word_counts(text))

    def remove(self, key: str, text: str) -> None:
        self.versions.discard(key)
        for word, count in word_counts(text).items():
            left = self.counts[word] - count
            if left > 0:
                self.counts[word] = left
            else:
                del self.counts[word]


def head_texts(
    kept: HeadTexts | None, wanted: Iterable[str], version_ids: Mapping[str, int], text_of: Callable[[int], str]
) -> HeadTexts:
    """The figures over the `wanted` versions: the `kept` ones updated by the versions that came or
    went, or counted afresh when nothing was kept or more changed than stays.

    `version_ids` gives the index's id of every version key (the gone ones too: the index keeps
    every version), `text_of` a version's text by id.
    """
    wanted = set(wanted)
    if kept is not None:
        gone, new = kept.versions - wanted, wanted - kept.versions
        if len(gone) + len(new) <= len(wanted) and all(key in version_ids for key in gone):
            for key in sorted(gone):
                kept.remove(key, text_of(version_ids[key]))
            for key in sorted(new):
                kept.add(key, text_of(version_ids[key]))
            return kept
    fresh = HeadTexts()
    for key in sorted(wanted):
        fresh.add(key, text_of(version_ids[key]))
    return fresh
