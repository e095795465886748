"""Verify a citation against a later commit: drift is whatever git's diff reports.

`verify(citation, repo, against="HEAD")` resolves the citation at its pinned commit,
follows the path to the target commit step by step along the indexed history
(`citations.lineage`; git's rename detection from the pinned commit to the target when the
index does not hold them), takes git's zero-context diff of the two texts and relocates the
cited lines through its hunks (`relocate_lines`). A drifted verdict names the commit that first
changed or removed the cited lines (`changed_by`), found by carrying them through each step.

Verdicts (docs/design.md#verdicts): `verified` (no hunk touches the span; the relocated span holds identical
text), `drifted` (a hunk overlaps, or the file is gone), `unresolvable` (the citation cannot be
checked, with the reason).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from indexer.citations.lineage import Lineage, prefetch_renames, relocate_lines, touching_hunks
from indexer.citations.resolve import Resolved, Resolver, span_citation
from indexer.citations.verdicts import ChangeKind, FollowedBy, VerdictStatus
from indexer.errors import PinciteError, RepositoryError
from indexer.extract import registry as extract_mod
from indexer.index.documents import VersionText
from indexer.text.citation import Citation
from indexer.text.model import Span, lines_label
from indexer.vcs.repo import CommitInfo, GitRepo, Hunk, safe_repo_path

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs startup time
    from indexer.shapes import CommitJson, VerdictJson


@dataclass(frozen=True)
class Verdict:
    """A citation's verdict against a target commit, with what a reader needs to act on it.

    `status` is verified, drifted or unresolvable (`VerdictStatus`), `reason` says why in words.
    `citation` is the resolved (canonical) citation when it resolved, else the one given;
    `relocated` is where a verified span stands at the target, `hunks` git's hunks that touch a
    drifted one, `nearest` what its lines hold there now, `changed_by` the first commit after the
    pinned one that changed, moved or removed it. `resolved` is the text at the pinned commit.
    """

    citation: Citation
    status: VerdictStatus
    reason: str
    _: KW_ONLY
    target_commit: str | None
    new_path: str | None = None
    relocated: Citation | None = None
    hunks: tuple[Hunk, ...] = ()
    nearest: str | None = None
    hint: str | None = None
    resolved: Resolved | None = None
    changed_by: CommitInfo | None = None  # the first commit after the pinned one that changed, moved or removed it
    followed_by: FollowedBy = FollowedBy.INDEX  # step by step along the index, or by one rename detection

    def to_json(self) -> VerdictJson:
        return {
            "citation": self.citation.text_form(),
            "status": self.status,
            "reason": self.reason,
            "hint": self.hint,
            "target_commit": self.target_commit,
            "new_path": self.new_path,
            "relocated": self.relocated.text_form() if self.relocated else None,
            "hunks": [h.to_json() for h in self.hunks],
            "nearest": self.nearest,
            "changed_by": _commit_json(self.changed_by),
            "followed_by": self.followed_by,
        }

    @property
    def note(self) -> str | None:
        """What a reader should know about how the verdict was reached, if anything."""
        if self.followed_by == FollowedBy.GIT and self.status != VerdictStatus.UNRESOLVABLE:
            return (
                "the pinned commit or the target is outside the indexed history (or there is no index): "
                "the path was followed by git's rename detection between the two commits directly"
            )
        return None


def _commit_json(commit: CommitInfo | None) -> CommitJson | None:
    if commit is None:
        return None
    return {"commit": commit.sha, "subject": commit.subject, "time": commit.time}


def verify(citation: Citation, repo: GitRepo, against: str = "HEAD", *, resolver: Resolver | None = None) -> Verdict:
    """The verdict of `citation` at commit `against`: verified, drifted or unresolvable, with the reason.

    A citation that cannot be checked is an unresolvable verdict, never an exception; only an
    unknown `against` raises (there is nothing to check against).
    """
    resolver = resolver or Resolver(repo)
    target = resolver.commit(against)
    try:
        resolved = resolver.resolve(citation)
    except PinciteError as exc:
        return Verdict(citation, VerdictStatus.UNRESOLVABLE, exc.message, target_commit=target, hint=exc.hint)
    try:
        return _verify_resolved(resolved, target, resolver)
    except PinciteError as exc:
        return Verdict(
            resolved.citation,
            VerdictStatus.UNRESOLVABLE,
            exc.message,
            target_commit=target,
            hint=exc.hint,
            resolved=resolved,
        )


def _verify_resolved(resolved: Resolved, target: str, resolver: Resolver) -> Verdict:
    cited = resolved.citation
    lineage = resolver.lineage(resolved.commit, resolved.path, target)
    followed_by = FollowedBy.INDEX
    if lineage is None:
        followed_by = FollowedBy.GIT
        change = resolver.path_change(resolved.commit, target, resolved.path)
        gone = change.status == ChangeKind.DELETED or change.new_path is None
        lineage = Lineage(None if gone else change.new_path, change.new_blob, ())
    verdict = partial(Verdict, cited, target_commit=target, resolved=resolved, followed_by=followed_by)
    if lineage.path is None:
        walked = _walked(resolved, lineage, followed_by, target, resolver)
        deletion = walked.steps[-1].commit if walked is not None and walked.path is None and walked.steps else None
        reason = f"{resolved.path} was deleted {_named(deletion, resolved, target)}"
        # The promise is the first commit that touched the cited lines: an edit before the deletion, if any.
        declared_at = _declared_at(followed_by, target)
        changer = _first_change(resolved, walked, resolver, declared_at) if walked is not None else None
        if changer is not None and deletion is not None and changer.sha != deletion.sha:
            reason += f"; the cited lines were first changed {_named(changer, resolved, target)}"
        return verdict(VerdictStatus.DRIFTED, reason, changed_by=changer or deletion)
    new_path = lineage.path
    new_blob = lineage.blob or resolver.entry(target, new_path).sha
    new_version = _text_as_cited(resolver, resolved, new_blob, new_path, target)
    old_version = resolved.document
    hunks = [] if new_version.text == old_version.text else resolver.hunks(old_version, new_version)
    first, last = resolved.lines
    status, new_first, new_last = relocate_lines(first, last, hunks)
    new_index = resolver.line_index(new_version)
    moved = _moved(resolved.path, lineage, new_path)
    if status == VerdictStatus.DRIFTED:
        nearest = None
        if new_last >= new_first:
            nearest = new_version.text[new_index.line_start(new_first) : new_index.line_end(new_last)]
        changer = _changer(resolved, lineage, followed_by, target, resolver)
        reason = f"{lines_label(first, last)} of {resolved.path} changed {_named(changer, resolved, target)}{moved}"
        return verdict(
            VerdictStatus.DRIFTED,
            reason,
            new_path=new_path,
            hunks=touching_hunks(first, last, hunks),
            nearest=nearest,
            changed_by=changer,
        )
    if new_first > new_index.line_of(len(new_version.text)):
        # An empty span after the final line end, and the target no longer ends with one.
        changer = _changer(resolved, lineage, followed_by, target, resolver)
        reason = f"the end of {resolved.path} the span stands at changed {_named(changer, resolved, target)}{moved}"
        return verdict(VerdictStatus.DRIFTED, reason, new_path=new_path, hunks=tuple(hunks), changed_by=changer)
    line_shift = new_index.line_start(new_first) - resolved.line_index.line_start(first)
    new_span = Span(resolved.span.start + line_shift, resolved.span.end + line_shift)
    if new_version.text[new_span.start : new_span.end] != resolved.text:
        # git said no hunk touches these lines; if the text still differs, do not vouch for it.
        reason = f"the relocated span of {resolved.path} does not hold the cited text at {target[:12]}"
        return verdict(VerdictStatus.DRIFTED, reason, new_path=new_path)
    relocated = span_citation(
        target,
        new_path,
        new_span,
        new_index,
        cited.unit,
        quote=cited.quote,
        lines=(new_first, new_last),
        identity_token=cited.identity_token,
    )
    relocated = replace(relocated, blob=new_version.blob)
    if new_first != first:
        reason = f"unchanged; moved from line {first} to line {new_first}{moved}"
    else:
        reason = f"unchanged{moved}"
    rename = lineage.renamed_by
    return verdict(
        VerdictStatus.VERIFIED,
        reason,
        new_path=new_path,
        relocated=relocated,
        changed_by=rename.commit if rename else None,
    )


def _moved(old_path: str, lineage: Lineage, new_path: str) -> str:
    if new_path == old_path:
        return ""
    rename = lineage.renamed_by
    by = f", renamed by {rename.commit.sha[:12]}" if rename else ""
    return f" (now {new_path}{by})"


def _named(commit: CommitInfo | None, resolved: Resolved, target: str) -> str:
    """ "by" the commit, its short SHA and subject; when no walk could name it, the two ends it lies
    between — never the target as if it were the commit (a later commit may have left the lines alone)."""
    if commit is None:
        return f"between {resolved.commit[:12]} and {target[:12]} (the commit that did it is not known)"
    named = f"{commit.sha[:12]} ({commit.subject})" if commit.subject else commit.sha[:12]
    return f"by {named}"


def _walked(
    resolved: Resolved, lineage: Lineage, followed_by: FollowedBy, target: str, resolver: Resolver
) -> Lineage | None:
    """The walk whose steps name the commits: the index's, or, where the path was followed by git's
    rename detection alone, the same walk along git's first-parent line (None when the pinned
    commit is not on the target's line: then no commit is named)."""
    if followed_by == FollowedBy.INDEX:
        return lineage
    return resolver.git_lineage(resolved.commit, resolved.path, target)


def _changer(
    resolved: Resolved, lineage: Lineage, followed_by: FollowedBy, target: str, resolver: Resolver
) -> CommitInfo | None:
    """The first commit after the pinned one that touched the cited lines, when a walk can say."""
    walked = _walked(resolved, lineage, followed_by, target, resolver)
    return _first_change(resolved, walked, resolver, _declared_at(followed_by, target)) if walked is not None else None


def _declared_at(followed_by: FollowedBy, target: str) -> str | None:
    return target if followed_by == FollowedBy.GIT else None


def _first_change(
    resolved: Resolved, lineage: Lineage, resolver: Resolver, declared_at: str | None = None
) -> CommitInfo | None:
    """The first step whose own diff touched the cited lines (or removed the document), if the walk has steps.

    A step's blob the index recorded no encoding for is read as `.gitattributes` at `declared_at`
    declare (the target, for a walk along git's line: as a build reads every version in its
    commit's declarations)."""
    first, last = resolved.lines
    for step in lineage.steps:
        if step.kind == ChangeKind.DELETED or step.new_blob is None or step.new_path is None:
            return step.commit
        if step.new_blob == step.old_blob:
            continue
        if resolver.diffs_as_committed(resolved, step.old_blob) and resolver.diffs_as_committed(
            resolved, step.new_blob
        ):
            hunks = resolver.blob_hunks(step.old_blob, step.new_blob)  # no need to read the two texts
        else:
            old = _text_as_cited(resolver, resolved, step.old_blob, step.old_path, declared_at)
            new = _text_as_cited(resolver, resolved, step.new_blob, step.new_path, declared_at)
            hunks = resolver.hunks(old, new)
        status, first, last = relocate_lines(first, last, hunks)
        if status == VerdictStatus.DRIFTED:
            return step.commit
    return None


def _text_as_cited(resolver: Resolver, resolved: Resolved, blob: str, path: str, commit: str | None) -> VersionText:
    """A later version's text in the offset space of the citation: the same extractor identity.

    Two identities' texts differ where the extractors differ, so a diff between them is not
    git's diff of the source; without the later version's text under the cited identity the
    verdict is unresolvable, naming both (docs/design.md#d13).
    """
    if resolved.citation.identity_token is None:
        return resolver.text(blob, path, commit)
    return resolver.text_under(blob, path, resolved.identity, commit)


# -- prefetching: many citations' diffs in a few git processes --------------------------
PREFETCH_BATCH = 5000  # blob pairs per `git diff` process
_Pinned = tuple[Citation, str, str]  # (citation, its full commit, its safe path)


def prefetch_hunks(resolver: Resolver, citations: Iterable[Citation], target: str) -> None:
    """Diff every (cited blob, blob at the target) pair of the text documents cited, in a few git processes.

    Only an optimisation for many citations (`check`): whatever it does not cover, `verify`
    diffs blob by blob (`Resolver.hunks`), and both give git's diff of the same two blobs with the
    same options. Where each cited path leads is read from the indexed history, its renames
    detected for all citations at once (`lineage.prefetch_renames`); paths the index cannot
    follow are diffed by one whole diff of their two commits.
    """
    try:
        _prefetch_hunks(resolver, _pinned(resolver, citations), target)
    except RepositoryError:
        # A commit or object git cannot read (a damaged or partial clone): `verify` meets the same
        # failure citation by citation and calls just those citations unresolvable, saying why.
        return


def _prefetch_hunks(resolver: Resolver, cited: list[_Pinned], target: str) -> None:
    intervals = resolver.path_intervals()
    if intervals is not None:
        prefetch_renames(intervals, resolver.repo, ((commit, path, target) for _c, commit, path in cited))
    else:
        # Without an index no encoding is recorded: each text is read as `.gitattributes` declare it
        # at its commit (and the target). Asked for all cited paths at once, not two processes per path.
        by_commit: dict[str, set[str]] = {}
        for _c, commit, path in cited:
            by_commit.setdefault(commit, set()).add(path)
            by_commit.setdefault(target, set()).add(path)
        for commit, paths in by_commit.items():
            resolver.read_declarations(commit, paths)
    followed, outside = _followed(resolver, cited, target)
    # Where a walk left the indexed documents, the text at the target is read as declared there.
    resolver.read_declarations(
        target,
        (lin.path for _c, lin in followed if lin.path and not resolver.recorded_identities(lin.blob or "")),
    )
    _diff_pairs(resolver, ((resolver.entry(c.commit, c.path).sha, lin.blob or "") for c, lin in followed))
    # The drifted ones name the commit that changed them: diff their steps now, in one go too.
    _diff_pairs(
        resolver,
        (
            (step.old_blob, step.new_blob)
            for citation, lin in followed
            if _drifts(resolver, citation, lin)
            for step in lin.steps
            if step.new_blob is not None
        ),
    )
    for commit, paths in outside.items():
        changed = _diff_by_commit(resolver, commit, paths, target)
        _walk_along_git(resolver, [c for c in cited if c[1] == commit and c[2] in changed], target)


def _pinned(resolver: Resolver, citations: Iterable[Citation]) -> list[_Pinned]:
    """The citations whose commit and path are valid (the others are unresolvable: `verify` says why)."""
    cited: list[_Pinned] = []
    for citation in citations:
        try:
            cited.append((citation, resolver.commit(citation.commit), safe_repo_path(citation.path)))
        except PinciteError:
            continue
    return cited


def _followed(
    resolver: Resolver, cited: list[_Pinned], target: str
) -> tuple[list[tuple[Citation, Lineage]], dict[str, set[str]]]:
    """The text citations the index follows to a text at the target, and, by pinned commit, the
    paths it cannot follow."""
    followed: list[tuple[Citation, Lineage]] = []
    outside: dict[str, set[str]] = {}
    for citation, commit, path in cited:
        try:
            lineage = resolver.lineage(commit, path, target)
        except PinciteError:
            continue
        if lineage is None:
            outside.setdefault(commit, set()).add(path)
        elif lineage.blob and lineage.path and _text_class(path) and _text_class(lineage.path):
            followed.append((replace(citation, commit=commit, path=path), lineage))
    return followed, outside


def _diff_pairs(resolver: Resolver, pairs: Iterable[tuple[str, str]]) -> None:
    """git's hunks of many (old blob, new blob) text pairs, a few processes in all."""
    ordered = sorted({pair for pair in pairs if pair not in resolver.memo.hunks})
    for start in range(0, len(ordered), PREFETCH_BATCH):
        batch = ordered[start : start + PREFETCH_BATCH]
        # A pair the batch leaves out (binary for git) is diffed on its own by `hunks` later.
        resolver.memo.hunks.put_many(resolver.repo.diff_blob_pairs(batch).items())


def _drifts(resolver: Resolver, citation: Citation, lineage: Lineage) -> bool:
    """Whether the prefetched diff of the cited blob and its blob at the target touches the cited lines."""
    try:
        resolved = resolver.resolve(citation)
    except PinciteError:
        return False
    hunks = resolver.memo.hunks.peek((resolved.blob, lineage.blob or "")) or []
    return relocate_lines(*resolved.lines, hunks)[0] == VerdictStatus.DRIFTED


def _diff_by_commit(resolver: Resolver, commit: str, paths: set[str], target: str) -> set[str]:
    """Without the index: one diff of the two commits for all the text documents cited at `commit`.
    Returns the cited paths the two commits differ on (modified, renamed or deleted)."""
    changes = resolver.repo.changes_between(commit, target)
    wanted: set[str] = set()
    for path in paths:
        change = changes.get(path)
        if change is None or change.new_path is None or change.status not in (ChangeKind.MODIFIED, ChangeKind.RENAMED):
            continue
        if _text_class(path) and _text_class(change.new_path):
            wanted |= {path, change.new_path}
    if len(wanted) > 2:  # for one file, `hunks` costs the same single process
        resolver.memo.hunks.put_many(resolver.repo.diff_commit_paths(commit, target, sorted(wanted)).items())
    return {path for path in paths if path in changes}


def _walk_along_git(resolver: Resolver, cited: list[_Pinned], target: str) -> None:
    """Without the index: the walks along git's first-parent line that name the commit of each
    drifted citation (`_walked`), every path in one git log and their steps diffed in one go."""
    if not cited:
        return
    line = resolver.git_line(cited[0][1], target)
    if line is None:
        return
    line.read_untracked(resolver.repo, {path for _c, _commit, path in cited})
    prefetch_renames(line, resolver.repo, ((commit, path, target) for _c, commit, path in cited))
    walked = [
        (replace(c, commit=commit, path=path), resolver.git_lineage(commit, path, target)) for c, commit, path in cited
    ]
    _diff_pairs(
        resolver,
        (
            (step.old_blob, step.new_blob)
            for citation, lin in walked
            if lin is not None and (lin.path is None or _drifts(resolver, citation, lin))
            for step in lin.steps
            if step.new_blob is not None and _text_class(step.old_path) and _text_class(step.new_path or "")
        ),
    )


def _text_class(path: str) -> bool:
    return extract_mod.extractor_for(path).source_class == "text"


# The relocation rule is defined with the walk (citations.lineage); this module is where callers find it.
__all__ = ["Verdict", "prefetch_hunks", "relocate_lines", "touching_hunks", "verify"]
