"""Reachability of cited commits, and pin refs that keep them alive.

A citation pinned to a commit that no branch or tag reaches (after a force-push or a
squash merge) breaks the day git collects garbage. `reachability` says, per commit,
"reachable" (from a branch or tag), "pinned" (only a `refs/pincite/pins/<sha>` ref keeps
it) or "unreachable" (gc may delete it); `pin_commits` creates the pin refs.
"""

from __future__ import annotations

from indexer.vcs.repo import GitRepo

PIN_PREFIX = "refs/pincite/pins/"
REACHABLE, PINNED, UNREACHABLE = "reachable", "pinned", "unreachable"


def pin_ref(sha: str) -> str:
    return PIN_PREFIX + sha


def reachability(repo: GitRepo, commits: list[str]) -> dict[str, str]:
    """The state of each (full-SHA) commit; two git processes whatever their number."""
    unreachable = repo.unreachable_from_refs(commits)
    pinned = pinned_commits(repo) if unreachable else set()
    return {sha: REACHABLE if sha not in unreachable else PINNED if sha in pinned else UNREACHABLE for sha in commits}


def pinned_commits(repo: GitRepo) -> set[str]:
    out = repo.run_text("for-each-ref", "--format=%(objectname)", PIN_PREFIX)
    return set(out.split())


def pin_commits(repo: GitRepo, commits: list[str]) -> list[str]:
    """Create `refs/pincite/pins/<sha>` for each commit not pinned yet; return the refs created."""
    already = pinned_commits(repo)
    created = []
    for sha in sorted(set(commits) - already):
        repo.update_ref(pin_ref(sha), sha)
        created.append(pin_ref(sha))
    return created
