"""The shapes of what the agent tools return, and the conversions from pincite's records.

Every shape is a TypedDict, so the MCP server publishes it as the tool's output schema
and mypy checks each conversion against it. The rule they all follow: a place in the
corpus is a `CitedText`, which carries the citation (to copy, never to re-type) and the
exact text it pins, separately, so a client can show the quote on the citation chip.

A record's own shape lives in indexer/shapes.py with the views of it an agent gets
(`CitedText`, `Snapshot`, `NearOut`, `LastSeenOut`, `HunkOut`, `BuildResult`); each
conversion here takes the record's `to_json()` and keeps the view's fields, so a value is
computed in one place for the CLI and the agent alike. The shapes below are the tools'
own answers, composed of those views.
"""

from __future__ import annotations

from typing_extensions import TypedDict

from indexer import api
from indexer.citations.drift import Verdict
from indexer.citations.quote_search import LastSeen, NearMatch
from indexer.citations.recovery import RecoveryAttempt
from indexer.citations.resolve import Resolved
from indexer.citations.verdicts import VerdictStatus
from indexer.index.build import BuildSummary
from indexer.shapes import (
    BuildResult,
    CandidateJson,
    CitationFound,
    CitedText,
    HunkOut,
    LastSeenOut,
    NearOut,
    PassageHit,
    PinnedText,
    Snapshot,
    view,
)
from indexer.snapshots.store import SnapshotMeta
from indexer.text.citation import permalink
from indexer.vcs.repo import Hunk


class SearchHit(PassageHit):
    """A passage `search` found: its citation (by code points) and exactly the text that citation pins."""

    citation: str
    text: str
    permalink: str | None


class SearchResult(TypedDict):
    """The passages `search` found, best first."""

    commit: str
    hits: list[SearchHit]


class Cited(CitedText):
    """A new citation in every form: text form, permalink, GitHub URL, SWHID, Markdown."""

    github_url: str | None
    swhid: str
    markdown: str


class CiteResult(TypedDict):
    """What `cite` made: one citation, or every candidate when the quote stands at several places."""

    status: str
    cited: Cited | None
    candidates: list[CitedText]
    count: int
    message: str


class ResolveResult(CitedText):
    """Exactly the text a citation pins, with the lines around it when asked."""

    linecol: list[int]
    before: str
    after: str
    source_class: str
    identity: str
    snapshot: Snapshot | None


class ChangedBy(TypedDict):
    """The commit that first changed, moved or removed a citation's lines."""

    commit: str
    subject: str
    status: str
    reason: str
    path: str


class RecoveryOut(TypedDict):
    """Where a broken citation's words went: the outcome and, when exact, the corrected citation."""

    outcome: str
    detail: str
    summary: str
    new_citation: CitedText | None
    places: list[str]
    near: list[NearOut]
    last_seen: LastSeenOut | None
    discovery: list[CandidateJson]


class VerifyItem(TypedDict):
    """One citation's verdict at the target commit, with what changed it and where its words went."""

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
    """The verdict of every citation `verify` was given, in order."""

    target_commit: str
    results: list[VerifyItem]


class Correction(TypedDict):
    """The citation a wrong_ref quote should carry: where the quoted words stand."""

    citation: str
    text: str
    why: str
    exact: bool
    permalink: str | None


class AnswerCitation(CitationFound):
    """One citation of a draft: its verdict, its quote's verdict and the correction when there is one."""

    parsed: str | None
    reason: str
    hint: str | None
    quote_reason: str | None
    cited_text: str | None
    corrected: Correction | None
    suggestions: list[NearOut]
    changed_by: ChangedBy | None


class AnswerCheck(TypedDict):
    """Every citation of a draft answer and its quote, checked."""

    target_commit: str
    ok: bool
    summary: dict[str, int]
    citations: list[AnswerCitation]
    notes: list[str]


class LocateResult(TypedDict):
    """Where a quote stands at a commit, its near matches, and when it last stood where it was cited."""

    quote: str
    target_commit: str
    found: bool
    places: list[CitedText]
    near: list[NearOut]
    last_seen: LastSeenOut | None
    discovery: list[CandidateJson]
    steps: list[str]


# -- conversions ---------------------------------------------------------------------
def cited_text(resolved: Resolved, site_url: str) -> CitedText:
    place = view(resolved.to_json(), PinnedText)
    return {**place, "permalink": permalink(resolved.citation, site_url, resolved.blob) if site_url else None}


def cited_out(cited: api.Cited) -> Cited:
    """A new citation: the place, its permalink, GitHub URL and SWHID as `api.Cited` gives them, and Markdown."""
    data = cited.to_json()
    return {
        **view(data, CitedText),
        "github_url": data["github_url"],
        "swhid": data["swhid"],
        "markdown": cited.markdown(),
    }


def resolved_out(found: api.ResolvedText, site_url: str) -> ResolveResult:
    data = found.to_json()
    return {
        **cited_text(found.resolved, site_url),
        "linecol": data["linecol"],
        "before": data["before"],
        "after": data["after"],
        "source_class": data["source_class"],
        "identity": data["identity"],
        "snapshot": snapshot_out(found.snapshot),
    }


def snapshot_out(meta: SnapshotMeta | None) -> Snapshot | None:
    return None if meta is None else view(meta.to_json(), Snapshot)


def hunks_out(hunks: tuple[Hunk, ...] | list[Hunk]) -> list[HunkOut]:
    return [h.to_json() for h in hunks]


def changed_by(verdict: Verdict | None) -> ChangedBy | None:
    """The commit that first changed a drifted citation's text, as verify names it (docs/design.md#d4)."""
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
    return view(match.to_json(), NearOut)


def last_seen_out(seen: LastSeen | None) -> LastSeenOut | None:
    return None if seen is None else view(seen.to_json(), LastSeenOut)


def build_out(summary: BuildSummary) -> BuildResult:
    return view(summary.to_json(), BuildResult)


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


__all__ = [
    "AnswerCheck",
    "AnswerCitation",
    "BuildResult",
    "ChangedBy",
    "CiteResult",
    "Cited",
    "CitedText",
    "Correction",
    "HunkOut",
    "LastSeenOut",
    "LocateResult",
    "NearOut",
    "RecoveryOut",
    "ResolveResult",
    "SearchHit",
    "SearchResult",
    "Snapshot",
    "VerifyItem",
    "VerifyResult",
    "build_out",
    "changed_by",
    "cited_out",
    "cited_text",
    "hunks_out",
    "last_seen_out",
    "near_out",
    "recovery_out",
    "resolved_out",
    "snapshot_out",
]
