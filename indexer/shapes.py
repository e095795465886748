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
    chars: list[int]
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
    target_commit: str
    places: list[str]
    near: list[NearMatchJson]
    last_seen: LastSeenJson | None


class RecoveryJson(TypedDict):
    """A recovery attempt: where a broken citation's words went, and whether the fix was applied."""

    # citations.recovery.RecoveryAttempt (also a line of `check --recovery-log`)
    at: str
    citation: str
    quote: str | None
    target_commit: str
    steps: list[str]
    outcome: str
    detail: str
    new_citation: str | None
    applied: bool
    applied_by: str | None
    not_searched_further: bool
    search: QuoteSearchJson | None
    discovery: DiscoveryJson | None


class CandidateJson(TypedDict):
    """A discovery provider's suggestion of where a quote may stand: never a verified citation."""

    # citations.discovery.Candidate
    provider: str
    kind: str
    source: str
    repository: str | None
    commit: str | None
    chars: list[int] | None
    lines: list[int] | None
    score: float | None
    exact: bool
    note: str
    suggestion: bool
    next_step: str


class ProviderFailureJson(TypedDict):
    """A discovery provider that failed, and why."""

    provider: str
    error: str


class DiscoveryJson(TypedDict):
    """What the discovery providers suggested, and those that failed."""

    # citations.discovery.Discovery
    candidates: list[CandidateJson]
    failures: list[ProviderFailureJson]


class VerifiedJson(VerdictJson):
    """One citation `verify` was given: its verdict, a recovery attempt when broken, a snapshot's metadata."""

    # api.Checked
    recovery: RecoveryJson | None
    snapshot: SnapshotJson | None


class LocatedJson(QuoteSearchJson):
    """Where a quote stands (`locate`): the quote search, the steps it took and discovery's suggestions."""

    # api.Located
    steps: list[str]
    discovery: DiscoveryJson | None


# -- search ---------------------------------------------------------------------------------
class PassageHit(TypedDict):
    """A passage a search found: where it stands, its heading trail and snippet."""

    path: str
    commit: str
    lines: list[int]
    chars: list[int]
    pages: list[int] | None
    heading: str
    snippet: str
    highlights: list[list[int]]


class SearchHitJson(PassageHit):
    """A passage `search` found, with its citation by lines and by code points."""

    # index.search.SearchHit
    citation: str
    citation_chars: str


# -- check --------------------------------------------------------------------------------
class QuoteVerdictJson(TypedDict):
    """A quote's verdict: matched, wrong_ref, failed or unverifiable, with where it stands instead."""

    # citations.quote.QuoteVerdict
    status: str
    reason: str
    suggestion: str | None
    found: list[str]
    near: str | None


class CitationFound(TypedDict):
    """A citation found in a document (or a draft answer): where, as written, and its verdicts."""

    line: int
    citation: str
    verdict: str
    quote: str | None
    quote_verdict: str | None
    severity: str


class CheckRecordJson(CitationFound):
    """One citation `check` found in a document: its verdict, its quote's, and a recovery attempt."""

    # citations.check.CheckRecord
    file: str
    kind: str
    parsed: str | None
    details: str
    resolution: VerdictJson | None
    quote_check: QuoteVerdictJson | None
    suggestion: str | None
    recovery: RecoveryJson | None


FixedJson = TypedDict("FixedJson", {"file": str, "line": int, "from": str})
FixedJson.__doc__ = "A citation `check --fix` re-pinned: where it stands and what it was."


class CheckTailJson(TypedDict):
    """What follows the records of a check: counts, cited commits' reachability, what --fix did."""

    summary: dict[str, int]
    reachability: dict[str, str]
    fixed: list[FixedJson]
    not_fixed_changed: list[str]


class CheckReportJson(CheckTailJson):
    """Every citation a check found, then the counts."""

    # citations.check.CheckReport
    target_commit: str
    records: list[CheckRecordJson]


class CheckOutputJson(CheckReportJson):
    """What `check --json` prints: the report and the pin refs `--pin` created."""

    pinned: list[str]


# -- impact -------------------------------------------------------------------------------
class ImpactEndJson(TypedDict):
    """A citation's verdict at one end of a change."""

    # citations.impact.End
    commit: str
    verdict: str
    quote_verdict: str | None
    path: str | None
    lines: list[int] | None
    reason: str


class ImpactRecordJson(TypedDict):
    """A citation whose verdict a change alters, with the commit that did it and git's hunks."""

    # citations.impact.ImpactRecord
    file: str
    line: int
    citation: str
    parsed: str
    cited_path: str
    cited_lines: list[int] | None
    kind: str
    breaks: bool
    base: ImpactEndJson
    head: ImpactEndJson
    changed_by: CommitJson | None
    source_path: str
    source_lines: list[int] | None
    hunks: list[HunkOut]


class ImpactJson(TypedDict):
    """What a change does to the citations of the repository's documents."""

    # citations.impact.ImpactReport
    base: str
    merge_base: str
    head: str
    summary: dict[str, int]
    records: list[ImpactRecordJson]
    touched: list[str]
    files: list[str]
    skipped: list[str]
    notes: list[str]


# -- pins, snapshots, WARC ------------------------------------------------------------------
class PinnedJson(TypedDict):
    """The cited commits and the pin refs created for those that had none."""

    # api.Pinned
    commits: list[str]
    created: list[str]


class DiffstatJson(TypedDict):
    """Lines added and removed in a snapshot's extracted text since the last one."""

    added: int
    removed: int


class SnapshotResultJson(TypedDict):
    """What happened to one URL: new, changed, unchanged or failed."""

    # snapshots.store.SnapshotResult
    url: str
    status: str
    path: str
    sha256: str
    size: int
    commit: str | None
    reason: str
    diffstat: DiffstatJson | None
    warnings: list[str]


class WarcExportJson(TypedDict):
    """A WARC file written from committed snapshots."""

    # snapshots.warc.WarcExport
    path: str
    commit: str
    snapshots: int
    records: int


# -- doctor, init, textconv -------------------------------------------------------------------
class DoctorCheckJson(TypedDict):
    """One thing `doctor` looked at: ok, warning or error, with the fix."""

    name: str
    status: str
    detail: str
    hint: str


class DoctorJson(TypedDict):
    """Everything `doctor` looked at."""

    # integrations.doctor.Report
    ok: bool
    checks: list[DoctorCheckJson]


# The git setting `pincite init` writes is its key (the textconv driver's name is `pincite`).
TextconvSetupJson = TypedDict(
    "TextconvSetupJson", {"attributes_file": str, "added_lines": list[str], "diff.pincite.textconv": str}
)
TextconvSetupJson.__doc__ = "What `init` did for `git diff`: the attribute lines it added and the textconv command."


class InitJson(TextconvSetupJson):
    """What `init` found and wrote: the document roots, the files written or kept, the next command."""

    # integrations.starter.StartResult
    roots: list[str]
    documents: int
    written: list[str]
    kept: list[str]
    ignored: list[str]
    next_command: str


class TextconvJson(TypedDict):
    """The text pincite extracts from a PDF or HTML file, with its identity, title and page starts."""

    path: str
    identity: str
    title: str
    page_starts: list[int]
    notes: list[str]
    text: str


# -- builds -------------------------------------------------------------------------------
class SkippedJson(TypedDict):
    """A file the build did not index, why, and what to do."""

    path: str
    reason: str
    hint: str


class BrokenLinkJson(TypedDict):
    """A link between documents that leads nowhere on the site."""

    document: str
    link: str
    reason: str


class ShownAsSourceJson(TypedDict):
    """A document whose rendered view was over budget, shown as source."""

    path: str
    reason: str


class PagesCutJson(TypedDict):
    """A PDF some of whose pages as printed were left out of the site by its byte budget."""

    path: str
    reason: str


class SiteJson(TypedDict):
    """What the site stage rendered, reused and indexed, and the broken links and over-budget views it found."""

    # site.builder.SiteStats
    pages_rendered: int
    pages_reused: int
    history_written: int
    history_reused: int
    files_linked: int
    citation_documents_read: int
    files_written: int
    broken_links: list[BrokenLinkJson]
    shown_as_source: list[ShownAsSourceJson]
    pages_cut: list[PagesCutJson]
    previous_site: str
    pages_keyed: int
    history_keyed: int
    versions_keyed: int
    changes_keyed: int
    folders_keyed: int
    rows_built: int
    texts_read: int
    carry: str
    manifest_shards_read: int
    manifest_shards_written: int
    places_scanned: int
    search_bundles_indexed: int
    search_bundles_reused: int
    search_pages_indexed: int
    search_pages_superseded: int
    pagefind_seconds: float
    seconds: float


class BuildResult(TypedDict):
    """What a build did, in the agent's words."""

    commit: str
    commits: int
    documents: int
    versions: int
    passages: int
    skipped: list[SkippedJson]
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
    site: SiteJson | None
    stages: dict[str, float]
