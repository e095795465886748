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

from dataclasses import KW_ONLY, dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from indexer.citations.lineage import DELETED, DRIFTED, VERIFIED, Lineage, relocate_lines, touching_hunks
from indexer.citations.resolve import Resolved, Resolver, span_citation
from indexer.errors import PinciteError
from indexer.index.documents import VersionText
from indexer.text.citation import Citation
from indexer.text.model import Span
from indexer.vcs.repo import CommitInfo, GitRepo, Hunk

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs startup time
    from indexer.shapes import CommitJson, VerdictJson

UNRESOLVABLE = "unresolvable"


@dataclass(frozen=True)
class Verdict:
    citation: Citation
    status: str
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
    followed_by: str = "index"  # how the path was followed: "index" (step by step) or "git" (one rename detection)

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
        if self.followed_by == "git" and self.status != UNRESOLVABLE:
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
    """The verdict of `citation` at commit `against` (an unknown `against` raises)."""
    resolver = resolver or Resolver(repo)
    target = resolver.commit(against)
    try:
        resolved = resolver.resolve(citation)
    except PinciteError as exc:
        return Verdict(citation, UNRESOLVABLE, exc.message, target_commit=target, hint=exc.hint)
    try:
        return _verify_resolved(resolved, target, resolver)
    except PinciteError as exc:
        return Verdict(
            resolved.citation, UNRESOLVABLE, exc.message, target_commit=target, hint=exc.hint, resolved=resolved
        )


def _verify_resolved(resolved: Resolved, target: str, resolver: Resolver) -> Verdict:
    cited = resolved.citation
    lineage = resolver.lineage(resolved.commit, resolved.path, target)
    followed_by = "index"
    if lineage is None:
        followed_by = "git"
        change = resolver.path_change(resolved.commit, target, resolved.path)
        gone = change.status == "deleted" or change.new_path is None
        lineage = Lineage(None if gone else change.new_path, change.new_blob, ())
    verdict = partial(Verdict, cited, target_commit=target, resolved=resolved, followed_by=followed_by)
    if lineage.path is None:
        deletion = lineage.steps[-1].commit if lineage.steps else None
        reason = f"{resolved.path} was deleted by {_named(deletion, target)}"
        return verdict(DRIFTED, reason, changed_by=deletion)
    new_path = lineage.path
    new_blob = lineage.blob or resolver.entry(target, new_path).sha
    new_version = _text_as_cited(resolver, resolved, new_blob, new_path, target)
    old_version = resolved.document
    hunks = [] if new_version.text == old_version.text else resolver.hunks(old_version, new_version)
    first, last = resolved.lines
    status, new_first, new_last = relocate_lines(first, last, hunks)
    new_index = resolver.line_index(new_version)
    moved = _moved(resolved.path, lineage, new_path)
    if status == DRIFTED:
        nearest = None
        if new_last >= new_first:
            nearest = new_version.text[new_index.line_start(new_first) : new_index.line_end(new_last)]
        changer = _first_change(resolved, lineage, resolver)
        reason = f"lines {first}-{last} of {resolved.path} changed by {_named(changer, target)}{moved}"
        return verdict(
            DRIFTED,
            reason,
            new_path=new_path,
            hunks=touching_hunks(first, last, hunks),
            nearest=nearest,
            changed_by=changer,
        )
    if new_first > new_index.line_of(len(new_version.text)):
        # An empty span after the final line end, and the target no longer ends with one.
        changer = _first_change(resolved, lineage, resolver)
        reason = f"the end of {resolved.path} the span stands at changed by {_named(changer, target)}{moved}"
        return verdict(DRIFTED, reason, new_path=new_path, hunks=tuple(hunks), changed_by=changer)
    line_shift = new_index.line_start(new_first) - resolved.line_index.line_start(first)
    new_span = Span(resolved.span.start + line_shift, resolved.span.end + line_shift)
    if new_version.text[new_span.start : new_span.end] != resolved.text:
        # git said no hunk touches these lines; if the text still differs, do not vouch for it.
        reason = f"the relocated span of {resolved.path} does not hold the cited text at {target[:12]}"
        return verdict(DRIFTED, reason, new_path=new_path)
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
        VERIFIED, reason, new_path=new_path, relocated=relocated, changed_by=rename.commit if rename else None
    )


def _moved(old_path: str, lineage: Lineage, new_path: str) -> str:
    if new_path == old_path:
        return ""
    rename = lineage.renamed_by
    by = f", renamed by {rename.commit.sha[:12]}" if rename else ""
    return f" (now {new_path}{by})"


def _named(commit: CommitInfo | None, target: str) -> str:
    """A commit as a reason names it: its short SHA and subject (the target, when the walk could not say)."""
    if commit is None:
        return target[:12]
    return f"{commit.sha[:12]} ({commit.subject})" if commit.subject else commit.sha[:12]


def _first_change(resolved: Resolved, lineage: Lineage, resolver: Resolver) -> CommitInfo | None:
    """The first step whose own diff touched the cited lines (or removed the document), if the walk has steps."""
    first, last = resolved.lines
    for step in lineage.steps:
        if step.kind == DELETED or step.new_blob is None or step.new_path is None:
            return step.commit
        if step.new_blob == step.old_blob:
            continue
        if resolver.diffs_as_committed(resolved, step.old_blob) and resolver.diffs_as_committed(
            resolved, step.new_blob
        ):
            hunks = resolver.blob_hunks(step.old_blob, step.new_blob)  # no need to read the two texts
        else:
            old = _text_as_cited(resolver, resolved, step.old_blob, step.old_path, None)
            new = _text_as_cited(resolver, resolved, step.new_blob, step.new_path, None)
            hunks = resolver.hunks(old, new)
        status, first, last = relocate_lines(first, last, hunks)
        if status == DRIFTED:
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


# The verdict vocabulary and the relocation rule are defined with the walk (citations.lineage);
# this module is where callers find them.
__all__ = ["DRIFTED", "UNRESOLVABLE", "VERIFIED", "Verdict", "relocate_lines", "touching_hunks", "verify"]
