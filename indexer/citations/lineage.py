"""Where a cited path leads: followed commit by commit along the indexed first-parent history.

docs/design.md#d4: the verdict is git's diff of the cited blob and the blob the cited path leads
to at the target. *Which* blob is read here from the index's path-version intervals, one step
at a time: while the path keeps an interval the path is unchanged; where an interval ends, the
next commit either modified the path (a new interval starts), renamed it (git's rename detection
between that commit and its first parent, so a page renamed once and edited many times since is
still found), or deleted it. One whole-tree diff from the cited commit to the target would lose a
rename as soon as the file has changed by half since, and costs a diff per cited commit.

A path the index does not track (renamed out of the roots, say) is followed the same way through
its runs in git's first-parent log, so a document moved out of the roots and back is still found.
Without an index (or outside its history) the same walk runs along git's own first-parent line
from the pinned commit to the target (`PathIntervals.along_git`), every path read from git's log.

The same walk gives the steps a reader wants named: the commit that first changed, moved or
removed the cited text.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from indexer.citations.memo import Memo
from indexer.citations.verdicts import ChangeKind, VerdictStatus
from indexer.errors import RepositoryError
from indexer.index.store import IndexReader, PathVersion
from indexer.vcs.repo import CommitInfo, GitRepo, Hunk, PathChange

MAX_PATHSPECS = 64  # paths asked of git's log one by one; more are asked by their folders
UNTRACKED = -1  # the version id of a run read from git's log: the index holds no version of it

Intervals = list[tuple[PathVersion, str]]  # (interval, its blob), oldest first


@dataclass(frozen=True)
class Step:
    """One commit on the way that changed what the cited path holds."""

    kind: ChangeKind  # MODIFIED, RENAMED, DELETED or READDED
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
        return next((s for s in self.steps if s.kind == ChangeKind.RENAMED), None)


@dataclass
class PathIntervals:
    """The index's first-parent line and the path-version intervals of the paths asked about.

    An interval is a run of consecutive commits during which a path kept one blob
    (docs/design.md#d3). Read once per run; paths the index does not track get their runs from git's log.
    """

    reader: IndexReader | None  # None: a line read from git alone, no path tracked by an index
    commits: list[CommitInfo]
    seq_of: dict[str, int]
    _intervals: Memo[str, Intervals] = field(default_factory=Memo)
    _untracked: dict[str, Intervals] = field(default_factory=dict)  # read from git's log

    @classmethod
    def read(cls, reader: IndexReader) -> PathIntervals:
        commits = reader.commits()
        return cls(reader, commits, {c.sha: seq for seq, c in enumerate(commits)})

    @classmethod
    def along_git(cls, repo: GitRepo, pinned: str, target: str) -> PathIntervals | None:
        """git's first-parent line from `pinned` to `target`, with no index; None when `pinned` is not on it."""
        try:
            commits = repo.first_parent_line(target, start=pinned)
        except RepositoryError:  # not on the line (a side branch merged in, or after the target)
            return None
        return cls(None, commits, {c.sha: seq for seq, c in enumerate(commits)})

    def holds(self, commit: str) -> bool:
        return commit in self.seq_of

    def intervals(self, path: str) -> Intervals:
        """The path's intervals in the index, oldest first, each with its blob (none without an index)."""
        reader = self.reader
        if reader is None:
            return []
        return self._intervals.get_or_compute(path, lambda: reader.interval_blobs(path))

    def untracked_intervals(self, path: str) -> Intervals | None:
        """The runs of a path the index does not track, as git's log gives them; None until read."""
        return self._untracked.get(path)

    def read_untracked(self, repo: GitRepo, paths: Iterable[str]) -> None:
        """Read the runs of paths the index does not track along the indexed line: one git log for all."""
        wanted = sorted(set(paths) - self._untracked.keys())
        if not wanted:
            return
        found: dict[str, Intervals] = {path: [] for path in wanted}
        for entry, first, last in repo.entry_runs(self.commits, _pathspecs(wanted), literal=True):
            if entry.path in found:  # not another file of their folders, nor one under a path that became a folder
                found[entry.path].append((PathVersion(entry.path, UNTRACKED, first, last), entry.sha))
        for path, runs in found.items():
            self._untracked[path] = sorted(runs, key=lambda run: run[0].first_seq)

    def blob_at(self, commit: str, path: str) -> str | None:
        """The blob `path` had at `commit` by the index, or None when the index does not say."""
        seq = self.seq_of.get(commit)
        found = _containing(self.intervals(path), seq) if seq is not None else None
        return found[1] if found else None


def _pathspecs(paths: list[str]) -> tuple[str, ...]:
    """What to ask git's log about for these paths: the paths themselves, or, when there are many,
    the fewest folders that hold them all (git matches every pathspec against every changed
    entry: 3,000 paths made one log of 250 commits take 17 s; their one folder, 0.1 s).
    "." (the whole repository) when one of them is at the top."""
    if len(paths) <= MAX_PATHSPECS:
        return tuple(paths)
    folders: list[str] = []
    for folder in sorted({posixpath.dirname(path) for path in paths}):
        if not folder:
            return (".",)
        if not folders or not folder.startswith(folders[-1] + "/"):
            folders.append(folder)
    return tuple(folders)


class _NotAskedYet(Exception):
    """A walk needs an answer git has not given yet (see `prefetch_renames`)."""


@dataclass
class _Git:
    """What a walk asks git: the renames between two consecutive commits, and the runs of paths
    the index does not track. With `known_only`, a question not answered yet is noted and stops
    the walk, so that `prefetch_renames` can ask them all at once."""

    history: PathIntervals
    repo: GitRepo
    known_only: bool = False
    missing_changes: set[tuple[str, str]] = field(default_factory=set)
    missing_paths: set[str] = field(default_factory=set)

    def changes(self, parent: str, commit: str) -> dict[str, PathChange]:
        if not self.known_only:
            return self.repo.changes_between(parent, commit)
        found = self.repo.cached_changes(parent, commit)
        if found is None:
            self.missing_changes.add((parent, commit))
            raise _NotAskedYet
        return found

    def intervals(self, path: str) -> Intervals:
        """The index's intervals of the path; for a path it does not track, its runs in git's log."""
        indexed = self.history.intervals(path)
        if indexed:
            return indexed
        runs = self.history.untracked_intervals(path)
        if runs is None:
            if self.known_only:
                self.missing_paths.add(path)
                raise _NotAskedYet
            self.history.read_untracked(self.repo, [path])
            runs = self.history.untracked_intervals(path) or []
        return runs


def follow(history: PathIntervals, repo: GitRepo, pinned: str, path: str, target: str) -> Lineage | None:
    """Follow `path` from commit `pinned` to commit `target`; None when the index cannot say.

    The index cannot say when either commit is outside its history, the target comes before
    the pinned commit, or the path (or a path a rename leads to) is one the index tracks but
    whose version there it did not index: the caller then asks git directly.
    """
    return _walk(history, _Git(history, repo), pinned, path, target)


def prefetch_renames(history: PathIntervals, repo: GitRepo, walks: Iterable[tuple[str, str, str]]) -> None:
    """Ask git at once what `follow` will ask it for these (pinned, path, target) walks.

    The walks run on what is known; every commit where one stops for want of rename detection
    is detected with the others in one git process (and every untracked path it reaches read in
    one git log), and the stopped walks go on: one round per link of the longest chain of
    renames, instead of a process per commit.
    """
    pending = list(dict.fromkeys(walks))
    while pending:
        git = _Git(history, repo, known_only=True)
        stopped = []
        for walk in pending:
            try:
                _walk(history, git, *walk)
            except _NotAskedYet:
                stopped.append(walk)
        repo.prefetch_changes(git.missing_changes)
        history.read_untracked(repo, git.missing_paths)
        pending = stopped


def _walk(history: PathIntervals, git: _Git, pinned: str, path: str, target: str) -> Lineage | None:
    start, end = history.seq_of.get(pinned), history.seq_of.get(target)
    if start is None or end is None or end < start:
        return None
    steps: list[Step] = []
    intervals = git.intervals(path)
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
            steps.append(Step(ChangeKind.MODIFIED, commit, path, path, blob, new_blob))
            blob = new_blob
            continue
        change = git.changes(history.commits[seq - 1].sha, commit.sha).get(path)
        if change is not None and change.status == ChangeKind.RENAMED and change.new_path is not None:
            new_intervals = git.intervals(change.new_path)
            moved = _containing(new_intervals, seq)
            if moved is None:
                return None  # renamed to a path the index tracks, but not this version of it
            interval, new_blob = moved
            steps.append(Step(ChangeKind.RENAMED, commit, path, change.new_path, blob, new_blob))
            path, blob, intervals = change.new_path, new_blob, new_intervals
            continue
        steps.append(Step(ChangeKind.DELETED, commit, path, None, blob, None))
        later = next(((iv, b) for iv, b in intervals if seq < iv.first_seq <= end), None)
        if later is None:
            return Lineage(None, None, tuple(steps))
        interval, new_blob = later
        steps.append(Step(ChangeKind.READDED, history.commits[interval.first_seq], path, path, blob, new_blob))
        blob = new_blob
    return Lineage(path, blob, tuple(steps))


def _containing(intervals: Intervals, seq: int) -> tuple[PathVersion, str] | None:
    return next(((iv, blob) for iv, blob in intervals if iv.first_seq <= seq <= iv.last_seq), None)


def relocate_lines(first: int, last: int, hunks: list[Hunk] | tuple[Hunk, ...]) -> tuple[VerdictStatus, int, int]:
    """Carry lines first..last (1-based, inclusive) of the old text through zero-context hunks.

    A hunk touches the span when it removes or replaces one of its lines, or inserts lines
    strictly between two of them (after line n with first <= n < last). Hunks wholly before
    the span shift it by (new_count - old_count). Returns (VERIFIED, new_first, new_last),
    or (DRIFTED, a, b) where a..b is the nearest range at the target (b < a when the
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
        return VerdictStatus.VERIFIED, first + shift, last + shift
    new_first = first + shift
    return VerdictStatus.DRIFTED, new_first, max(new_first - 1, last + shift + touched_delta)


def touching_hunks(first: int, last: int, hunks: list[Hunk]) -> tuple[Hunk, ...]:
    return tuple(h for h in hunks if relocate_lines(first, last, [h])[0] == VerdictStatus.DRIFTED)
