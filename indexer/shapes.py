"""The JSON shape of each record pincite prints (`--json`) and serves (MCP), written once.

A record's `to_json()` returns its shape from here, so mypy checks every field the CLI
prints. Where the MCP server gives an agent a smaller view of a record (`CitedText` of a
resolved citation, `NearOut` of a near match, ...), the view is declared here as a base of
the record's shape, so each field's type is written once, and `view()` builds it from the
record's own JSON, so each value is computed once. The views keep the names (and the one
docstring) that the MCP output schemas publish; agent_shapes.py composes them into the
tools' answers.

Nothing here imports pincite, so every layer can use it. TypedDicts come from
typing_extensions: pydantic (which turns them into the MCP output schemas) reads nested
stdlib TypedDicts only from Python 3.12 on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from typing_extensions import TypedDict

Shape = TypeVar("Shape")


def view(data: Mapping[str, Any], shape: type[Shape]) -> Shape:
    """The fields of `shape`, in its order, taken from a record's fuller JSON `data`."""
    return cast(Shape, {key: data[key] for key in shape.__annotations__})


# -- git ----------------------------------------------------------------------------------
class HunkOut(TypedDict):
    """A hunk of git's zero-context diff: old start and count, new start and count."""

    header: str
    lines: list[str]


class CommitJson(TypedDict):
    """A commit: SHA, time and subject."""

    commit: str
    subject: str
    time: int


# -- a span of a document, resolved -----------------------------------------------------
class PinnedText(TypedDict):
    """A span of a document at a commit and exactly its text."""

    # The fields every place in the corpus carries: the citation and exactly the text it pins.
    citation: str
    text: str
    path: str
    commit: str
    blob: str
    lines: list[int]
    chars: list[int]
    pages: list[int] | None


class CitedText(PinnedText):
    """A span of a document at a commit: its citation and, separately, exactly the text it pins."""

    permalink: str | None


class ResolvedJson(PinnedText):
    """A resolved citation: the pinned text with its source class and extractor identity."""

    # citations.resolve.Resolved
    source_class: str
    identity: str
    linecol: list[int]
    ocr: bool  # the span's words were recognized from a page image by OCR, not typed


class CitedJson(ResolvedJson):
    """A new citation in every form (the permalink, GitHub URL, SWHID beside the text form)."""

    # api.Cited: a new citation in every form
    permalink: str | None
    github_url: str | None
    swhid: str


# -- snapshots ----------------------------------------------------------------------------
class Snapshot(TypedDict):
    """A committed snapshot's metadata: the URL, when it was fetched, status and type."""

    url: str
    final_url: str
    fetched_at: str
    status: int
    content_type: str
    sha256: str


class SnapshotJson(Snapshot):
    """A snapshot's metadata as its `.meta.json` records it."""

    # snapshots.store.SnapshotMeta, as stored beside the page (the `.meta.json` file)
    charset: str | None
    size: int
    resolved_ip: str
    pincite_version: str
    extractor: str | None
    etag: str | None
    last_modified: str | None
    content_language: str | None


class ResolvedTextJson(ResolvedJson):
    """The text a citation pins, with the lines around it."""

    # api.ResolvedText
    before: str
    after: str
    snapshot: SnapshotJson | None


# -- verdicts and quote search ----------------------------------------------------------
class VerdictJson(TypedDict):
    """A verdict against a target commit: status, reason, relocation, hunks and the changing commit."""

    # citations.drift.Verdict
    citation: str
    status: str
    reason: str
    hint: str | None
    target_commit: str | None
    new_path: str | None
    relocated: str | None
    hunks: list[HunkOut]
    nearest: str | None
    changed_by: CommitJson | None
    followed_by: str


class NearOut(TypedDict):
    """A near match of a quote: a suggestion with its similarity, never a verified citation."""

    citation: str
    text: str
    path: str
    lines: list[int]
    similarity: float
    word_diff: str
    label: str


class NearMatchJson(NearOut):
    """A near match with the passage it was found in."""

    # citations.history.NearMatch: a suggestion, never a verified citation
    span: list[int]
    exact: bool


class LastSeenOut(TypedDict):
    """The last commit a quote stood at its cited path, and the commit that removed or changed it."""

    path: str
    last_commit: str
    removed_by: str
    subject: str
    change: str
    new_path: str | None
    diff: list[HunkOut]


class LastSeenJson(LastSeenOut):
    """Where a quote was last seen, with the hunks that touched it."""

    # citations.history.LastSeen
    message: str


class QuoteSearchJson(TypedDict):
    """What a quote search found: exact places, near matches, and where it was last seen."""

    # citations.history.QuoteSearch
    quote: str
    target: str
    places: list[str]
    near: list[NearMatchJson]
    last_seen: LastSeenJson | None


# -- builds -------------------------------------------------------------------------------
class BuildResult(TypedDict):
    """What a build did, in the agent's words."""

    commit: str
    commits: int
    documents: int
    versions: int
    passages: int
    skipped: list[dict[str, str | None]]
    warnings: list[str]
    index_path: str
    seconds: float


class BuildSummaryJson(BuildResult):
    """What a build did: commit, counts, skipped files, warnings, the index and site."""

    # index.build.BuildSummary
    extracted: int
    reused: int
    failures_reused: int
    site_dir: str | None
    site: dict[str, object] | None
    stages: dict[str, float]
