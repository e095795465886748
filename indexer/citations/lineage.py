"""Where a cited path leads: followed commit by commit along the indexed first-parent history.

DESIGN decision 4: the verdict is git's diff of the cited blob and the blob the cited path leads
to at the target. *Which* blob is read here from the index's path-version intervals, one step
at a time: while the path keeps an interval the path is unchanged; where an interval ends, the
next commit either modified the path (a new interval starts), renamed it (git's rename detection
between that commit and its first parent, so a page renamed once and edited many times since is
still found), or deleted it. One whole-tree diff from the cited commit to the target would lose a
rename as soon as the file has changed by half since, and costs a diff per cited commit.

The same walk gives the steps a reader wants named: the commit that first changed, moved or
removed the cited text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from indexer.index.store import IndexReader, PathVersion
from indexer.vcs.repo import CommitInfo, GitRepo, Hunk, PathChange

MODIFIED, RENAMED, DELETED, READDED = "modified", "renamed", "deleted", "re-added"
VERIFIED, DRIFTED = "verified", "drifted"


@dataclass(frozen=True)
class Step:
    """One commit on the way that changed what the cited path holds."""

    kind: str  # MODIFIED, RENAMED, DELETED or READDED
    commit: CommitInfo
    old_path: str
    new_path: str | None  # None when DELETED
    old_blob: str
    new_blob: str | None


@dataclass(frozen=True)
class Lineage:
    """What the cited (commit, path) became at the target: the path and blob there, and the steps."""

    path: str | None  # None: deleted on the way
    blob: str | None
    steps: tuple[Step, ...]

    @property
    def renamed_by(self) -> Step | None:
        """The first step that moved the document to another path."""
        return next((s for s in self.steps if s.kind == RENAMED), None)


@dataclass
class IndexedHistory:
    """The index's first-parent line and the intervals of the paths asked about, read once per run."""

    reader: IndexReader
    commits: list[CommitInfo]
    seq_of: dict[str, int]
    _intervals: dict[str, list[tuple[PathVersion, str]]] = field(default_factory=dict)

    @classmethod
    def read(cls, reader: IndexReader) -> IndexedHistory:
        commits = reader.commits()
        return cls(reader, commits, {c.sha: seq for seq, c in enumerate(commits)})

    def holds(self, commit: str) -> bool:
        return commit in self.seq_of

    def intervals(self, path: str) -> list[tuple[PathVersion, str]]:
        """The path's intervals, oldest first, each with its blob."""
        if path not in self._intervals:
            self._intervals[path] = self.reader.interval_blobs(path)
        return self._intervals[path]

    def blob_at(self, commit: str, path: str) -> str | None:
        """The blob `path` had at `commit` by the index, or None when the index does not say."""
        seq = self.seq_of.get(commit)
        found = _containing(self.intervals(path), seq) if seq is not None else None
        return found[1] if found else None


Changes = Callable[[str, str], dict[str, PathChange]]  # (parent, commit) -> git's changes, renames detected


class _NotDetectedYet(Exception):
    """A walk reached a commit whose renames were not detected yet (see `prefetch_renames`)."""


def follow(history: IndexedHistory, repo: GitRepo, pinned: str, path: str, target: str) -> Lineage | None:
    """Follow `path` from commit `pinned` to commit `target`; None when the index cannot say.

    The index cannot say when either commit is outside its history, the target comes before
    the pinned commit, the path was not indexed at the pinned commit, or a rename leads to a
    path the index does not track: the caller then asks git directly.
    """
    return _walk(history, repo.changes_between, pinned, path, target)


def prefetch_renames(history: IndexedHistory, repo: GitRepo, walks: Iterable[tuple[str, str, str]]) -> None:
    """Detect the renames that `follow` will ask git about for these (pinned, path, target) walks.

    The walks run on what is known; every commit where one stops for want of rename detection
    is detected with the others in one git process, and the stopped walks go on: one process
    per round, as many rounds as the longest chain of renames, instead of one per commit.
    """
    pending = list(dict.fromkeys(walks))
    while pending:
        missing: set[tuple[str, str]] = set()
        known = _detected_only(repo, missing)
        stopped = []
        for walk in pending:
            try:
                _walk(history, known, *walk)
            except _NotDetectedYet:
                stopped.append(walk)
        repo.prefetch_changes(missing)
        pending = stopped


def _detected_only(repo: GitRepo, missing: set[tuple[str, str]]) -> Changes:
    """Changes already detected; a pair not detected yet is added to `missing` and stops the walk."""

    def known(parent: str, commit: str) -> dict[str, PathChange]:
        found = repo.cached_changes(parent, commit)
        if found is None:
            missing.add((parent, commit))
            raise _NotDetectedYet
        return found

    return known


def _walk(history: IndexedHistory, changes: Changes, pinned: str, path: str, target: str) -> Lineage | None:
    start, end = history.seq_of.get(pinned), history.seq_of.get(target)
    if start is None or end is None or end < start:
        return None
    steps: list[Step] = []
    intervals = history.intervals(path)
    current = _containing(intervals, start)
    if current is None:
        return None
    interval, blob = current
    while interval.last_seq < end:
        seq = interval.last_seq + 1
        commit = history.commits[seq]
        following = _containing(intervals, seq)
        if following is not None:
            interval, new_blob = following
            steps.append(Step(MODIFIED, commit, path, path, blob, new_blob))
            blob = new_blob
            continue
        change = changes(history.commits[seq - 1].sha, commit.sha).get(path)
        if change is not None and change.status == "renamed" and change.new_path is not None:
            intervals = history.intervals(change.new_path)
            moved = _containing(intervals, seq)
            if moved is None:
                return None  # renamed to a path the index does not track (outside the roots, say)
            interval, new_blob = moved
            steps.append(Step(RENAMED, commit, path, change.new_path, blob, new_blob))
            path, blob = change.new_path, new_blob
            continue
        steps.append(Step(DELETED, commit, path, None, blob, None))
        later = next(((iv, b) for iv, b in intervals if seq < iv.first_seq <= end), None)
        if later is None:
            return Lineage(None, None, tuple(steps))
        interval, new_blob = later
        steps.append(Step(READDED, history.commits[interval.first_seq], path, path, blob, new_blob))
        blob = new_blob
    return Lineage(path, blob, tuple(steps))


def _containing(intervals: list[tuple[PathVersion, str]], seq: int) -> tuple[PathVersion, str] | None:
    return next(((iv, blob) for iv, blob in intervals if iv.first_seq <= seq <= iv.last_seq), None)


def relocate_lines(first: int, last: int, hunks: list[Hunk] | tuple[Hunk, ...]) -> tuple[str, int, int]:
    """Carry lines first..last (1-based, inclusive) of the old text through zero-context hunks.

    A hunk touches the span when it removes or replaces one of its lines, or inserts lines
    strictly between two of them (after line n with first <= n < last). Hunks wholly before
    the span shift it by (new_count - old_count). Returns ("verified", new_first, new_last),
    or ("drifted", a, b) where a..b is the nearest range at the target (b < a when the
    cited lines were all removed).
    """
    shift = 0
    touched_delta = 0
    touched = False
    for h in sorted(hunks, key=lambda h: (h.old_start, h.old_count)):
        if h.old_count == 0:
            before = h.old_start < first
            touches = first <= h.old_start < last
        else:
            old_last = h.old_start + h.old_count - 1
            before = old_last < first
            touches = h.old_start <= last and old_last >= first
        if before:
            shift += h.new_count - h.old_count
        elif touches:
            touched = True
            touched_delta += h.new_count - h.old_count
    if not touched:
        return VERIFIED, first + shift, last + shift
    new_first = first + shift
    return DRIFTED, new_first, max(new_first - 1, last + shift + touched_delta)


def touching_hunks(first: int, last: int, hunks: list[Hunk]) -> tuple[Hunk, ...]:
    return tuple(h for h in hunks if relocate_lines(first, last, [h])[0] == DRIFTED)
