"""The git boundary: every git call pincite makes goes through `GitRepo`.

git itself finds the repository (`git rev-parse`, its own discovery rules: a folder inside a
work tree, a `.git` folder, a bare repository). Every git process is started here, with
explicit options (`PINNED_CONFIG` plus per-command flags), so a user's git configuration
cannot change what pincite reads or which hunks a diff reports. Objects are read one by
one through one persistent, pinned `git cat-file --batch` per handle (`ObjectReader`); a
build streams its new blobs through a `cat-file --batch --buffer` of its own. `close()`
(or leaving a `with GitRepo(...)` block) ends them; a handle that is dropped unclosed ends
them when it is collected.

A read-only `GitRepo(path, read_only=True)` (the MCP server's) writes nothing into the
repository: the blobs `hash_object` makes so git can diff extracted text go to a scratch
object folder (written without sight of the repository's objects, so git never touches
their files), which every other command reads beside the repository's own objects (an
alternate); the methods that commit or move refs refuse.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import IO, TYPE_CHECKING, TypeVar

from indexer.errors import MISSING_BLOB_HINT, MissingBlob, RepositoryError, ShallowHistoryError, UnknownRevision
from indexer.machine import usable_cores

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs startup time
    from indexer.shapes import HunkOut

MODE_FILE = ("100644", "100755")
MODE_SYMLINK = "120000"
MODE_GITLINK = "160000"
MISSING_SIZE = -1  # the size `iter_blobs(skip_missing=True)` gives a blob the object store lacks

# Settings that would otherwise let a user's config change output we parse.
PINNED_CONFIG = (
    "core.quotepath=false",
    "diff.algorithm=myers",
    "diff.renames=true",
    "diff.renameLimit=1000",  # git's documented default: a user's lower limit turns renames into deletions
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.external=",
    "diff.indentHeuristic=true",
    "diff.interHunkContext=0",
    "diff.relative=false",
    "color.ui=false",
    "log.showRoot=true",
    "log.showSignature=false",
    "log.follow=false",  # `git log -- PATH` lists the commits that touch PATH itself
    "core.autocrlf=false",
    "core.bigFileThreshold=512m",  # the default: a lower one makes files binary to diff and rename detection
)
DIFF_FLAGS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    "--inter-hunk-context=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)
RENAME_THRESHOLD = "-M50%"
# Fewer items than these per extra git process and starting it costs more than it saves.
PAIRS_PER_PROCESS = 200
COMMITS_PER_PROCESS = 50
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class CommitInfo:
    """A commit of the first-parent line: its SHA, commit time and subject."""

    sha: str
    time: int
    subject: str


@dataclass(frozen=True)
class TreeEntry:
    """A file of a commit's tree: its path, mode and blob."""

    path: str
    mode: str
    sha: str


@dataclass(frozen=True)
class Hunk:
    """One hunk of a zero-context diff; counts of 0 mean a pure insertion/deletion."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[str, ...] = ()

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"

    def to_json(self) -> HunkOut:
        return {"header": self.header, "lines": list(self.lines)}


@dataclass(frozen=True)
class PathChange:
    """What happened to one path between two commits (by rename detection)."""

    status: str  # "unchanged", "modified", "renamed", "deleted"
    new_path: str | None
    old_blob: str | None
    new_blob: str | None


_ABBREVIATED_SHA = re.compile(r"[0-9a-fA-F]{4,39}")
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# How git says an object it needs is not in the store (a partial, shallow or damaged clone).
MISSING_OBJECT = re.compile(r"(?:unable to|could not) read|missing (?:blob|tree|object)|bad object", re.IGNORECASE)
_OBJECTS, _ALTERNATES = "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"


class ObjectReader:
    """One persistent `git cat-file --batch` with the pinned options: any object's bytes by id.

    Started on the first read, so a handle that reads no object starts no process. One
    request is answered at a time (a lock keeps threads apart). A forked child never
    touches its parent's pipes: it starts a process of its own on its first read.
    """

    def __init__(self, root: Path, env: dict[str, str] | None) -> None:
        self._root, self._env = root, env
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner = 0  # the pid that started `_proc`
        self._finalizer: weakref.finalize[[subprocess.Popen[bytes], int], ObjectReader] | None = None

    def read(self, sha: str) -> bytes:
        if not _OBJECT_ID.fullmatch(sha):
            raise RepositoryError(f"{sha!r} is not a full object id")
        with self._lock:
            proc = self._process()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(sha.encode("ascii") + b"\n")
                proc.stdin.flush()
                header = proc.stdout.readline().split()
                if len(header) != 3:
                    found = b" ".join(header).decode(errors="replace") or "no answer from git cat-file"
                    raise RepositoryError(f"cannot read object {sha}: {found}", hint="run `git fsck` on the repository")
                size = int(header[2])
                data = proc.stdout.read(size)
                proc.stdout.read(1)  # the newline after the content
            except OSError as exc:
                self._end()
                raise RepositoryError(f"cannot read object {sha}: git cat-file stopped ({exc})") from exc
            if len(data) != size:
                self._end()
                raise RepositoryError(f"cannot read object {sha}: git cat-file stopped after {len(data)} bytes")
            return data

    def close(self) -> None:
        with self._lock:
            self._end()

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._owner == os.getpid() and self._proc.poll() is None:
            return self._proc
        self._end()
        self._proc = subprocess.Popen(
            _git_command("cat-file", "--batch"),
            cwd=self._root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self._env,
        )
        self._owner = os.getpid()
        # Ends the process when the reader is collected unclosed, or at exit.
        self._finalizer = weakref.finalize(self, _end_process, self._proc, self._owner)
        return self._proc

    def _end(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # runs once
        self._proc, self._finalizer = None, None


def _end_process(proc: subprocess.Popen[bytes], owner: int) -> None:
    """Close git's input (it exits at end of input), wait briefly, then kill.

    A forked child only closes its copies of the pipes, so that git still sees the end of
    its input when the parent closes it; the process is the parent's to end.
    """
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    if owner != os.getpid():
        return
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class GitRepo:
    """A git repository as pincite reads it: commits, trees, blobs and diffs, every git call pinned.

    Use it as a context manager (or call `close()`) so its persistent git process ends
    with its owner.
    """

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        location = Path(path)
        if not location.exists():
            raise RepositoryError(f"{location}: no such directory", hint="pass --repo PATH to a git repository")
        self.root, self.bare = _find_repository(location)
        self._rename_cache: dict[tuple[str, str], dict[str, PathChange]] = {}
        self.read_only = read_only
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._env: dict[str, str] | None = None  # for every git command: reads see the scratch objects too
        self._write_env: dict[str, str] | None = None  # for writing blobs: the scratch folder alone
        if read_only:
            objects = (self.root / self.run_text("rev-parse", "--git-path", "objects").strip()).resolve()
            # Removed when this handle is collected, or at exit.
            self._scratch = tempfile.TemporaryDirectory(prefix="pincite-objects-")
            alternates = os.pathsep.join(p for p in (str(objects), os.environ.get(_ALTERNATES, "")) if p)
            self._env = {**os.environ, _OBJECTS: self._scratch.name, _ALTERNATES: alternates}
            # Writing an object the repository already has would "freshen" (touch) its pack or file.
            self._write_env = {k: v for k, v in self._env.items() if k != _ALTERNATES}
        self._objects = ObjectReader(self.root, self._env)

    def __enter__(self) -> GitRepo:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _refuse_writes(self, what: str) -> None:
        if self.read_only:
            raise RepositoryError(f"{self.root}: opened read-only, so pincite does not {what} here")

    # -- low level -------------------------------------------------------------------
    def run(
        self, *args: str, input_bytes: bytes | None = None, check: bool = True, env: dict[str, str] | None = None
    ) -> bytes:
        environment = env if env is not None else self._env
        proc = subprocess.run(
            _git_command(*args), cwd=self.root, input=input_bytes, capture_output=True, env=environment
        )
        if check and proc.returncode != 0:
            stderr = proc.stderr.decode(errors="replace").strip()
            hint = MISSING_BLOB_HINT if MISSING_OBJECT.search(stderr) else None
            raise RepositoryError(f"git {' '.join(args[:3])} failed: {stderr}", hint=hint)
        return proc.stdout

    def run_text(self, *args: str) -> str:
        return self.run(*args).decode("utf-8", errors="surrogateescape")

    # -- commits -----------------------------------------------------------------------
    def has_commits(self) -> bool:
        return self.head() is not None

    def head(self) -> str | None:
        """The SHA HEAD names now (None before the first commit); one process, nothing cached."""
        return self.run("rev-parse", "--verify", "--quiet", "HEAD", check=False).decode().strip() or None

    def close(self) -> None:
        """End the persistent git process and remove the scratch object folder.

        The handle stays usable: a later read starts a new process (close it again).
        """
        self._objects.close()
        if self._scratch is not None:
            self._scratch.cleanup()

    def is_shallow(self) -> bool:
        return self.run_text("rev-parse", "--is-shallow-repository").strip() == "true"

    def shallow_boundaries(self) -> set[str]:
        """Commits whose parents a shallow clone lacks (empty for a full clone)."""
        shallow = self.root / self.run_text("rev-parse", "--git-path", "shallow").strip()
        if not shallow.is_file():
            return set()
        return set(shallow.read_text(encoding="ascii").split())

    def resolve_commit(self, rev: str) -> str:
        """Full SHA of the commit `rev` names; clear errors for every way it can fail."""
        if not rev or rev.startswith("-") or any(c in rev for c in "\0\n"):
            raise RepositoryError(f"{rev!r} is not a valid revision")
        if rev == "HEAD" and not self.has_commits():
            raise RepositoryError(f"{self.root}: the repository has no commits yet", hint="commit your corpus first")
        proc = subprocess.run(
            _git_command("rev-parse", "--verify", "--quiet", "--end-of-options", rev),
            cwd=self.root,
            capture_output=True,
            env=self._env,
        )
        sha = proc.stdout.decode().strip()
        if proc.returncode != 0 or not sha:
            if b"ambiguous" in proc.stderr or self._is_ambiguous(rev):
                raise RepositoryError(f"{rev!r} is an ambiguous abbreviated SHA", hint="give more hex digits")
            if self.is_shallow():
                raise ShallowHistoryError(f"unknown revision {rev!r}")
            raise UnknownRevision(f"unknown revision {rev!r}", hint="check the name with `git log --oneline`")
        if _ABBREVIATED_SHA.fullmatch(rev) and not sha.startswith(rev.lower()):
            # rev-parse prefers a branch or tag of that name; a hex name pins an object.
            sha = self._object_by_prefix(rev)
        # A full 40-hex SHA passes rev-parse without the object existing.
        kind = self.run("cat-file", "-t", sha, check=False).decode().strip()
        if not kind:
            if self.is_shallow():
                raise ShallowHistoryError(f"commit {rev!r} is not in this clone")
            raise UnknownRevision(f"unknown commit {rev!r}", hint="check the SHA with `git log --oneline`")
        if kind == "tag":
            sha = self.run_text("rev-parse", "--verify", f"{sha}^{{commit}}").strip()
        elif kind != "commit":
            raise RepositoryError(f"{rev!r} names a {kind}, not a commit")
        return sha

    def _object_by_prefix(self, rev: str) -> str:
        """The one object whose SHA starts with the hex `rev`, refs aside."""
        found = self._objects_by_prefix(rev)
        if len(found) > 1:
            raise RepositoryError(f"{rev!r} is an ambiguous abbreviated SHA", hint="give more hex digits")
        if not found:
            hint = "a branch or tag has that name; cite the commit's SHA"
            raise RepositoryError(f"{rev!r} is not a commit in this repository", hint=hint)
        return found[0]

    def _is_ambiguous(self, rev: str) -> bool:
        return bool(_ABBREVIATED_SHA.fullmatch(rev)) and len(self._objects_by_prefix(rev)) > 1

    def _objects_by_prefix(self, rev: str) -> list[str]:
        return self.run("rev-parse", "--disambiguate=" + rev, check=False).decode().split()

    def commit_info(self, sha: str) -> CommitInfo:
        out = self.run_text("log", "-1", "--format=%H%x00%ct%x00%s", sha)
        full, time, subject = out.rstrip("\n").split("\0", 2)
        return CommitInfo(full, int(time), subject)

    def first_parent_line(self, tip: str, start: str | None = None) -> list[CommitInfo]:
        """Commits from `start` (default: the root) to `tip` on the first-parent line, oldest first."""
        revisions = [tip, f"^{start}^@"] if start is not None else [tip]
        commits = [commit for commit, _parent in self._first_parent_log(revisions)]
        if start is not None and (not commits or commits[0].sha != start):
            raise RepositoryError(f"history start {start[:12]} is not on the first-parent line of {tip[:12]}")
        if commits and start is None and commits[0].sha in self.shallow_boundaries():
            # Git shows a shallow boundary as a root commit, so only the shallow file tells.
            raise ShallowHistoryError(f"the history below {commits[0].sha[:12]} is missing")
        return commits

    def first_parent_since(self, old: str, tip: str) -> list[CommitInfo] | None:
        """The commits after `old` up to `tip` on `tip`'s first-parent line, oldest first, or None
        when `old` is not on that line (a force-push, a merge that brought `old` in by a second
        parent, a tip behind `old`). One git process, whatever the length of the history."""
        if old == tip:
            return []
        # `old` gone from the repository (a force-push, then gc): not on the line.
        listed = self._first_parent_log([f"{old}..{tip}"], check=False)
        # The walk stops at the first commit `old` reaches: on the line only when that is `old` itself.
        if not listed or listed[0][1] != old:
            return None
        return [commit for commit, _parent in listed]

    def _first_parent_log(self, revisions: list[str], *, check: bool = True) -> list[tuple[CommitInfo, str]]:
        """(commit, its first parent or "") of `git log --first-parent` over `revisions`, oldest first."""
        listing = self.run(
            "log", "--first-parent", "--reverse", "--format=%H%x00%P%x00%ct%x00%s%x00", *revisions, "--", check=check
        )
        listed = []
        for record in listing.decode("utf-8", errors="surrogateescape").split("\0\n"):
            record = record.strip("\n")
            if not record:
                continue
            sha, parents, time, subject = record.rstrip("\0").split("\0", 3)
            listed.append((CommitInfo(sha, int(time), subject), parents.split(" ")[0] if parents else ""))
        return listed

    def attribute_files_differ(self, old: str, new: str) -> bool:
        """Whether any `.gitattributes` file of the repository differs between two commits' trees."""
        proc = self.run("diff-tree", "-r", "--name-only", "-z", old, new, "--", ":(glob)**/.gitattributes")
        return bool(proc.strip(b"\0"))

    def attribute_files(self, commit: str) -> list[bytes]:
        """The bytes of every `.gitattributes` file in the tree of `commit`, and of the repository's
        `info/attributes`: every file whose lines can declare an attribute of a path there."""
        empty_tree = self.run("hash-object", "-t", "tree", "--stdin", input_bytes=b"").decode().strip()
        out = self.run("diff-tree", "-r", "-z", "--no-renames", empty_tree, commit, "--", ":(glob)**/.gitattributes")
        # --raw records: ":<old mode> <new mode> <old sha> <new sha> A" then the path, each ending in NUL.
        records = [record.split() for record in out.split(b"\0")[0::2] if record.startswith(b":")]
        shas = [
            fields[3].decode() for fields in records if fields[1] != MODE_GITLINK.encode()
        ]  # a submodule has no lines
        return [*(self.read_blob(sha) for sha in shas), self.info_attributes()]

    def info_attributes(self) -> bytes:
        """The repository's own `info/attributes` file (it applies as the committed ones do), or b""."""
        path = self.root / self.run_text("rev-parse", "--git-path", "info/attributes").strip()
        try:
            return path.read_bytes()
        except OSError:
            return b""

    def parent(self, sha: str) -> str | None:
        parents = self.run_text("rev-list", "--parents", "-1", sha).split()[1:]
        return parents[0] if parents else None

    def merge_base(self, a: str, b: str) -> str | None:
        """The best common ancestor of two commits (git's three-dot base), None when they share none."""
        return self.run("merge-base", a, b, check=False).decode().strip() or None

    def ancestors_among(self, commits: list[str], tip: str) -> set[str]:
        """The commits among `commits` that `tip` reaches (itself included), in one git process."""
        if not commits:
            return set()
        listing = "".join(f"{sha}\n" for sha in commits).encode()
        outside = set(self.run("rev-list", "--stdin", "--not", tip, input_bytes=listing).decode().split())
        return set(commits) - outside

    def count_commits(self, start: str, tip: str) -> int:
        """How many commits `tip` reaches that `start` does not (git's `start..tip`)."""
        return int(self.run_text("rev-list", "--count", f"{start}..{tip}").strip() or 0)

    def unreachable_from_refs(self, commits: list[str]) -> set[str]:
        """The commits among `commits` that no branch or tag reaches, in one git process."""
        if not commits:
            return set()
        listing = "".join(f"{sha}\n" for sha in commits).encode()
        out = self.run("rev-list", "--stdin", "--not", "--branches", "--tags", input_bytes=listing)
        return set(out.decode().split()) & set(commits)

    def update_ref(self, ref: str, sha: str) -> None:
        self._refuse_writes("move refs")
        self.run("update-ref", ref, sha)

    # -- trees and blobs -------------------------------------------------------------
    def tree_entries(self, commit: str, roots: tuple[str, ...], *, literal: bool = False) -> list[TreeEntry]:
        """Every file entry at `commit` under `roots` (`literal`: the roots are exact paths, not pathspecs)."""
        out = self.run(*_literal(literal), "ls-tree", "-r", "-z", "--full-tree", commit, "--", *roots)
        entries = []
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, path = record.split(b"\t", 1)
            mode, _kind, sha = meta.decode().split()
            entries.append(TreeEntry(_tree_path(path, commit), mode, sha))
        return entries

    def subfolders(self, commit: str, folders: tuple[str, ...]) -> list[str]:
        """The folders standing straight in each of `folders` at `commit` ("" is the repository's root)."""
        paths = [folder + "/" if folder else "." for folder in folders]
        out = self.run("--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", *paths)
        found = []
        for record in out.split(b"\0"):
            if record:
                meta, path = record.split(b"\t", 1)
                if meta.split()[1] == b"tree":
                    found.append(_tree_path(path, commit))
        return found

    def held_objects(self, shas: Iterable[str]) -> set[str]:
        """The objects among `shas` the object store holds (a partial clone may lack some), in one git process."""
        listing = "".join(f"{sha}\n" for sha in shas).encode()
        if not listing:
            return set()
        out = self.run("cat-file", "--batch-check=%(objectname)", input_bytes=listing)
        return {line for line in out.decode().split("\n") if line and not line.endswith(" missing")}

    def entry_runs(
        self, commits: list[CommitInfo], roots: tuple[str, ...], *, literal: bool = False
    ) -> list[tuple[TreeEntry, int, int]]:
        """(entry, first_seq, last_seq) for every run of consecutive commits of the line in which a
        path under `roots` kept one tree entry (blob and mode), in the order the runs end."""
        seq_of = {c.sha: seq for seq, c in enumerate(commits)}
        changes = self.changes_along(commits[0].sha, commits[-1].sha, roots, literal=literal)
        state = {e.path: (e, 0) for e in self.tree_entries(commits[0].sha, roots, literal=literal)}
        on_line = [(seq_of[sha], changed) for sha, changed in changes.items() if seq_of.get(sha)]  # after the first
        return runs_along(state, sorted(on_line, key=lambda step: step[0]), len(commits) - 1)

    def changes_along(
        self, since: str, tip: str, roots: tuple[str, ...], *, literal: bool = False
    ) -> dict[str, list[TreeEntry]]:
        """For each commit after `since` up to `tip` on the first-parent line: the entries it
        added/modified (sha set) or deleted (sha "")."""
        if since == tip:
            return {}
        out = self.run(
            *_literal(literal),
            "log",
            "--first-parent",
            "--diff-merges=first-parent",
            "--raw",
            "-z",
            "--no-renames",
            "--no-abbrev",
            "--format=%H",
            f"{since}..{tip}",
            "--",
            *roots,
        )
        changes: dict[str, list[TreeEntry]] = {}
        current: list[TreeEntry] = []
        for token, paths in _raw_records(out.split(b"\0")):
            if paths is None:
                current = changes.setdefault(token.decode(), [])
                continue
            _old_mode, new_mode, _old_sha, new_sha, status = token[1:].decode().split()
            path = _tree_path(paths[0], tip)
            deleted = status.startswith("D")
            current.append(TreeEntry(path, "" if deleted else new_mode, "" if deleted else new_sha))
        return changes

    def read_blob(self, sha: str) -> bytes:
        """The bytes of the object `sha` (a blob, or any other object), from the persistent reader."""
        return self._objects.read(sha)

    def iter_blobs(
        self, shas: list[str], *, max_bytes: int | None = None, skip_missing: bool = False
    ) -> Generator[tuple[str, int, bytes | None], None, None]:
        """(sha, size, content) of each blob, in order, streamed from one `git cat-file --batch`.

        A helper thread writes every request up front while this generator reads the
        answers, so no blob waits for a pipe round trip (asking one blob at a time costs
        one per blob). Content over `max_bytes` is skipped unread and comes back as None.
        A blob the object store does not hold (a partial clone, a damaged repository) raises
        `MissingBlob`; with `skip_missing` it comes back as (sha, MISSING_SIZE, None) and the
        stream goes on (git answers "missing" and reads the next request).
        """
        if not shas:
            return
        # --buffer: every request is sent up front, so git need not flush after each answer.
        proc = subprocess.Popen(
            _git_command("cat-file", "--batch", "--buffer"),
            cwd=self.root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self._env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        requests, answers = proc.stdin, proc.stdout
        with contextlib.suppress(OSError, AttributeError):  # a larger pipe lets git run ahead of the reader
            fcntl.fcntl(answers.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)

        def feed() -> None:
            with contextlib.suppress(OSError, ValueError):  # git stopped early: the reader reports it
                for sha in shas:
                    requests.write(sha.encode("ascii") + b"\n")
                requests.close()

        feeder = threading.Thread(target=feed, name="pincite-cat-file-feed", daemon=True)
        feeder.start()
        try:
            for sha in shas:
                header = answers.readline().split()
                if header == [sha.encode("ascii"), b"missing"]:
                    if not skip_missing:
                        raise MissingBlob(sha)
                    yield sha, MISSING_SIZE, None
                    continue
                if len(header) != 3 or header[1] != b"blob":
                    found = b" ".join(header).decode(errors="replace") or "no answer from git cat-file"
                    raise RepositoryError(f"cannot read blob {sha}: {found}", hint="run `git fsck` on the repository")
                size = int(header[2])
                if max_bytes is not None and size > max_bytes:
                    _skip(answers, size + 1)
                    yield sha, size, None
                else:
                    data = answers.read(size)
                    if len(data) != size:
                        raise RepositoryError(f"cannot read blob {sha}: git cat-file stopped after {len(data)} bytes")
                    answers.read(1)  # the newline after the content
                    yield sha, size, data
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            feeder.join()
            answers.close()

    def blob_at(self, commit: str, path: str) -> TreeEntry | None:
        return self.entries_at(commit, [path]).get(path)

    def entries_at(self, commit: str, paths: Sequence[str]) -> dict[str, TreeEntry]:
        """The entries of `paths` at `commit` (a folder's mode is "tree"), in one git process; absent ones left out."""
        if not paths:
            return {}
        # A cited path is a path, never a pathspec: `:(icase)X` or `*.md` must not match other files.
        out = self.run(*_literal(True), "ls-tree", "-z", "--full-tree", commit, "--", *paths)
        wanted, entries = set(paths), {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, found = record.split(b"\t", 1)
            path = found.decode("utf-8", errors="surrogateescape")
            if path in wanted:
                mode, kind, sha = meta.decode().split()
                entries[path] = TreeEntry(path, mode if kind == "blob" else kind, sha)
        return entries

    def hash_object(self, data: bytes) -> str:
        """Write `data` as a blob (into the scratch object folder when read-only) and return its SHA."""
        return self.run("hash-object", "-w", "--stdin", input_bytes=data, env=self._write_env).decode().strip()

    def commit_files(self, files: dict[str, bytes | None], message: str) -> str:
        """Commit exactly these file contents (None deletes the path) on top of HEAD.

        Built in a temporary index from blobs written without filters, so the user's staged
        changes and attributes (eol, clean filters) neither join the commit nor alter the
        bytes; HEAD moves by compare-and-swap. The real index is then updated for these
        paths alone; the caller writes the working-tree files.
        """
        self._refuse_writes("commit")
        parent = self.run_text("rev-parse", "--verify", "HEAD^{commit}").strip() if self.has_commits() else ""
        with tempfile.TemporaryDirectory(prefix="pincite-index-") as tmp:
            env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
            if parent:
                self.run("read-tree", parent, env=env)
            entries = {path: self.hash_object(data) if data is not None else None for path, data in files.items()}
            self._update_index(entries, env)
            tree = self.run("write-tree", env=env).decode().strip()
        args = ["commit-tree", tree] + (["-p", parent] if parent else [])
        commit = self.run(*args, input_bytes=message.encode("utf-8")).decode().strip()
        subject = message.splitlines()[0] if message else "commit"
        self.run("update-ref", "-m", f"pincite: {subject}", "HEAD", commit, parent or "0" * 40)
        if not self.bare:
            self._update_index(entries, None)
        return commit

    def _update_index(self, entries: dict[str, str | None], env: dict[str, str] | None) -> None:
        for path, sha in entries.items():
            if sha is None:
                self.run("update-index", "--force-remove", "--", path, env=env)
            else:
                self.run("update-index", "--add", "--cacheinfo", f"100644,{sha},{path}", env=env)

    def attributes_at(self, commit: str, paths: list[str], names: tuple[str, ...]) -> dict[str, dict[str, str]]:
        """git attributes `names` of `paths` as the `.gitattributes` files of `commit` declare them.

        git 2.39 has no `check-attr --source`, so the commit's tree is read into a temporary
        index and `check-attr --cached` reads the attribute files from there: git's own
        matching rules, never the working tree. A user's global and the system's attributes files
        are switched off; `.git/info/attributes` still applies, as it does for git itself. Only
        attributes that are specified appear: "set", "unset" or the value.
        """
        if not paths:
            return {}
        with tempfile.TemporaryDirectory(prefix="pincite-attr-") as tmp:
            # The system's attributes file is off too: what a build classifies is the repository's
            # alone, so an index update (which keys `.git/info/attributes` only) agrees with a cold build.
            env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index"), "GIT_ATTR_NOSYSTEM": "1"}
            self.run("read-tree", commit, env=env)
            stdin = b"".join(p.encode("utf-8", errors="surrogateescape") + b"\0" for p in paths)
            out = self.run(
                "-c",
                f"core.attributesFile={os.devnull}",
                "check-attr",
                "--cached",
                "-z",
                "--stdin",
                *names,
                input_bytes=stdin,
                env=env,
            )
        result: dict[str, dict[str, str]] = {}
        fields = out.split(b"\0")
        for i in range(0, len(fields) - 2, 3):
            value = fields[i + 2].decode("utf-8", errors="surrogateescape")
            if value != "unspecified":
                path = fields[i].decode("utf-8", errors="surrogateescape")
                result.setdefault(path, {})[fields[i + 1].decode()] = value
        return result

    def uncommitted(self, path: str) -> str | None:
        """How the working tree's `path` differs from HEAD: "new" (untracked, or added and not yet
        committed), "changed" (an edit, staged or not) or None.

        For messages alone ("commit it, then cite it"): nothing pincite checks reads the working
        tree. `--no-optional-locks`: a read-only handle does not even refresh git's index.
        """
        if self.bare:
            return None
        out = self.run(
            *_literal(True),
            "--no-optional-locks",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            path,
            check=False,
        )
        record = next((rec for rec in out.split(b"\0") if len(rec) > 3), None)
        if record is None:
            return None
        return "new" if record[:2] == b"??" or record[:1] == b"A" else "changed"

    def dirty_paths(self, roots: tuple[str, ...]) -> list[str]:
        if self.bare:
            return []
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *roots)
        return [rec[3:].decode("utf-8", errors="surrogateescape") for rec in out.split(b"\0") if len(rec) > 3]

    def origin_url(self) -> str | None:
        out = self.run("config", "--get", "remote.origin.url", check=False).decode().strip()
        return out or None

    # -- diffs -----------------------------------------------------------------------
    def path_change(self, old_commit: str, new_commit: str, path: str) -> PathChange:
        """Follow `path` from one commit to another with rename detection."""
        change = self.changes_between(old_commit, new_commit).get(path)
        if change is not None:
            return change
        entry = self.blob_at(new_commit, path)
        sha = entry.sha if entry else None
        return PathChange("unchanged", path, sha, sha)

    def changes_between(self, old_commit: str, new_commit: str) -> dict[str, PathChange]:
        """Every path that changed between two commits (renames detected), keyed by its old path; cached.

        A path absent from the map kept its blob: callers that know the old blob need no
        further git call for it.
        """
        key = (old_commit, new_commit)
        if key not in self._rename_cache:
            self._rename_cache[key] = self._changes_between(old_commit, new_commit)
        return self._rename_cache[key]

    def touched_paths(self, old_commit: str, new_commit: str) -> list[tuple[str, str, str]]:
        """(status letter, old path, new path) of every path that differs between two commits, renames
        detected as `changes_between` detects them, additions included: one `git diff --name-status`."""
        out = self.run("diff", "--name-status", "-z", RENAME_THRESHOLD, *DIFF_FLAGS, old_commit, new_commit)
        tokens = [t.decode("utf-8", errors="surrogateescape") for t in out.split(b"\0")]
        found: list[tuple[str, str, str]] = []
        i = 0
        while i < len(tokens) and tokens[i]:
            status = tokens[i][0]
            count = 2 if status in "RC" else 1
            paths = tokens[i + 1 : i + 1 + count]
            found.append((status, paths[0], paths[-1]))
            i += 1 + count
        return found

    def cached_changes(self, old_commit: str, new_commit: str) -> dict[str, PathChange] | None:
        """What `changes_between` would answer without starting git, or None when it would have to."""
        return self._rename_cache.get((old_commit, new_commit))

    def prefetch_changes(self, pairs: Iterable[tuple[str, str]]) -> None:
        """`changes_between` of many (parent, commit) pairs at once: one `git diff-tree --stdin` process.

        Each input line names a commit and the commit to compare it with, so the answer for a
        pair is the one `changes_between(parent, commit)` gives (same flags, same threshold).
        """
        wanted = sorted({(old, new) for old, new in pairs if (old, new) not in self._rename_cache})
        while wanted:
            # Output is keyed by the commit: one comparison per commit in each process.
            parent_of = {new: old for old, new in wanted}
            found = self._side_by_side(self._diff_tree, list(parent_of.items()), COMMITS_PER_PROCESS)
            for new, old in parent_of.items():
                self._rename_cache[(old, new)] = found.get(new, {})
            wanted = [pair for pair in wanted if pair not in self._rename_cache]

    def _diff_tree(self, commits: list[tuple[str, str]]) -> dict[str, dict[str, PathChange]]:
        """(commit, parent) pairs, each commit once, through one `git diff-tree --stdin`."""
        listing = "".join(f"{new} {old}\n" for new, old in commits).encode()
        flags = ("-r", "--raw", "-z", "--no-abbrev", RENAME_THRESHOLD, *DIFF_FLAGS)
        out = self.run("diff-tree", "--stdin", *flags, input_bytes=listing)
        found: dict[str, dict[str, PathChange]] = {}
        current: dict[str, PathChange] = {}
        for token, paths in _raw_records(out.split(b"\0")):
            if paths is None:
                current = found.setdefault(token.decode(), {})
            else:
                _record_change(current, token, paths)
        return found

    def _changes_between(self, old: str, new: str) -> dict[str, PathChange]:
        out = self.run("diff", "--raw", "-z", "--no-abbrev", RENAME_THRESHOLD, *DIFF_FLAGS, old, new)
        result: dict[str, PathChange] = {}
        for token, paths in _raw_records(out.split(b"\0")):
            if paths is not None:
                _record_change(result, token, paths)
        return result

    def diff_blobs(self, old_blob: str, new_blob: str) -> list[Hunk]:
        """Zero-context hunks of git's own diff between two blobs."""
        if old_blob == new_blob:
            return []
        out = self.run_text("diff", "-U0", *DIFF_FLAGS, old_blob, new_blob)
        return parse_hunks(out)

    def diff_commit_paths(self, old: str, new: str, paths: list[str]) -> dict[tuple[str, str], list[Hunk]]:
        """Zero-context hunks of many files between two commits in one git process.

        Keyed by (old blob, new blob), so the result is the same as `diff_blobs` per pair.
        Paths that carry a `diff` attribute (binary, a driver) are left out, as are files
        without textual hunks: callers diff those blobs one by one, where no attribute applies.
        """
        plain = self._without_diff_attribute(paths)
        if not plain:
            return {}
        out = self.run_text(
            "--literal-pathspecs", "diff", "-U0", "--full-index", RENAME_THRESHOLD, *DIFF_FLAGS, old, new, "--", *plain
        )
        return _hunks_by_blob_pair(out)

    def diff_blob_pairs(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[Hunk]]:
        """Zero-context hunks of many (old blob, new blob) pairs in a few git processes, not one per pair.

        Two trees are written that hold the pairs' blobs under the same names, and git diffs the
        trees (renames off, so each name pairs with itself): the hunks are those `diff_blobs`
        gives pair by pair. Pairs without textual hunks are left out, as in `diff_commit_paths`;
        so is everything when an attribute would apply to those names. Many pairs are split
        over one `git diff` per usable core, run side by side: git's diffing is the work.
        """
        wanted = sorted({(a, b) for a, b in pairs if a != b})
        if not wanted or self._without_diff_attribute([_PAIR_NAME % 0]) == []:
            return {}
        return self._side_by_side(self._diff_pair_trees, wanted, PAIRS_PER_PROCESS)

    @staticmethod
    def _side_by_side(diff: Callable[[list[T]], dict[K, V]], items: list[T], per_process: int) -> dict[K, V]:
        """`diff(items)`, split over one git process per usable core when there are enough items."""
        parts = max(1, min(usable_cores(), len(items) // per_process))
        if parts == 1:
            return diff(items)
        # Imported here: a process that diffs nothing side by side (a search) never loads it.
        from concurrent.futures import ThreadPoolExecutor

        found: dict[K, V] = {}
        with ThreadPoolExecutor(max_workers=parts) as pool:
            for part in pool.map(diff, [items[i::parts] for i in range(parts)]):
                found.update(part)
        return found

    def _diff_pair_trees(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], list[Hunk]]:
        old_tree = self._mktree((_PAIR_NAME % i, a) for i, (a, _b) in enumerate(wanted))
        new_tree = self._mktree((_PAIR_NAME % i, b) for i, (_a, b) in enumerate(wanted))
        out = self.run_text("diff", "-U0", "--full-index", "--no-renames", *DIFF_FLAGS, old_tree, new_tree)
        return _hunks_by_blob_pair(out)

    def _mktree(self, entries: Iterable[tuple[str, str]]) -> str:
        listing = "".join(f"100644 blob {sha}\t{name}\n" for name, sha in entries)
        return self.run("mktree", "--missing", input_bytes=listing.encode()).decode().strip()

    def _without_diff_attribute(self, paths: list[str]) -> list[str]:
        if not paths:
            return []
        out = self.run("check-attr", "-z", "diff", "--", *paths)
        fields = out.split(b"\0")
        flagged = {
            fields[i].decode("utf-8", errors="surrogateescape")
            for i in range(0, len(fields) - 2, 3)
            if fields[i + 2] != b"unspecified"
        }
        return [p for p in paths if p not in flagged]


def runs_along(
    state: dict[str, tuple[TreeEntry, int]], steps: Iterable[tuple[int, Sequence[TreeEntry]]], last_seq: int
) -> list[tuple[TreeEntry, int, int]]:
    """(entry, first_seq, last_seq) of every run of commits in which a path kept one tree entry, in
    the order the runs end: those open in `state` (path -> (entry, first seq); consumed) and those
    `steps` start, each step (seq, the entries its commit changed; sha "" for a deletion) in seq
    order. The runs still open after the last step end at `last_seq`."""
    runs: list[tuple[TreeEntry, int, int]] = []
    for seq, changed in steps:
        for change in changed:
            if change.path in state:
                entry, first = state.pop(change.path)
                runs.append((entry, first, seq - 1))
            if change.sha:
                state[change.path] = (change, seq)
    runs.extend((entry, first, last_seq) for entry, first in state.values())
    return runs


def _literal(literal: bool) -> tuple[str, ...]:
    """git's option that makes every pathspec an exact path (no globs, no magic)."""
    return ("--literal-pathspecs",) if literal else ()


def _raw_records(tokens: list[bytes]) -> Iterator[tuple[bytes, list[bytes] | None]]:
    """The records of a `--raw -z` listing: (":modes shas status", its one or two paths).

    Any other token (the commit id `diff-tree --stdin` prints before a commit's records)
    comes with None.
    """
    i = 0
    while i < len(tokens):
        token = tokens[i].strip(b"\n")
        i += 1
        if not token:
            continue
        if not token.startswith(b":"):
            yield token, None
            continue
        count = 2 if token.split()[-1][:1] in (b"R", b"C") else 1
        yield token, tokens[i : i + count]
        i += count


def _record_change(changes: dict[str, PathChange], record: bytes, raw_paths: list[bytes]) -> None:
    """Add one raw record to `changes`, keyed by the old path: renames, deletions and modifications."""
    _om, _nm, old_sha, new_sha, status = record[1:].decode().split()
    paths = [p.decode("utf-8", errors="surrogateescape") for p in raw_paths]
    if status[0] == "R":
        changes[paths[0]] = PathChange("renamed", paths[1], old_sha, new_sha)
    elif status[0] == "D":
        changes[paths[0]] = PathChange("deleted", None, old_sha, None)
    elif status[0] in "MT":
        changes[paths[0]] = PathChange("modified", paths[0], old_sha, new_sha)


_PAIR_NAME = "pincite-pair-%06d"


def _hunks_by_blob_pair(out: str) -> dict[tuple[str, str], list[Hunk]]:
    """Hunks of a `git diff -U0 --full-index` output, keyed by each file's (old blob, new blob)."""
    result: dict[tuple[str, str], list[Hunk]] = {}
    blobs: tuple[str, str] | None = None
    body: list[str] = []
    for line in [*out.split("\n"), "diff --git end"]:
        if line.startswith("diff --git "):
            hunks = parse_hunks("\n".join(body)) if blobs else []
            if blobs and hunks:
                result[blobs] = hunks
            blobs, body = None, []
        elif blobs is None and not body and (found := re.match(r"^index ([0-9a-f]{40})\.\.([0-9a-f]{40})", line)):
            blobs = (found.group(1), found.group(2))
        elif blobs is not None:
            body.append(line)
    return result


_WHERE_IS_THE_REPOSITORY = (
    "rev-parse",
    "--is-bare-repository",
    "--is-inside-git-dir",
    "--absolute-git-dir",
    "--show-cdup",
)


_FIX_GITS_COMPLAINT = "do what git's message says (e.g. add the folder to git's `safe.directory`), then run again"


# Where each folder's repository was found, in this process: a command opens several handles on
# one repository (verify, check), and a server one per call; each would start a `rev-parse`.
# An answer is kept only while its git folder is still there.
_FOUND: dict[tuple[str, str], tuple[Path, bool, Path]] = {}


def _find_repository(location: Path) -> tuple[Path, bool]:
    """(root, bare) of the repository holding `location`: the work tree's top folder, or a bare
    repository's own folder. One `git rev-parse` (once per folder in a process), so pincite finds
    the repository exactly where every later git command (run from the root) finds it, and imports
    no git library to do so."""
    key = (str(location.resolve()), os.environ.get("GIT_DIR", ""))
    known = _FOUND.get(key)
    if known is not None and known[2].exists():
        return known[0], known[1]
    if location.is_dir():
        proc = subprocess.run(_git_command(*_WHERE_IS_THE_REPOSITORY), cwd=location, capture_output=True)
        lines = proc.stdout.decode("utf-8", errors="surrogateescape").splitlines()
        if proc.returncode == 0 and len(lines) >= 3:
            bare, inside_git_dir, git_dir = lines[0] == "true", lines[1] == "true", Path(lines[2])
            if bare:
                root = git_dir
            elif inside_git_dir:  # `--repo .git`: the work tree is the folder that holds it
                root = git_dir.parent
            else:
                root = (location / (lines[3] if len(lines) > 3 else "")).resolve()
            _FOUND[key] = (root, bare, git_dir)
            return root, bare
        refused = " ".join(proc.stderr.decode("utf-8", errors="replace").split())
        if refused and "not a git repository" not in refused:  # git found one and refuses it (ownership...)
            raise RepositoryError(f"{location}: git refuses the repository: {refused}", hint=_FIX_GITS_COMPLAINT)
    raise RepositoryError(
        f"{location}: not a git repository", hint="run pincite inside a git repository or pass --repo"
    )


def _git_command(*args: str) -> list[str]:
    return ["git", *(arg for setting in PINNED_CONFIG for arg in ("-c", setting)), *args]


def _tree_path(raw: bytes, commit: str) -> str:
    """A path from git's tree listing, refused when git itself would not check it out.

    Such trees can be made (`git mktree`); the site and `check` turn paths into file names,
    so "..", "." or ".git" components must never get that far.
    """
    path = raw.decode("utf-8", errors="surrogateescape")
    if path and path[0] not in "./" and path[-1] != "/" and "/." not in path and "//" not in path:
        return path  # no part is empty or starts with a dot: the common case, known without splitting
    if any(part in ("", ".", "..") or part.lower() == ".git" for part in path.split("/")):
        raise RepositoryError(
            f"{path!r} in the history of {commit[:12]} is not a path git would check out",
            hint="run `git fsck`: the tree was crafted or is corrupt; remove the commit from the corpus history",
        )
    return path


def _skip(stream: IO[bytes], count: int) -> None:
    while count > 0:
        chunk = stream.read(min(count, 1 << 20))
        if not chunk:
            return
        count -= len(chunk)


def parse_hunks(diff_text: str) -> list[Hunk]:
    hunks: list[Hunk] = []
    header: tuple[int, int, int, int] | None = None
    body: list[str] = []
    for line in diff_text.split("\n"):
        match = _HUNK_RE.match(line)
        if match:
            if header:
                hunks.append(Hunk(*header, tuple(body)))
            a, b, c, d = match.groups()
            header = (int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
            body = []
        elif header and line[:1] in ("+", "-", "\\"):
            body.append(line)
    if header:
        hunks.append(Hunk(*header, tuple(body)))
    return hunks


def git_version() -> tuple[int, ...] | None:
    """The installed git's version numbers, or None when git is not on PATH."""
    try:
        proc = subprocess.run(_git_command("--version"), capture_output=True, text=True)
    except OSError:
        return None
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", proc.stdout)
    if proc.returncode != 0 or match is None:
        return None
    return tuple(int(part) for part in match.groups() if part is not None)


def safe_repo_path(path: str) -> str:
    """Normalise a repository-relative path; refuse anything that could escape the repository."""
    from indexer.errors import UsageError

    if not path or "\0" in path:
        raise UsageError(f"{path!r} is not a repository path")
    if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path):
        raise UsageError(f"{path!r} is absolute; give a path relative to the repository root")
    # POSIX only (fcntl): a backslash is part of a file name, not a separator to convert.
    parts = PurePosixPath(path).parts
    if any(p == ".." for p in parts):
        raise UsageError(f"{path!r} leaves the repository ('..' is not allowed)")
    return "/".join(p for p in parts if p != ".")
