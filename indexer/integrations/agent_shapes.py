"""The shapes of what the agent tools return, and the conversions from pincite's records.

Every shape is a TypedDict, so the MCP server publishes it as the tool's output schema
and mypy checks each conversion against it. The rule they all follow: a place in the
corpus is a `CitedText`, which carries the citation (to copy, never to re-type) and the
exact text it pins, separately, so a client can show the quote on the citation chip.

TypedDicts come from typing_extensions: pydantic (which turns them into schemas for the
MCP SDK) reads nested stdlib TypedDicts only from Python 3.12 on. Both arrive with the
`mcp` extra.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from indexer.citations.drift import Verdict
from indexer.citations.quote_search import LastSeen, NearMatch
from indexer.citations.recovery import RecoveryAttempt
from indexer.citations.resolve import Resolved
from indexer.citations.verdicts import VerdictStatus
from indexer.snapshots.store import SnapshotMeta
from indexer.text.citation import permalink
from indexer.vcs.repo import Hunk


class CitedText(TypedDict):
    """A span of a document at a commit: its citation and, separately, exactly the text it pins."""

    citation: str
    text: str
    path: str
    commit: str
    blob: str
    lines: list[int]
    chars: list[int]
    pages: list[int] | None
    permalink: str | None


class SearchHit(TypedDict):
    citation: str
    text: str
    path: str
    commit: str
    lines: list[int]
    chars: list[int]
    pages: list[int] | None
    heading: str
    snippet: str
    highlights: list[list[int]]
    permalink: str | None


class SearchResult(TypedDict):
    commit: str
    hits: list[SearchHit]


class Cited(CitedText):
    github_url: str | None
    swhid: str
    markdown: str


class CiteResult(TypedDict):
    status: str
    cited: Cited | None
    candidates: list[CitedText]
    count: int
    message: str


class Snapshot(TypedDict):
    url: str
    final_url: str
    fetched_at: str
    status: int
    content_type: str
    sha256: str


class ResolveResult(CitedText):
    linecol: list[int]
    before: str
    after: str
    source_class: str
    identity: str
    snapshot: Snapshot | None


class HunkOut(TypedDict):
    header: str
    lines: list[str]


class ChangedBy(TypedDict):
    commit: str
    subject: str
    status: str
    reason: str
    path: str


class NearOut(TypedDict):
    citation: str
    text: str
    path: str
    lines: list[int]
    similarity: float
    word_diff: str
    label: str


class LastSeenOut(TypedDict):
    path: str
    last_commit: str
    removed_by: str
    subject: str
    change: str
    new_path: str | None
    diff: list[HunkOut]


class RecoveryOut(TypedDict):
    outcome: str
    detail: str
    summary: str
    new_citation: CitedText | None
    places: list[str]
    near: list[NearOut]
    last_seen: LastSeenOut | None
    discovery: list[dict[str, Any]]


class VerifyItem(TypedDict):
    citation: str
    status: str
    reason: str
    hint: str | None
    cited_text: str | None
    relocated: CitedText | None
    new_path: str | None
    changed_by: ChangedBy | None
    hunks: list[HunkOut]
    nearest: str | None
    recovery: RecoveryOut | None
    snapshot: Snapshot | None


class VerifyResult(TypedDict):
    target_commit: str
    results: list[VerifyItem]


class Correction(TypedDict):
    citation: str
    text: str
    why: str
    exact: bool
    permalink: str | None


class AnswerCitation(TypedDict):
    line: int
    citation: str
    parsed: str | None
    verdict: str
    reason: str
    hint: str | None
    quote: str | None
    quote_verdict: str | None
    quote_reason: str | None
    cited_text: str | None
    severity: str
    corrected: Correction | None
    suggestions: list[NearOut]
    changed_by: ChangedBy | None


class AnswerCheck(TypedDict):
    target_commit: str
    ok: bool
    summary: dict[str, int]
    citations: list[AnswerCitation]
    notes: list[str]


class LocateResult(TypedDict):
    quote: str
    target_commit: str
    found: bool
    places: list[CitedText]
    near: list[NearOut]
    last_seen: LastSeenOut | None
    discovery: list[dict[str, Any]]
    steps: list[str]


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


# -- conversions ---------------------------------------------------------------------
def cited_text(resolved: Resolved, site_url: str) -> CitedText:
    return {
        "citation": resolved.citation.text_form(),
        "text": resolved.text,
        "path": resolved.path,
        "commit": resolved.commit,
        "blob": resolved.blob,
        "lines": list(resolved.lines),
        "chars": [resolved.span.start, resolved.span.end],
        "pages": list(resolved.pages) if resolved.pages else None,
        "permalink": permalink(resolved.citation, site_url, resolved.blob) if site_url else None,
    }


def snapshot_out(meta: SnapshotMeta | None) -> Snapshot | None:
    if meta is None:
        return None
    return {
        "url": meta.url,
        "final_url": meta.final_url,
        "fetched_at": meta.fetched_at,
        "status": meta.status,
        "content_type": meta.content_type,
        "sha256": meta.sha256,
    }


def hunks_out(hunks: tuple[Hunk, ...] | list[Hunk]) -> list[HunkOut]:
    return [{"header": h.header, "lines": list(h.lines)} for h in hunks]


def changed_by(verdict: Verdict | None) -> ChangedBy | None:
    """The commit that first changed a drifted citation's text, as verify names it (DESIGN 4)."""
    if verdict is None or verdict.status != VerdictStatus.DRIFTED or verdict.changed_by is None:
        return None
    resolved = verdict.resolved
    return {
        "commit": verdict.changed_by.sha,
        "subject": verdict.changed_by.subject,
        "status": verdict.status,
        "reason": verdict.reason,
        "path": verdict.new_path or (resolved.path if resolved else verdict.citation.path),
    }


def near_out(match: NearMatch) -> NearOut:
    return {
        "citation": match.citation.text_form(),
        "text": match.text,
        "path": match.path,
        "lines": list(match.lines),
        "similarity": round(match.similarity, 3),
        "word_diff": match.word_diff,
        "label": f"suggestion (fuzzy, {match.similarity:.0%} similar; not verified)",
    }


def last_seen_out(seen: LastSeen | None) -> LastSeenOut | None:
    if seen is None:
        return None
    return {
        "path": seen.path,
        "last_commit": seen.last_commit,
        "removed_by": seen.removed_by,
        "subject": seen.subject,
        "change": seen.change,
        "new_path": seen.new_path,
        "diff": hunks_out(seen.hunks),
    }


def recovery_out(attempt: RecoveryAttempt | None, new_citation: CitedText | None) -> RecoveryOut | None:
    if attempt is None:
        return None
    search = attempt.search
    return {
        "outcome": attempt.outcome,
        "detail": attempt.detail,
        "summary": attempt.summary(),
        "new_citation": new_citation,
        "places": [c.text_form() for c in search.places] if search else [],
        "near": [near_out(n) for n in search.near] if search else [],
        "last_seen": last_seen_out(search.last_seen) if search else None,
        "discovery": [c.to_json() for c in attempt.discovery.candidates] if attempt.discovery else [],
    }
