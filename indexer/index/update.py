"""When a build may update the previous index by the new commits alone, and what it keeps to do so.

A build after new commits walks only those commits when the previous index was written for
the same history (`history_key`: roots, history start, extractors and their identities,
limits, how passages are cut, the repository's own attributes file, the schema) and its head is on the new tip's
first-parent line; the index it writes is the one a cold build of the tip would write.
Anything else is a full build (fail closed): a force-push, a tip behind the head, another
configuration, a changed `.gitattributes` file anywhere in the repository (declarations of
the built commit apply to every version), a previous build that skipped a missing or hung
blob (its next build tries it again), a shallow clone.

The index's meta keeps, for the next update:
  history_key    the key above; "" when the next build must walk the whole history
  history_extractors  the extractors whose identities the key holds (`used_extractors`)
  head_summary   `HeadSummary` as JSON: the counts and notes of the built commit's documents
  changed_paths  {"since": the previous head, "paths": [...]} as JSON: the paths whose interval rows
                 this build changed since that commit (`changed_paths_json`, `read_changed_paths`);
                 "null" when unknown (a full build: treat every path as changed)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from indexer import __version__
from indexer.config import Config
from indexer.extract import registry as extract_mod
from indexer.index.store import SCHEMA_VERSION, IndexWriter
from indexer.text.chunk import cut_key
from indexer.text.kinds import TEXT_FORMATS
from indexer.vcs.repo import CommitInfo, GitRepo


def history_key(repo: GitRepo, config: Config, start: str | None, failures_key: str, used: Sequence[str]) -> str:
    """What the recorded history and its classification depend on, besides the commits themselves.

    Every extractor's name, extensions and availability; the identities of those the history
    `used` alone (`used_extractors`): asking the others would import their libraries and start
    OCR's process on every build of a corpus that has no file of theirs. pincite's version: a
    release may classify paths otherwise (a change to `classify` or the text formats between
    releases bumps SCHEMA_VERSION, as a change of what the index holds does).
    """
    limits = extract_mod.Limits.from_config(config)
    extractors = [
        [e.name, list(e.extensions), e.available()]
        + ([e.identity(), list(e.identities(limits))] if e.name in used else [])
        for e in extract_mod.registered()
    ]
    return json.dumps(
        {
            "schema": SCHEMA_VERSION,
            "pincite": __version__,
            "roots": list(config.roots),
            "start": start,
            "failures": failures_key,
            "extractors": extractors,
            "info_attributes": hashlib.sha256(repo.info_attributes()).hexdigest(),
            # How passages are cut (`passage_max_chars`, the Markdown parser): part of every row's form,
            # so the rows of the paths an update does not touch would keep the old cut.
            "cuts": [cut_key(fmt, config.passage_max_chars) for fmt in TEXT_FORMATS],
        },
        sort_keys=True,
    )


def used_extractors(identities: Iterable[str | None]) -> tuple[str, ...]:
    """The names of the extractors whose identities these are ("text/1" is the text extractor's);
    every extractor's when one of them names none registered (fail closed)."""
    names = {e.name for e in extract_mod.registered()}
    used = {identity.split("/", 1)[0] for identity in set(identities) if identity is not None}
    return tuple(sorted(used if used <= names else names))


@dataclass
class HeadSummary:
    """The built commit's documents as a build reports them, kept so an update changes only its paths' part.

    `notes` maps a path to ("skipped", reason, hint) or ("warning", reason, ""); `versions` and
    `failed_versions` count the distinct versions (and those without text) the whole history holds.
    """

    documents: int = 0
    passages: int = 0
    types: Counter[str] = field(default_factory=Counter)
    notes: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    versions: int = 0
    failed_versions: int = 0

    def add_version(self, path: str, file_type: str, status: str, reason: str, passages: int, sign: int = 1) -> None:
        """Count (sign=1) or uncount (sign=-1) the version a path has at the head."""
        if status == "skipped":
            if sign > 0:
                self.notes[path] = ("skipped", reason, "")
            return
        self.documents += sign
        self.passages += sign * passages
        self.types[file_type] += sign
        if reason and sign > 0:
            self.notes[path] = ("warning", reason, "")

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["types"] = {kind: n for kind, n in sorted(self.types.items()) if n}
        data["notes"] = {path: list(note) for path, note in sorted(self.notes.items())}
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> HeadSummary | None:
        if not text:
            return None
        data = json.loads(text)
        return cls(
            documents=data["documents"],
            passages=data["passages"],
            types=Counter(data["types"]),
            notes={path: (note[0], note[1], note[2]) for path, note in data["notes"].items()},
            versions=data["versions"],
            failed_versions=data["failed_versions"],
        )


@dataclass(frozen=True)
class UpdatePlan:
    """The previous index's head (`head_seq`, `head`) and the commits after it up to the new tip."""

    head_seq: int
    head: str
    fresh: list[CommitInfo]
    summary: HeadSummary
    used: tuple[str, ...]  # the extractors the previous history used (`used_extractors`)


def plan_update(
    repo: GitRepo, writer: IndexWriter, key: Callable[[Sequence[str]], str], tip: str, *, retry_skipped: bool
) -> UpdatePlan | None:
    """How to update the previous index to `tip` by the new commits alone, or None for a full build.

    `key` gives the `history_key` of this build for the extractors a history used."""
    if not writer.reused_file or retry_skipped:
        return None
    writer.check_reused()
    used = json.loads(writer.meta("history_extractors") or "null")
    if not isinstance(used, list) or writer.meta("history_key") != key(used):
        return None
    head = writer.history_head()
    summary = HeadSummary.from_json(writer.meta("head_summary"))
    if head is None or summary is None or writer.meta("built_commit") != head[1]:
        return None
    if repo.is_shallow():  # whether the history below is whole is the full walk's to say
        return None
    fresh = repo.first_parent_since(head[1], tip)
    if fresh is None or (fresh and repo.attribute_files_differ(head[1], tip)):
        return None
    return UpdatePlan(head[0], head[1], fresh, summary, tuple(used))


def changed_paths_json(since: str | None, paths: tuple[str, ...] | None) -> str:
    """The `changed_paths` meta value: None paths (unknown: every path may have changed) is "null"."""
    return "null" if paths is None else json.dumps({"since": since, "paths": list(paths)})


def read_changed_paths(value: str | None) -> tuple[str | None, tuple[str, ...] | None]:
    """(since commit, paths) from the `changed_paths` meta value; (None, None) when unknown."""
    data = json.loads(value) if value else None
    if not isinstance(data, dict):
        return None, None
    return data["since"], tuple(data["paths"])


__all__ = [
    "HeadSummary",
    "UpdatePlan",
    "changed_paths_json",
    "history_key",
    "plan_update",
    "read_changed_paths",
    "used_extractors",
]
