"""Per-path history: what became of each published version of a path at the site's HEAD.

A version page (`v/{blob}.html`) is immutable, so the drift banner cannot be baked into it:
after every build the page reads its path's entry in `history/{history_shard(path)}.json`,
which says for each blob the path ever had where that text went at the built commit: the
same blob, a zero-context diff to the HEAD version (git's own, of the indexed texts, as
`pincite verify` computes it), a rename (followed the way verify follows it), or a
deletion. The page then relocates the cited lines through those hunks in the browser.

Each path's entry also lists its `steps`: the commits where one version of the path gave way to
the next (modified, renamed, deleted), each with the hunk headers of git's diff between the two
consecutive versions. The page carries the cited lines through them, as `citations.lineage`
and `drift.verify` do, to name the commit that first changed them (`changed_by`).

Commits are named by SHA and by their place on the published first-parent line (0 the oldest):
the page looks up its permalink's commit in `commits/<its first two hex digits>.json` and
compares places, so no page reads the whole line (a megabyte at twenty thousand commits).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from indexer.citations.lineage import Lineage, PathIntervals, follow, prefetch_renames
from indexer.citations.verdicts import ChangeKind
from indexer.index.documents import diffs_committed_blob
from indexer.index.store import IndexReader, PathVersion, VersionMeta
from indexer.text.word_diff import hunk_marks
from indexer.vcs.repo import CommitInfo, GitRepo, Hunk

MAX_HUNK_LINES = 400
HISTORY_FORMAT = 5  # bump when an entry changes shape, so entries of earlier builds are written again


@dataclass(frozen=True)
class BannerInputs:
    """Everything a path's history file depends on; equal inputs mean an equal file."""

    path: str
    # (blob, identity, the commits it runs from and to, the commit that ended it): commits by
    # SHA, not by place on the line, so a site kept from another history (a rewritten branch,
    # another repository, a CI cache) is not taken for this one's. "" for an interval still open.
    intervals: tuple[tuple[str, str, str, str, str], ...]
    head_blob: str | None  # None: the path is gone from the built commit
    # For each gap in the path's history (a move or a deletion): where the versions before it
    # lead at the built commit (path, blob, identity), or why nowhere. Empty without gaps.
    lead: str = ""
    # The intervals' first and last commits' places on the published line, which the entry gives
    # beside their SHAs (a version page compares places, without the whole line).
    places: tuple[tuple[int, int], ...] = ()

    @property
    def at_head(self) -> bool:
        return self.head_blob is not None

    def key(self) -> str:
        parts = [f"{b}:{i}:{f}-{last}>{after}" for b, i, f, last, after in self.intervals]
        places = ",".join(f"{first}-{last}" for first, last in self.places)
        return f"{HISTORY_FORMAT}|{self.head_blob}|{int(self.at_head)}|{self.lead}|{places}|" + ",".join(parts)


class BannerDataBuilder:
    """Computes history files, caching text blobs and rename lookups across paths."""

    def __init__(self, repo: GitRepo, reader: IndexReader, commits: list[CommitInfo], meta: dict[int, VersionMeta]):
        self.repo = repo
        self.reader = reader
        self.commits = commits
        self.meta = meta
        self.head_seq = len(commits) - 1
        self._text_blobs: dict[int, str | None] = {}
        self._pair_hunks: dict[tuple[str, str], list[Hunk]] = {}
        self._lineage = PathIntervals(reader, commits, {c.sha: seq for seq, c in enumerate(commits)})
        self._walks: dict[tuple[str, int], Lineage | None] = {}  # (path, version's last seq) -> its walk
        self._unbroken: dict[str, int] = {}  # path -> see `_unbroken_from`

    def consecutive_pairs(self, path: str, pvs: list[PathVersion]) -> list[tuple[str, str]]:
        """The (text blob, text blob) pairs of a path's consecutive versions (renames not included)."""
        pairs = []
        for before, after in pairwise(pvs):
            old, new = self.text_blob(before.version_id), self.text_blob(after.version_id)
            if old is not None and new is not None and old != new and after.first_seq == before.last_seq + 1:
                pairs.append((old, new))
        return pairs

    def prefetch_entries(self, by_path: dict[str, list[PathVersion]]) -> None:
        """What the entries of these paths ask git, asked in a few processes: `build` then answers from memory.

        The renames at every interval end with no next interval, and the diffs of consecutive
        versions and of each version with the one it leads to at the built commit.
        """
        ends = [
            (self.commits[pv.last_seq].sha, self.commits[pv.last_seq + 1].sha)
            for pvs in by_path.values()
            for pv, following in self._successions(pvs)
            if following is None
        ]
        self.repo.prefetch_changes(ends)
        self.prefetch_leads(by_path)
        self.prefetch([pair for path, pvs in by_path.items() for pair in self._pairs(path, pvs)])

    def prefetch(self, pairs: list[tuple[str, str]]) -> None:
        """Diff many pairs of text blobs in a few git processes; `hunks` then answers from memory."""
        wanted = [p for p in pairs if p not in self._pair_hunks and p[0] != p[1]]
        if not wanted:
            return
        found = self.repo.diff_blob_pairs(wanted)
        for pair in wanted:
            self._pair_hunks[pair] = found[pair] if pair in found else self.repo.diff_blobs(*pair)

    def prefetch_leads(self, by_path: dict[str, list[PathVersion]]) -> None:
        """The rename detection that following the paths' gaps (moves, deletions) needs, batched."""
        head = self.commits[self.head_seq].sha
        walks = [(self.commits[pv.last_seq].sha, p, head) for p, pvs in by_path.items() for pv in self._gap_ends(pvs)]
        prefetch_renames(self._lineage, self.repo, walks)

    def _pairs(self, path: str, pvs: list[PathVersion]) -> list[tuple[str, str]]:
        """The text-blob pairs `build` diffs for a path: consecutive versions, and each version with its target."""
        pairs = self.consecutive_pairs(path, pvs)
        for pv in pvs:
            leads = self._leads_to(path, pvs, pv)
            if isinstance(leads, tuple):
                old, new = self.text_blob(pv.version_id), self.text_blob(leads[1].version_id)
                if old is not None and new is not None:
                    pairs.append((old, new))
        return pairs

    def hunks(self, old_blob: str, new_blob: str) -> list[Hunk]:
        """git's zero-context hunks between two text blobs (prefetched, or one git process)."""
        if (old_blob, new_blob) not in self._pair_hunks:
            self._pair_hunks[(old_blob, new_blob)] = self.repo.diff_blobs(old_blob, new_blob)
        return self._pair_hunks[(old_blob, new_blob)]

    def inputs(self, path: str, pvs: list[PathVersion]) -> BannerInputs:
        # The interval running to HEAD has no end yet: its end is not part of the key (or the file).
        open_ = self.head_seq
        intervals = tuple(
            (
                self.meta[pv.version_id].blob,
                self.meta[pv.version_id].identity,
                self.commits[pv.first_seq].sha,
                "" if pv.last_seq == open_ else self.commits[pv.last_seq].sha,
                "" if pv.last_seq == open_ else self.commits[pv.last_seq + 1].sha,
            )
            for pv in pvs
        )
        head = self._head(pvs)
        head_blob = self.meta[head.version_id].blob if head else None
        leads = ",".join(self._lead(path, pvs, pv) for pv in self._gap_ends(pvs))
        places = tuple((pv.first_seq, -1 if pv.last_seq == open_ else pv.last_seq) for pv in pvs)
        return BannerInputs(path, intervals, head_blob, leads, places)

    def _lead(self, path: str, pvs: list[PathVersion], gap_end: PathVersion) -> str:
        """Where the versions up to a gap in the path lead at the built commit, as a key (see BannerInputs.lead)."""
        leads = self._leads_to(path, pvs, gap_end)
        if isinstance(leads, dict):
            return f"{leads['status']}:{leads.get('reason', '')}"
        new_path, head_pv = leads
        meta = self.meta[head_pv.version_id]
        return f"{new_path}:{meta.blob}:{meta.identity}"

    def text_blob(self, version_id: int) -> str | None:
        """The blob git diffs for a version: its own blob for UTF-8 text, else its indexed text written as one.

        A text document in a declared encoding (Latin-1, Shift_JIS, ...) is diffed as its decoded
        text, so that the hunks' lines are text the page can show, in the same lines. Each
        version's answer is kept: the history files and the diff pages ask it for every pair.
        """
        if version_id not in self._text_blobs:
            self._text_blobs[version_id] = self._text_blob(self.meta[version_id])
        return self._text_blobs[version_id]

    def _text_blob(self, meta: VersionMeta) -> str | None:
        if meta.status != "ok":
            return None
        if diffs_committed_blob(meta.source_class, meta.identity):
            return meta.blob
        text = self.reader.version_text(meta.id)
        return self.repo.hash_object(text.encode("utf-8"))

    def build(self, path: str, pvs: list[PathVersion]) -> dict[str, object]:
        versions: dict[str, dict[str, Any]] = {}
        latest: dict[str, PathVersion] = {}
        for pv in pvs:
            blob = self.meta[pv.version_id].blob
            version = versions.setdefault(blob, {"ranges": [], "target": None})
            # [first commit, last commit, their places on the published line]; the last null while open.
            last_seq = None if pv.last_seq == self.head_seq else pv.last_seq
            last = None if last_seq is None else self.commits[last_seq].sha
            version["ranges"].append([self.commits[pv.first_seq].sha, last, pv.first_seq, last_seq])
            latest[blob] = pv
        # A blob the path held more than once is followed from its latest interval only.
        for blob, pv in latest.items():
            versions[blob]["target"] = self._target(path, pvs, pv)
        entry: dict[str, object] = {"path": path, "versions": versions, "steps": self.steps(path, pvs)}
        lines = _shared_lines(versions)
        if lines:  # most entries of a HEAD-only build have none: no empty list in each
            entry["lines"] = lines
        return entry

    def steps(self, path: str, pvs: list[PathVersion]) -> list[dict[str, object]]:
        """Where each interval of the path ends before the built commit: what the next commit did.

        As `citations.lineage.follow` walks it: the next interval starting at the next commit is a
        modification; else git's rename detection between that commit and its parent names a
        rename, or it is a deletion. `hunks` are the headers of git's diff between the two
        versions' texts, null when either text was not indexed (a rename out of the roots).
        """
        steps: list[dict[str, object]] = []
        for pv, following in self._successions(pvs):
            seq = pv.last_seq + 1
            commit = self.commits[seq]
            step: dict[str, object] = {"commit": commit.sha, "seq": seq, "subject": commit.subject, "time": commit.time}
            if following is None:
                change = self.repo.changes_between(self.commits[seq - 1].sha, commit.sha).get(path)
                new_path = change.new_path if change is not None and change.status == ChangeKind.RENAMED else None
                if new_path is None:
                    steps.append({**step, "kind": ChangeKind.DELETED})
                    continue
                step.update(kind=ChangeKind.RENAMED, path=new_path)
                moved = self.reader.version_of(new_path, seq)
                if moved is None:  # moved out of what the index holds (out of the roots): no text to diff
                    steps.append({**step, "hunks": None})
                    continue
                following = moved
            else:
                step["kind"] = ChangeKind.MODIFIED
            old, new = self.text_blob(pv.version_id), self.text_blob(following.version_id)
            hunks = None if old is None or new is None else self.hunks(old, new)
            step["hunks"] = None if hunks is None else [_header_json(h) for h in hunks]
            steps.append(step)
        return steps

    def _successions(self, pvs: list[PathVersion]) -> Iterator[tuple[PathVersion, PathVersion | None]]:
        """Each interval that ends before the built commit, with the path's interval starting at the
        next commit (None: the path was renamed or deleted there)."""
        for n, pv in enumerate(pvs):
            if pv.last_seq >= self.head_seq:
                return
            following = pvs[n + 1] if n + 1 < len(pvs) and pvs[n + 1].first_seq == pv.last_seq + 1 else None
            yield pv, following

    def _head(self, pvs: list[PathVersion]) -> PathVersion | None:
        return next((pv for pv in pvs if pv.last_seq == self.head_seq), None)

    def _gap_ends(self, pvs: list[PathVersion]) -> list[PathVersion]:
        """The versions after which the path holds no version at the next commit (moved or deleted there)."""
        return [pv for pv, following in self._successions(pvs) if following is None]

    def _unbroken_from(self, pvs: list[PathVersion]) -> int:
        """The first commit from which the path holds a version at every commit to the built one
        (past the built commit when the path is gone from it); once per path, asked per version."""
        path = pvs[0].path
        if path not in self._unbroken:
            start = self.head_seq + 1
            for pv in reversed(pvs):
                if pv.last_seq + 1 != start:
                    break
                start = pv.first_seq
            self._unbroken[path] = start
        return self._unbroken[path]

    def _leads_to(
        self, path: str, pvs: list[PathVersion], pv: PathVersion
    ) -> tuple[str, PathVersion] | dict[str, object]:
        """The path and version `pv` leads to at the built commit, or the status saying it leads nowhere.

        A version the path kept changing into the one at HEAD leads there; one before a gap is
        followed, since a path moved away and made again later leads where the move took it.
        """
        if pv.first_seq >= self._unbroken_from(pvs):
            return path, pvs[-1]
        # Followed step by step as `pincite verify` follows it (citations.lineage): one whole-tree
        # diff from this version to HEAD would miss a rename once the file changed by half since,
        # and costs a git process per version of every path gone from HEAD, on every build.
        if (path, pv.last_seq) not in self._walks:  # asked for the inputs' key, the prefetch and the entry
            self._walks[(path, pv.last_seq)] = follow(
                self._lineage, self.repo, self.commits[pv.last_seq].sha, path, self.commits[self.head_seq].sha
            )
        lineage = self._walks[(path, pv.last_seq)]
        if lineage is None:  # a rename led to a version the index skipped: no text to follow
            return {"status": "unavailable", "reason": "a rename on the way leads to a version that was not indexed"}
        if lineage.path is None:
            return {"status": ChangeKind.DELETED}
        moved = self.reader.version_of(lineage.path, self.head_seq)
        if moved is None:
            where = f"the document moved to {lineage.path}, which" if lineage.path != path else lineage.path
            return {"status": "unavailable", "reason": f"{where} is not indexed at the built commit"}
        return lineage.path, moved

    def _target(self, path: str, pvs: list[PathVersion], pv: PathVersion) -> dict[str, object]:
        leads = self._leads_to(path, pvs, pv)
        if not isinstance(leads, tuple):
            return leads
        new_path, head_pv = leads
        old_blob, new_blob = self.text_blob(pv.version_id), self.text_blob(head_pv.version_id)
        head_meta = self.meta[head_pv.version_id]
        if old_blob is None or new_blob is None:
            return {"status": "unavailable", "reason": "this version's text was not indexed"}
        if self.meta[pv.version_id].identity != head_meta.identity:
            return {
                "status": "unavailable",
                "reason": f"extracted by {self.meta[pv.version_id].identity}, the built commit by "
                f"{head_meta.identity}: different offset spaces",
            }
        hunks = self.hunks(old_blob, new_blob)
        renamed = ChangeKind.RENAMED if new_path != path else ChangeKind.MODIFIED
        status = "same" if not hunks and new_path == path else renamed
        return {"status": status, "path": new_path, "blob": head_meta.blob, "hunks": [_hunk_json(h) for h in hunks]}


def _shared_lines(versions: dict[str, dict[str, Any]]) -> list[str]:
    """The lines of the versions' hunks to the built commit, each written once; a hunk names its
    lines by their place in this list. Every version of a path diffs to the same text, and
    neighbouring versions share most of theirs: rust-lang/rfcs' most edited RFC, 167 versions, was
    a 6.5 MB history entry with its lines written out per hunk (history-files.js `withLines` undoes it)."""
    table: dict[str, int] = {}
    for version in versions.values():
        for hunk in (version["target"] or {}).get("hunks") or ():
            hunk[4] = [table.setdefault(line, len(table)) for line in hunk[4]]
    return list(table)


def _header_json(hunk: Hunk) -> list[int]:
    return [hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count]


def _hunk_json(hunk: Hunk) -> list[object]:
    lines = list(hunk.lines[:MAX_HUNK_LINES])
    if len(hunk.lines) > MAX_HUNK_LINES:
        lines.append(f"\\ {len(hunk.lines) - MAX_HUNK_LINES} more lines not shown")
    marks = [list(m) for m in hunk_marks(hunk.lines) if m[0] < MAX_HUNK_LINES]
    # The changed words of its lines ([line index, start, end] in code points, the sign counted),
    # after the lines, so that a reader of the shape before (drift.js) reads the first five alike.
    return [hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count, lines, *([marks] if marks else [])]
