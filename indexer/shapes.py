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
    header: str
    lines: list[str]


class CommitJson(TypedDict):
    commit: str
    subject: str
    time: int


# -- a span of a document, resolved -----------------------------------------------------
class PinnedText(TypedDict):
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
    # citations.resolve.Resolved
    source_class: str
    identity: str
    linecol: list[int]
    ocr: bool  # the span's words were recognized from a page image by OCR, not typed


class CitedJson(ResolvedJson):
    # api.Cited: a new citation in every form
    permalink: str | None
    github_url: str | None
    swhid: str


# -- snapshots ----------------------------------------------------------------------------
class Snapshot(TypedDict):
    url: str
    final_url: str
    fetched_at: str
    status: int
    content_type: str
    sha256: str


class SnapshotJson(Snapshot):
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
    # api.ResolvedText
    before: str
    after: str
    snapshot: SnapshotJson | None


# -- verdicts and quote search ----------------------------------------------------------
class VerdictJson(TypedDict):
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
    citation: str
    text: str
    path: str
    lines: list[int]
    similarity: float
    word_diff: str
    label: str


class NearMatchJson(NearOut):
    # citations.history.NearMatch: a suggestion, never a verified citation
    span: list[int]
    exact: bool


class LastSeenOut(TypedDict):
    path: str
    last_commit: str
    removed_by: str
    subject: str
    change: str
    new_path: str | None
    diff: list[HunkOut]


class LastSeenJson(LastSeenOut):
    # citations.history.LastSeen
    message: str


class QuoteSearchJson(TypedDict):
    # citations.history.QuoteSearch
    quote: str
    target: str
    places: list[str]
    near: list[NearMatchJson]
    last_seen: LastSeenJson | None


# -- builds -------------------------------------------------------------------------------
class BuildResult(TypedDict):
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
    # index.build.BuildSummary
    extracted: int
    reused: int
    failures_reused: int
    site_dir: str | None
    site: dict[str, object] | None
    stages: dict[str, float]
