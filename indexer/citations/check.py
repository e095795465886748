"""`pincite check`: verify every citation in a set of documents, and optionally fix them.

For each citation `citation_scan` finds, the report holds its resolution verdict at the
target commit (drift.verify), the verdict of its quote (quote.check_quote) and, for a
drifted citation whose quote stands elsewhere at the target, a recovery suggestion.
Commits that no branch or tag reaches are reported too (garbage collection would delete
them); `pins.pin_commits` keeps them alive.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from indexer.citations.drift import Verdict, prefetch_hunks, verify
from indexer.citations.quote import QuoteVerdict, check_quote
from indexer.citations.recovery import (
    DEEP_SEARCH_BUDGET,
    FAILED_QUOTE_DEEP_SEARCHES,
    Recoverer,
    RecoveryAttempt,
    write_attempts,
)
from indexer.citations.resolve import Resolver
from indexer.citations.scan import BRANCH_HINT, CITATION_HINT, Found, scan
from indexer.citations.verdicts import AppliedBy, CheckStatus, CitationForm, QuoteStatus, Severity, VerdictStatus
from indexer.errors import CitationSyntaxError, RepositoryError, UsageError
from indexer.files import atomic_write_if_unchanged
from indexer.shapes import CheckRecordJson, CheckReportJson, CheckTailJson
from indexer.text.citation import Citation, github_repo, github_url, permalink
from indexer.text.kinds import is_prose_path
from indexer.vcs.pins import reachability
from indexer.vcs.repo import GitRepo

SKIPPED_FOLDERS = ("node_modules", "_site", "__pycache__")


@dataclass(frozen=True)
class CheckRecord:
    """One citation found in a document, and what the check made of it.

    `verdict` is None for a malformed citation (a near-miss that did not parse); `quote_verdict`
    for a citation without a quote; `suggestion` is where the quote stands at the target when the
    citation drifted, `recovery` the recovery attempt for one that does not hold as written.
    """

    file: str
    line: int
    found: Found
    verdict: Verdict | None
    quote_verdict: QuoteVerdict | None
    suggestion: Citation | None = None
    recovery: RecoveryAttempt | None = None

    @property
    def status(self) -> CheckStatus:
        """The verdict's status; malformed for a near-miss, unresolvable for a citation that did not parse."""
        if self.verdict is not None:
            return CheckStatus(self.verdict.status)
        if self.found.kind == CitationForm.BRANCH_LINK:
            return CheckStatus.UNPINNED
        return CheckStatus.MALFORMED if self.found.kind == CitationForm.NEAR_MISS else CheckStatus.UNRESOLVABLE

    @property
    def severity(self) -> Severity:
        """Error (fails the check), warning (drifted, malformed or unpinned: fails with --strict) or ok."""
        quote = self.quote_verdict.status if self.quote_verdict else None
        if self.status == CheckStatus.UNRESOLVABLE or quote in (QuoteStatus.FAILED, QuoteStatus.WRONG_REF):
            return Severity.ERROR
        warned = (CheckStatus.DRIFTED, CheckStatus.MALFORMED, CheckStatus.UNPINNED)
        return Severity.WARNING if self.status in warned else Severity.OK

    @property
    def reason(self) -> str:
        """The verdict's reason; for what is no checkable citation, why not."""
        if self.verdict is not None:
            return self.verdict.reason
        if self.status == CheckStatus.UNPINNED:
            return f"unpinned: {self.found.error}"
        return f"malformed citation: {self.found.error}"

    @property
    def hint(self) -> str | None:
        if self.verdict is not None:
            return self.verdict.hint
        return BRANCH_HINT if self.status == CheckStatus.UNPINNED else None

    @property
    def details(self) -> str:
        parts = [self.reason]
        if self.hint:
            parts.append(f"hint: {self.hint}")
        if self.quote_verdict:
            parts.append(f"quote {self.quote_verdict.status}: {self.quote_verdict.reason}")
        if self.suggestion:
            parts.append(f"suggestion (the quote stands here at the target): {self.suggestion.text_form()}")
        if self.recovery:
            parts.append(self.recovery.summary())
        return "; ".join(parts)

    def to_json(self) -> CheckRecordJson:
        return {
            "file": self.file,
            "line": self.line,
            "citation": self.found.raw,
            "kind": self.found.kind,
            "parsed": self.found.citation.text_form() if self.found.citation else None,
            "verdict": self.status,
            "quote": self.found.quote,
            "quote_verdict": self.quote_verdict.status if self.quote_verdict else None,
            "severity": self.severity,
            "details": self.details,
            "resolution": self.verdict.to_json() if self.verdict else None,
            "quote_check": self.quote_verdict.to_json() if self.quote_verdict else None,
            "suggestion": self.suggestion.text_form() if self.suggestion else None,
            "recovery": self.recovery.to_json() if self.recovery else None,
        }


RecordSink = Callable[["CheckRecord"], None]


@dataclass
class CheckReport:
    """What a check found. `records` holds every record unless they were streamed to a sink
    (`check_paths(on_record=...)`); the counts and the cited commits are kept either way."""

    target_commit: str
    files: list[str] = field(default_factory=list)
    records: list[CheckRecord] = field(default_factory=list)
    reachability: dict[str, str] = field(default_factory=dict)
    fixed: list[CheckRecord] = field(default_factory=list)
    changed_meanwhile: list[str] = field(default_factory=list)  # files --fix left alone: edited while checked
    keep_records: bool = True
    cited_commits: set[str] = field(default_factory=set)
    _tally: Counter[str] = field(default_factory=Counter)

    def add(self, record: CheckRecord) -> None:
        """Count a record (and keep it, unless records are streamed)."""
        self._tally.update((f"status:{record.status}", f"severity:{record.severity}", "citations"))
        if record.quote_verdict:
            self._tally[f"quote:{record.quote_verdict.status}"] += 1
        if record.recovery is not None and record.recovery.not_searched_further:
            self._tally["not_searched_further"] += 1
        if record.verdict and record.verdict.resolved:
            self.cited_commits.add(record.verdict.resolved.commit)
        if self.keep_records:
            self.records.append(record)

    @property
    def unreachable(self) -> list[str]:
        return sorted(sha for sha, state in self.reachability.items() if state != "reachable")

    def summary(self) -> dict[str, int]:
        result = {"files": len(self.files), "citations": self._tally["citations"]}
        for status in CheckStatus:
            result[status.value] = self._tally[f"status:{status}"]
        for quote in QuoteStatus:
            result[f"quote_{quote}"] = self._tally[f"quote:{quote}"]
        result["errors"] = self._tally[f"severity:{Severity.ERROR}"]
        result["warnings"] = self._tally[f"severity:{Severity.WARNING}"]
        result["unreachable_commits"] = sum(v == "unreachable" for v in self.reachability.values())
        result["fixed"] = len(self.fixed)
        result["not_fixed_changed"] = len(self.changed_meanwhile)
        # Recoveries past the run's budget of deep searches: their words stand nowhere in the cited
        # document, and were not searched for in the corpus or its history (`pincite verify` does).
        result["not_searched_further"] = self._tally["not_searched_further"]
        return result

    def not_searched_further(self) -> str | None:
        """Past the run's budget of deep searches, what was left unsearched and how to search it; None
        when every recovery searched as far as it could."""
        count = self._tally["not_searched_further"]
        if not count:
            return None
        return (
            f"not searched further: {count} citation(s) whose quote failed or that drifted, past this run's"
            " budget of deep searches (their words stand nowhere in the cited document); run"
            " `pincite verify <citation>` for a full search"
        )

    def failed(self, strict: bool = False) -> bool:
        summary = self.summary()
        return summary["errors"] > 0 or (strict and (summary["warnings"] > 0 or summary["unreachable_commits"] > 0))

    def to_json(self) -> CheckReportJson:
        return {"target_commit": self.target_commit, "records": [r.to_json() for r in self.records], **self.tail_json()}

    def tail_json(self) -> CheckTailJson:
        """Everything `to_json` holds but the records: what a stream of records is followed by."""
        return {
            "summary": self.summary(),
            "reachability": self.reachability,
            "fixed": [{"file": r.file, "line": r.line, "from": r.found.raw} for r in self.fixed],
            "not_fixed_changed": self.changed_meanwhile,
        }


def document_files(paths: list[Path]) -> list[Path]:
    """The documents to scan: given files, and Markdown/text files under given folders."""
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path}: no such file or folder", hint="pass documents or folders to check")
        if path.is_file():
            files.append(path)
            continue
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not skipped_folder(d))
            files += [Path(root) / n for n in sorted(names) if is_prose_path(n)]
    return files


def skipped_folder(name: str) -> bool:
    """Whether a folder walk for documents passes over this folder (hidden, build output, dependencies)."""
    return name.startswith(".") or name in SKIPPED_FOLDERS


def citations_in(text: str, own_github: tuple[str, str] | None) -> list[Found]:
    """The citations of a document `check` reads (near-misses included): GitHub URLs only into the
    repository's own origin."""
    return scan(text, lambda repo: _same_repo(repo, own_github))


def parsed_citations_in(text: str, own_github: tuple[str, str] | None) -> list[Found]:
    """The well-formed citations of a document, for a reader of many documents (`impact`, the site):
    a text without a citation's hint is not scanned at all."""
    if not CITATION_HINT.search(text):
        return []
    return [f for f in citations_in(text, own_github) if f.citation is not None]


def read_document(path: Path) -> str:
    data = path.read_bytes()
    if b"\0" in data[:8000]:
        raise UsageError(f"{path}: looks binary (NUL bytes), not a document to check")
    try:
        # newline="" semantics: keep every byte, so --fix rewrites nothing but citations.
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not valid UTF-8 (byte {exc.start})", hint="save the document as UTF-8") from exc


def check_paths(
    paths: list[Path] | list[str],
    repo: GitRepo,
    against: str = "HEAD",
    *,
    resolver: Resolver | None = None,
    fix: bool = False,
    site_url: str | None = None,
    accept_moved: bool = False,
    recovery_log: Path | None = None,
    on_record: RecordSink | None = None,
) -> CheckReport:
    """Check every citation in the documents at `paths` against commit `against`.

    `fix` rewrites exact relocations; with `accept_moved` also exact quote moves found by
    recovery. `recovery_log` appends every recovery attempt to a JSON-lines audit file.
    With `on_record`, each record goes to it as soon as its file is checked and the report
    keeps only counts: memory stays flat however many citations there are.
    """
    resolver = resolver or Resolver(repo)
    documents = [(file, read_document(file)) for file in document_files([Path(p) for p in paths])]
    return _check_documents(
        documents, resolver, against, fix, site_url, accept_moved, recovery_log, on_record=on_record
    )


def check_text(
    text: str,
    repo: GitRepo,
    against: str = "HEAD",
    *,
    resolver: Resolver | None = None,
    recoverer: Recoverer | None = None,
    name: str = "<text>",
) -> CheckReport:
    """Check every citation in `text` (a draft in Markdown or plain text), as `check_paths` checks a file."""
    resolver = resolver or Resolver(repo)
    return _check_documents([(Path(name), text)], resolver, against, False, None, False, None, recoverer)


def check_committed(documents: list[tuple[str, str]], resolver: Resolver, against: str) -> CheckReport:
    """Check the citations of documents given as (path, text), as committed, the way `check_paths`
    checks files: each record names its document by that path. A text without a citation's hint is
    not scanned at all (the site checks every document of the tree this way, once per build)."""
    scannable = [(Path(path), text) for path, text in documents if CITATION_HINT.search(text)]
    return _check_documents(scannable, resolver, against, False, None, False, None)


def _check_documents(
    documents: list[tuple[Path, str]],
    resolver: Resolver,
    against: str,
    fix: bool,
    site_url: str | None,
    accept_moved: bool,
    recovery_log: Path | None,
    recoverer: Recoverer | None = None,
    *,
    on_record: RecordSink | None = None,
) -> CheckReport:
    repo = resolver.repo
    target = resolver.commit(against)
    recoverer = recoverer or Recoverer.with_providers(
        resolver, deep_search_budget=DEEP_SEARCH_BUDGET, failed_quote_searches=FAILED_QUOTE_DEEP_SEARCHES
    )
    report = CheckReport(target, keep_records=on_record is None)
    own_github = github_repo(repo.origin_url())
    scanned: list[tuple[Path, str, list[Found]]] = []
    for file, text in documents:
        scanned.append((file, text, citations_in(text, own_github)))
    prefetch_hunks(resolver, (f.citation for _, _, fs in scanned for f in fs if f.citation), target)
    for file, text, found in scanned:
        report.files.append(str(file))
        records = [_check_one(str(file), f, resolver, target, recoverer) for f in found]
        if fix:
            fixed = _fix_file(file, text, records, resolver, site_url, accept_moved)
            if fixed is None:
                report.changed_meanwhile.append(str(file))
                fixed = []
            records = [_mark_applied(r, accept_moved) if r in fixed else r for r in records]
            report.fixed += [_mark_applied(r, accept_moved) for r in fixed]
        if recovery_log is not None:
            write_attempts(recovery_log, [r.recovery for r in records if r.recovery is not None])
        for record in records:
            report.add(record)
            if on_record is not None:
                on_record(record)
    report.reachability = reachability(repo, sorted(report.cited_commits))
    return report


def _mark_applied(record: CheckRecord, accept_moved: bool) -> CheckRecord:
    if record.recovery is None:
        return record
    by = AppliedBy.ACCEPT_MOVED if record.recovery.moved and accept_moved else AppliedBy.FIX
    return replace(record, recovery=record.recovery.mark_applied(by))


def _same_repo(found: tuple[str, str] | None, own: tuple[str, str] | None) -> bool:
    return (
        found is not None
        and own is not None
        and found[0].lower() == own[0].lower()
        and (found[1].lower().removesuffix(".git") == own[1].lower().removesuffix(".git"))
    )


def _check_one(file: str, found: Found, resolver: Resolver, target: str, recoverer: Recoverer) -> CheckRecord:
    if found.citation is None:
        return CheckRecord(file, found.line, found, None, None)
    try:
        verdict = verify(found.citation, resolver.repo, target, resolver=resolver)
    except CitationSyntaxError as exc:  # reported as this citation's problem; the document's others are checked
        return CheckRecord(file, found.line, replace(found, citation=None, error=exc.message), None, None)
    quote_verdict = None
    try:
        if found.quote:
            quote_verdict = check_quote(found.quote, verdict.resolved, resolver, verdict.reason)
        quote_status = quote_verdict.status if quote_verdict else None
        recovery = recoverer.attempt(verdict, found.quote, quote_status)
    except RepositoryError as exc:
        # git cannot read what the quote check or the recovery needs (a damaged or partial clone):
        # this citation cannot be vouched for, and says why; the others are still checked.
        unreadable = replace(verdict, status=VerdictStatus.UNRESOLVABLE, reason=exc.message, hint=exc.hint)
        return CheckRecord(file, found.line, found, unreadable, None)
    suggestion = None
    if found.quote and verdict.status == VerdictStatus.DRIFTED and recovery is not None and recovery.search is not None:
        # Recovery ran the same `exact_places` search at the target: reuse it, do not repeat it.
        suggestion = recovery.search.places[0] if recovery.search.places else None
    return CheckRecord(file, found.line, found, verdict, quote_verdict, suggestion, recovery)


def _fix_file(
    file: Path,
    text: str,
    records: list[CheckRecord],
    resolver: Resolver,
    site_url: str | None,
    accept_moved: bool = False,
) -> list[CheckRecord] | None:
    """Point each verified citation at the target commit; every other byte stays as it was.

    With `accept_moved`, a citation whose quote recovery found at exactly one other place
    is pointed there too. Fuzzy suggestions are never applied. A symlinked document is
    left alone: rewriting it would replace the link, or write wherever the link points.
    A document that no longer holds `text` when it is replaced (an edit saved while the
    check ran) is left alone too, and None returned: rewriting it would lose that edit.
    """
    if file.is_symlink():
        return []
    edits: list[tuple[int, int, str, CheckRecord]] = []
    for record in records:
        new_citation = _fix_target(record, accept_moved)
        if new_citation is None:
            continue
        new = _rewrite(record.found, new_citation, resolver, site_url)
        if new is not None and new != record.found.raw:
            edits.append((record.found.start, record.found.end, new, record))
    if not edits:
        return []
    pieces: list[str] = []
    last = 0
    for start, end, new, _record in sorted(edits, key=lambda e: e[0]):
        pieces += [text[last:start], new]
        last = end
    pieces.append(text[last:])
    if not atomic_write_if_unchanged(file, "".join(pieces).encode("utf-8"), text.encode("utf-8")):
        return None
    return [e[3] for e in edits]


def _fix_target(record: CheckRecord, accept_moved: bool) -> Citation | None:
    """The citation `check --fix` writes for this record, or None to leave it alone."""
    verdict, quote = record.verdict, record.quote_verdict
    if record.status == CheckStatus.VERIFIED and verdict is not None and verdict.relocated is not None:
        if _narrows(verdict.citation, verdict.relocated):
            return None
        return verdict.relocated if quote is None or quote.status == QuoteStatus.MATCHED else None
    recovery = record.recovery
    if accept_moved and recovery is not None and recovery.moved and recovery.applicable(accept_moved=True):
        return recovery.new_citation
    return None


def _narrows(old: Citation, new: Citation) -> bool:
    """Whether `new` names fewer lines than `old` (a relocation keeps a range's length)."""
    if old.lines is None or new.lines is None:
        return False
    return new.lines[1] - new.lines[0] < old.lines[1] - old.lines[0]


def _rewrite(found: Found, relocated: Citation, resolver: Resolver, site_url: str | None) -> str | None:
    plain = Citation(
        relocated.commit,
        relocated.path,
        relocated.lines,
        relocated.chars,
        relocated.linecol,
        identity_token=relocated.identity_token,
    )
    if found.kind == CitationForm.TEXT:
        return plain.text_form()
    if found.kind == CitationForm.PERMALINK:
        base = found.site_base or site_url
        return permalink(plain, base, relocated.blob or "") if base and relocated.blob else None
    lines = plain.lines
    return github_url(plain, resolver.repo.origin_url(), lines) if lines else None
