"""Which commit changed a citation's text: a step-by-step walk along the first-parent line.

`first_change(citation, target, resolver)` follows the cited span from its pinned commit
towards `target`, one commit that touches the cited path at a time (`git log
--first-parent -- PATH`). Each step is `drift.verify` of the span against the next such
commit, from the commit before it, so a rename is detected between two neighbouring
versions, never across the whole span of history. A step that verifies carries the span
on (relocated, and to the new path after a rename); the first step that does not is the
commit that changed the cited lines or removed the file, with the verdict's reason.

The walk is bounded (`MAX_STEPS` path-touching commits) and only runs when the pinned
commit is an ancestor of the target; otherwise it answers None, as it does when every
step verifies.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexer.citations.drift import VERIFIED, verify
from indexer.citations.resolve import Resolver
from indexer.text.citation import Citation

MAX_STEPS = 200


@dataclass(frozen=True)
class FirstChange:
    """The first commit after the pinned one at which the cited text no longer stands as it was."""

    commit: str
    subject: str
    status: str  # the step's verdict: "drifted" (lines changed, file deleted) or "unresolvable"
    reason: str
    path: str  # where the cited text stood just before this commit

    def to_json(self) -> dict[str, str]:
        return {
            "commit": self.commit,
            "subject": self.subject,
            "status": self.status,
            "reason": self.reason,
            "path": self.path,
        }


def first_change(citation: Citation, target: str, resolver: Resolver, max_steps: int = MAX_STEPS) -> FirstChange | None:
    """The first commit up to `target` that changed or removed the cited text (raises if it does not resolve)."""
    repo = resolver.repo
    current = resolver.resolve(citation).citation
    end = resolver.commit(target)
    if current.commit == end or not repo.is_ancestor(current.commit, end):
        return None
    steps = 0
    while True:
        renamed = False
        for commit in repo.commits_touching(current.commit, end, current.path):
            steps += 1
            if steps > max_steps:
                return None
            verdict = verify(current, repo, commit, resolver=resolver)
            if verdict.status != VERIFIED or verdict.relocated is None:
                subject = repo.commit_info(commit).subject
                return FirstChange(commit, subject, verdict.status, verdict.reason, current.path)
            renamed = verdict.relocated.path != current.path
            current = verdict.relocated
            if renamed:
                break  # list the commits that touch the new path from here on
        if not renamed:
            return None
