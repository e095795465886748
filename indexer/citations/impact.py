"""`pincite impact`: the citations a change breaks, before it lands (docs/design.md#d19).

A change is the commits `head` reaches that `base` does not, measured from their merge base (git's
three-dot range, as a pull request shows it: a base branch that moved on is not the change's doing).
Its impact is every citation whose verdict, or quote verdict, differs between the two ends.

Which citations: those of the documents as committed at `head` (the same files `check` reads in a
folder: Markdown, reST, AsciiDoc and text outside hidden and build folders), never the working tree.
The same citation is judged at both ends, so a difference is the sources' doing; a citation whose
document the change edited is compared with the quote the document held at the base, so a quote
the change rewrote is judged too. A citation pinned to a commit inside the change is judged from
its own commit (where it holds by definition), not from a base that does not have it.

The work is bounded by the change, not by all citations: one `git diff` of the two ends names the
paths the change touches; a citation whose cited path (followed along the indexed history to the
base) is not among them keeps its verdict and is neither resolved nor diffed. The others are
verified at both ends by `drift.verify`, whose walk names the commit that changed the cited lines.

What a difference is called (`ImpactRecord.kind`):
- `drifted` — verified at the base, drifted at the head (the lines were edited or the file deleted);
- `unresolvable` — checkable at the base, not at the head;
- `quote` — the verdict held, the quote verdict fell (it matched at the base and does not now);
- `moved` — verified at both ends, but the cited lines now stand in another file (a rename): the
  citation still holds — `verify` says verified — yet its reader's source moved;
- `mended` — better at the head than at the base (a drifted citation the change put right).
The first three break a citation: `impact` fails on them (and on `moved` with `strict`).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from dataclasses import dataclass, field

from indexer.citations.check import parsed_citations_in, skipped_folder
from indexer.citations.drift import Verdict, verify
from indexer.citations.lineage import Step, prefetch_renames
from indexer.citations.quote import check_quote
from indexer.citations.resolve import Resolver
from indexer.citations.scan import Found
from indexer.citations.verdicts import ChangeKind, ImpactKind, QuoteStatus, VerdictStatus
from indexer.errors import PinciteError, ShallowHistoryError, UsageError
from indexer.shapes import ImpactEndJson, ImpactJson, ImpactRecordJson
from indexer.text.citation import Citation, github_repo
from indexer.text.kinds import is_prose_path
from indexer.vcs.repo import MODE_FILE, CommitInfo, GitRepo, Hunk, safe_repo_path

BREAKING_KINDS = (ImpactKind.DRIFTED, ImpactKind.UNRESOLVABLE, ImpactKind.QUOTE)
NO_INDEX_NOTE = (
    "the index does not hold both ends of the change: paths were followed by git's rename detection "
    "and the commit that changed a citation by git's first-parent log; it goes unnamed where the pinned "
    "commit is not on that line (build the index at --head first)"
)
_STATUS_RANK = {VerdictStatus.VERIFIED: 0, VerdictStatus.DRIFTED: 1, VerdictStatus.UNRESOLVABLE: 2}


@dataclass(frozen=True)
class End:
    """A citation's verdict at one end of the change."""

    commit: str
    status: VerdictStatus
    quote_status: QuoteStatus | None
    path: str | None  # where the cited lines stand at this commit (None: deleted)
    reason: str
    lines: tuple[int, int] | None = None  # the cited lines there, when the verdict relocated them

    def to_json(self) -> ImpactEndJson:
        return {
            "commit": self.commit,
            "verdict": self.status,
            "quote_verdict": self.quote_status,
            "path": self.path,
            "lines": list(self.lines) if self.lines else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ImpactRecord:
    """One citation the change affects: where it is written, what it cites, and both ends' verdicts."""

    file: str
    line: int
    raw: str
    citation: Citation
    cited_lines: tuple[int, int] | None
    base: End
    head: End
    kind: ImpactKind
    changed_by: CommitInfo | None  # the commit of the change that changed, moved or removed the cited lines
    hunks: tuple[Hunk, ...] = ()  # git's hunks that touch the cited lines (cited version → head)

    @property
    def breaks(self) -> bool:
        return self.kind in BREAKING_KINDS

    @property
    def place(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def source_path(self) -> str:
        """The file the change edited: the cited path at the head, or at the base when the change removed it."""
        return self.head.path or self.base.path or self.citation.path

    def source_lines(self) -> tuple[int, int] | None:
        """The lines of `source_path` at the head that the change edited here (None: the file is gone)."""
        if self.kind == ImpactKind.MOVED:
            return self.head.lines
        if self.head.path is None or not self.hunks:
            return None
        starts = [h.new_start for h in self.hunks]
        ends = [h.new_start + max(h.new_count, 1) - 1 for h in self.hunks]
        return max(1, min(starts)), max(1, max(ends))

    def to_json(self) -> ImpactRecordJson:
        commit = self.changed_by
        return {
            "file": self.file,
            "line": self.line,
            "citation": self.raw,
            "parsed": self.citation.text_form(),
            "cited_path": self.citation.path,
            "cited_lines": list(self.cited_lines) if self.cited_lines else None,
            "kind": self.kind,
            "breaks": self.breaks,
            "base": self.base.to_json(),
            "head": self.head.to_json(),
            "changed_by": {"commit": commit.sha, "subject": commit.subject, "time": commit.time} if commit else None,
            "source_path": self.source_path,
            "source_lines": list(lines) if (lines := self.source_lines()) else None,
            "hunks": [{"header": h.header, "lines": list(h.lines)} for h in self.hunks],
        }


@dataclass
class ImpactReport:
    """What a change does to the citations of the repository's documents."""

    base: str  # the commit --base names
    start: str  # the merge base of base and head: where the change starts
    head: str
    commits: int  # commits in start..head
    touched: list[str] = field(default_factory=list)  # paths the change added, modified, renamed or removed
    files: list[str] = field(default_factory=list)  # documents whose citations were read (at head)
    skipped: list[str] = field(default_factory=list)  # documents not read, with why
    records: list[ImpactRecord] = field(default_factory=list)
    citations: int = 0
    reverified: int = 0  # citations judged at both ends; the others' cited paths the change did not touch
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        tally = Counter(r.kind for r in self.records)
        return {kind: tally[kind] for kind in (*BREAKING_KINDS, ImpactKind.MOVED, ImpactKind.MENDED)}

    def summary(self) -> dict[str, int]:
        return {
            "commits": self.commits,
            "touched_paths": len(self.touched),
            "files": len(self.files),
            "citations": self.citations,
            "reverified": self.reverified,
            "breaks": sum(r.breaks for r in self.records),
            **self.counts(),
        }

    def failed(self, strict: bool = False) -> bool:
        """Whether the change breaks a citation (with `strict`, also whether it moves one)."""
        return any(r.breaks or (strict and r.kind == ImpactKind.MOVED) for r in self.records)

    def to_json(self) -> ImpactJson:
        return {
            "base": self.base,
            "merge_base": self.start,
            "head": self.head,
            "summary": self.summary(),
            "records": [r.to_json() for r in self.records],
            "touched": self.touched,
            "files": self.files,
            "skipped": self.skipped,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class _Cited:
    """A citation found at the head, with the quote its document held at the base (if it held it)."""

    file: str
    found: Found
    citation: Citation
    base_quote: str | None


def impact(
    repo: GitRepo,
    base: str,
    head: str = "HEAD",
    paths: list[str] | tuple[str, ...] = (),
    *,
    resolver: Resolver | None = None,
) -> ImpactReport:
    """The citations of the documents at `paths` (default: the whole tree at `head`) the change breaks."""
    resolver = resolver or Resolver(repo)
    base_sha, head_sha = resolver.commit(base), resolver.commit(head)
    start = repo.merge_base(base_sha, head_sha)
    if start is None and repo.is_shallow():
        raise ShallowHistoryError(f"{base} and {head} meet below the shallow clone's history")
    if start is None:
        raise UsageError(
            f"{base} and {head} share no history", hint="compare a branch with the branch it was made from"
        )
    report = ImpactReport(base_sha, start, head_sha, repo.count_commits(start, head_sha))
    changes = repo.touched_paths(start, head_sha) if start != head_sha else []
    renamed_from = {new: old for status, old, new in changes if status == "R"}
    report.touched = sorted({old for _s, old, _n in changes} | {new for _s, _o, new in changes})
    cited = _citations_at_head(resolver, report, [safe_repo_path(p) for p in paths], renamed_from)
    report.citations = len(cited)
    pinned = _pinned_commits(resolver, cited)
    references = _reference_commits(resolver, pinned, start, head_sha)
    history = resolver.path_intervals()
    if history is None or not (history.holds(head_sha) and history.holds(start)):
        report.notes.append(NO_INDEX_NOTE)
    if history is not None:  # every walk from a pinned commit to the base, in a few git processes
        walks = {(pinned[c.citation.commit], c.citation.path, references[c.citation.commit]) for c in cited}
        prefetch_renames(history, repo, sorted(w for w in walks if w[0] and w[0] != w[2]))
    touched = set(report.touched)
    for one in cited:
        reference = references[one.citation.commit]
        path_then = _path_at(resolver, one.citation, reference)
        if path_then not in touched and one.base_quote == one.found.quote:
            continue  # the change left the cited path (and the quote) alone: the verdict stands
        report.reverified += 1
        record = _compare(resolver, one, reference, head_sha)
        if record is not None:
            report.records.append(record)
    return report


def _citations_at_head(
    resolver: Resolver,
    report: ImpactReport,
    paths: list[str],
    renamed_from: dict[str, str],
) -> list[_Cited]:
    """Every citation in the documents at the head, each with its document's quote at the base."""
    repo = resolver.repo
    own_github = github_repo(repo.origin_url())
    touched = set(report.touched)
    cited: list[_Cited] = []
    documents, report.skipped = committed_documents(repo, report.head, paths)
    for entry_path, text in documents:
        found = parsed_citations_in(text, own_github)
        report.files.append(entry_path)
        edited = entry_path in touched
        old_path = renamed_from.get(entry_path, entry_path)
        base_quotes = _quotes_at(resolver, report.start, old_path, own_github) if edited else {}
        seen: Counter[str] = Counter()
        for f in found:
            assert f.citation is not None
            occurrence = seen[f.raw]
            seen[f.raw] += 1
            earlier = base_quotes.get(f.raw)
            base_quote = earlier[occurrence] if earlier and occurrence < len(earlier) else f.quote
            cited.append(_Cited(entry_path, f, f.citation, base_quote))
    return cited


def _slashes(path: str) -> list[int]:
    """Where `path`'s folders end: `a/b/c` → [1, 3] (`a`, `a/b`)."""
    return [at for at, char in enumerate(path) if char == "/"]


def committed_documents(repo: GitRepo, commit: str, paths: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """(path, text) of the documents at `commit`: named files, and the prose files under named folders
    (no PATH: the whole tree), as `check` walks a folder; and the documents not read, with why."""
    wanted = [p for p in paths if p not in (".", "")]
    entries = repo.tree_entries(commit, tuple(wanted), literal=True)
    named = set(wanted)
    # What a name may match: an entry's path, or a folder above one (looked up, not scanned, per name).
    present = {e.path for e in entries} | {e.path[:at] for e in entries for at in _slashes(e.path)}
    for path in wanted:
        if path not in present:
            raise UsageError(
                f"{path}: not in the tree of {commit[:12]}",
                hint="name documents or folders as committed at --head (paths from the repository's root)",
            )
    chosen = [e for e in entries if e.mode in MODE_FILE and (e.path in named or _walked(e.path, wanted))]
    documents: list[tuple[str, str]] = []
    skipped: list[str] = []
    for entry, (_sha, _size, data) in zip(chosen, repo.iter_blobs([e.sha for e in chosen]), strict=True):
        text = _decoded(data or b"")
        if text is None:
            skipped.append(f"{entry.path}: not UTF-8 text")
        else:
            documents.append((entry.path, text))
    return documents, skipped


def checked_in_tree(path: str) -> bool:
    """Whether a walk of the whole tree (`committed_documents` without paths) reads `path`."""
    return _walked(path, [])


def _walked(path: str, folders: list[str]) -> bool:
    """Whether a folder walk (as `check` does one) reads `path`: a prose file outside skipped folders."""
    if not is_prose_path(path):
        return False
    folder = posixpath.dirname(path)
    below = next((f for f in folders if folder == f or folder.startswith(f + "/")), "") if folders else ""
    inner = folder[len(below) :].strip("/")
    return not any(skipped_folder(part) for part in inner.split("/") if part)


def _decoded(data: bytes) -> str | None:
    if b"\0" in data[:8000]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _quotes_at(
    resolver: Resolver, commit: str, path: str, own_github: tuple[str, str] | None
) -> dict[str, list[str | None]]:
    """Raw citation text -> the quotes it carried, in order, in the document at `commit` (empty if absent)."""
    entry = resolver.repo.blob_at(commit, path)
    text = _decoded(resolver.repo.read_blob(entry.sha)) if entry is not None and entry.mode in MODE_FILE else None
    quotes: dict[str, list[str | None]] = {}
    for f in parsed_citations_in(text or "", own_github):
        quotes.setdefault(f.raw, []).append(f.quote)
    return quotes


def _pinned_commits(resolver: Resolver, cited: list[_Cited]) -> dict[str, str]:
    """The full SHA of each pinned commit as written ("" for one that does not resolve)."""
    full: dict[str, str] = {}
    for one in cited:
        if one.citation.commit not in full:
            try:
                full[one.citation.commit] = resolver.commit(one.citation.commit)
            except PinciteError:
                full[one.citation.commit] = ""
    return full


def _reference_commits(resolver: Resolver, pinned: dict[str, str], start: str, head: str) -> dict[str, str]:
    """Per pinned commit as written, the commit its base verdict is taken at.

    The change's start when the pinned commit is in its history; the pinned commit itself when it
    lies inside the change (a citation made on the branch holds where it was made); the start
    otherwise, as `verify` would judge it. A commit that does not resolve maps to the start: its
    verdict is unresolvable at both ends.
    """
    known = sorted({sha for sha in pinned.values() if sha})
    before = resolver.repo.ancestors_among(known, start)
    inside = resolver.repo.ancestors_among(sorted(set(known) - before), head)
    return {written: sha if sha in inside else start for written, sha in pinned.items()}


def _path_at(resolver: Resolver, citation: Citation, commit: str) -> str | None:
    """The path the cited document has at `commit` (the last one it had, if it was deleted); None: unknown."""
    try:
        pinned = resolver.commit(citation.commit)
        path = safe_repo_path(citation.path)
    except PinciteError:
        return None
    if pinned == commit:
        return path
    try:
        lineage = resolver.lineage(pinned, path, commit)
        if lineage is None:
            change = resolver.path_change(pinned, commit, path)
            return change.new_path or path
    except PinciteError:
        return None
    if lineage.path is not None:
        return lineage.path
    return lineage.steps[-1].old_path if lineage.steps else path


def _compare(resolver: Resolver, one: _Cited, reference: str, head: str) -> ImpactRecord | None:
    repo = resolver.repo
    before = verify(one.citation, repo, reference, resolver=resolver)
    after = verify(one.citation, repo, head, resolver=resolver)
    base_end = _end(resolver, before, one.base_quote, reference)
    head_end = _end(resolver, after, one.found.quote, head)
    kind = _kind(base_end, head_end)
    if kind is None:
        return None
    resolved = after.resolved or before.resolved
    changed_by = (
        after.changed_by if kind != ImpactKind.MOVED else _rename_in_change(resolver, one.citation, reference, head)
    )
    return ImpactRecord(
        file=one.file,
        line=one.found.line,
        raw=one.found.raw,
        citation=resolved.citation if resolved else one.citation,
        cited_lines=resolved.lines if resolved else one.citation.lines,
        base=base_end,
        head=head_end,
        kind=kind,
        changed_by=changed_by if kind not in (ImpactKind.QUOTE, ImpactKind.MENDED) else None,
        hunks=after.hunks if kind == ImpactKind.DRIFTED else (),
    )


def _end(resolver: Resolver, verdict: Verdict, quote: str | None, commit: str) -> End:
    quote_status = None
    if quote:
        quote_status = check_quote(quote, verdict.resolved, resolver, verdict.reason).status
    # Where the cited lines stand at this end: None when the document is gone or cannot be followed.
    path = verdict.new_path if verdict.status != VerdictStatus.UNRESOLVABLE else None
    relocated = verdict.relocated.lines if verdict.relocated is not None else None
    return End(commit, verdict.status, quote_status, path, verdict.reason, relocated)


def _kind(base: End, head: End) -> ImpactKind | None:
    """What the change did to the citation, or None when both ends agree."""
    status = _STATUS_RANK[head.status] - _STATUS_RANK[base.status]
    quote = _quote_rank(head.quote_status) - _quote_rank(base.quote_status)
    if status > 0:
        return ImpactKind.UNRESOLVABLE if head.status == VerdictStatus.UNRESOLVABLE else ImpactKind.DRIFTED
    if quote > 0:
        return ImpactKind.QUOTE
    if status < 0 or quote < 0:
        return ImpactKind.MENDED
    if base.status == head.status == VerdictStatus.VERIFIED and base.path != head.path:
        return ImpactKind.MOVED
    return None


def _quote_rank(status: str | None) -> int:
    return 0 if status in (None, QuoteStatus.MATCHED) else 1


def _rename_in_change(resolver: Resolver, citation: Citation, reference: str, head: str) -> CommitInfo | None:
    """The commit of the change that renamed the cited document (the walk's first rename after the base)."""
    try:
        pinned = resolver.commit(citation.commit)
        path = safe_repo_path(citation.path)
        to_head = resolver.lineage(pinned, path, head)
        to_base = resolver.lineage(pinned, path, reference) if pinned != reference else None
    except PinciteError:
        return None
    if to_head is None:
        return None
    earlier = len(to_base.steps) if to_base is not None else 0
    later: tuple[Step, ...] = to_head.steps[earlier:]
    return next((s.commit for s in later if s.kind == ChangeKind.RENAMED), None)
