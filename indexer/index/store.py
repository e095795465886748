"""The SQLite index: the one place pincite talks to sqlite3.

One file with a schema version (DESIGN decision 8). Tables:
  meta(key, value)                       schema version, built commit, build time
  commits(seq, sha, time, subject)       the first-parent line, oldest first (seq 0..)
  versions(id, blob, identity, ...)      one row per (blob SHA, extractor identity): text and status
  path_versions(path, version_id, first_seq, last_seq)
                                         which version a path had over a run of commits
  passages(id, version_id, ordinal, start, end, line_start, line_end, heading, text, pages)
  passages_fts                           FTS5 (porter unicode61) over passage text and headings
  versions_tri                           FTS5 trigram over whole version texts, for quote lookup

The build writes a copy of the previous index (or a new file) and renames it into place,
so an interrupted or failed build leaves the previous index untouched; a lock file keeps
two builds from writing at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.errors import IndexError_, UsageError
from indexer.files import replace_durably
from indexer.locks import exclusive_lock
from indexer.text.chunk import Passage

WRITER_CACHE_KIB = 64 * 1024  # page cache of the build's connection: FTS5 merges reread recent segments
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE commits (seq INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, time INTEGER NOT NULL,
                      subject TEXT NOT NULL);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    blob TEXT NOT NULL,
    identity TEXT NOT NULL,
    source_class TEXT NOT NULL,
    status TEXT NOT NULL,          -- 'ok' or 'skipped'
    reason TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL,
    text TEXT,
    title TEXT NOT NULL DEFAULT '',
    page_starts TEXT NOT NULL DEFAULT '[]',
    notes TEXT NOT NULL DEFAULT '[]',
    is_markdown INTEGER NOT NULL DEFAULT 0,
    line_count INTEGER NOT NULL DEFAULT 0,
    UNIQUE (blob, identity)
);
CREATE TABLE path_versions (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    version_id INTEGER NOT NULL REFERENCES versions(id),
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL
);
CREATE INDEX path_versions_path ON path_versions(path, first_seq);
CREATE INDEX path_versions_seq ON path_versions(last_seq, first_seq);
CREATE INDEX path_versions_version ON path_versions(version_id);
CREATE TABLE passages (
    id INTEGER PRIMARY KEY,
    version_id INTEGER NOT NULL REFERENCES versions(id),
    ordinal INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    page_start INTEGER,
    page_end INTEGER,
    heading TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX passages_version ON passages(version_id, ordinal);
CREATE VIRTUAL TABLE passages_fts USING fts5(
    text, heading, content='passages', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE versions_tri USING fts5(text, content='versions', content_rowid='id', tokenize='trigram');
"""


@dataclass(frozen=True)
class VersionRow:
    id: int
    blob: str
    identity: str
    source_class: str
    status: str
    reason: str
    size: int
    text: str | None
    title: str
    page_starts: tuple[int, ...]
    notes: tuple[str, ...]
    is_markdown: bool
    line_count: int


# Versions listed all at once (the site) are VersionRows read without their text (text is None).
VersionMeta = VersionRow


@dataclass(frozen=True)
class CommitRow:
    seq: int
    sha: str
    time: int
    subject: str


@dataclass(frozen=True)
class PathVersion:
    path: str
    version_id: int
    first_seq: int
    last_seq: int


_VERSION_COLUMNS = (
    "id, blob, identity, source_class, status, reason, size, {text}, title, page_starts, notes, is_markdown, line_count"
)


def _version_row(r: tuple[Any, ...]) -> VersionRow:
    vid, blob, identity, source_class, status, reason, size, text, title = r[:9]
    return VersionRow(
        vid,
        blob,
        identity,
        source_class,
        status,
        reason,
        size,
        text,
        title,
        tuple(json.loads(r[9])),
        tuple(json.loads(r[10])),
        bool(r[11]),
        r[12],
    )


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


@contextlib.contextmanager
def build_lock(index_path: Path) -> Iterator[None]:
    busy = IndexError_(
        f"{index_path}: another pincite build is writing this index",
        hint="wait for it to finish (or remove the stale lock file if no build runs)",
    )
    with exclusive_lock(index_path.with_name(index_path.name + ".lock"), busy):
        yield


class IndexWriter:
    """A new generation of the index, written beside the live one and renamed over it."""

    def __init__(self, index_path: Path) -> None:
        self.final_path = index_path
        self.temp_path = index_path.with_name(f".{index_path.name}.{os.getpid()}.tmp")
        self.reused_file = False
        self.timings: dict[str, float] = {}  # seconds spent on whole-file steps, for benchmarks
        self._next_passage_id: int | None = None
        # A build killed earlier leaves its temporary file behind; we hold the lock now.
        for stale in index_path.parent.glob(f".{index_path.name}.*.tmp"):
            stale.unlink(missing_ok=True)
        started = time.monotonic()
        if index_path.exists() and _schema_of(index_path) == SCHEMA_VERSION:
            shutil.copyfile(index_path, self.temp_path)
            self.reused_file = True
        elif self.temp_path.exists():
            self.temp_path.unlink()
        self.timings["copy_previous"] = time.monotonic() - started
        self.conn = _connect(self.temp_path)
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        # The file is private to this build until the rename: no other reader or writer.
        self.conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        self.conn.execute("PRAGMA temp_store = MEMORY")
        self.conn.execute(f"PRAGMA cache_size = {-WRITER_CACHE_KIB}")
        if not self.reused_file:
            self.conn.executescript(SCHEMA)
            self.set_meta("schema_version", str(SCHEMA_VERSION))
        self.conn.execute("BEGIN")

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def known_versions(self) -> dict[tuple[str, str], int]:
        rows = self.conn.execute("SELECT blob, identity, id FROM versions")
        return {(blob, identity): vid for blob, identity, vid in rows}

    def add_version(
        self,
        *,
        blob: str,
        identity: str,
        source_class: str,
        size: int,
        text: str | None,
        status: str = "ok",
        reason: str = "",
        title: str = "",
        page_starts: tuple[int, ...] = (),
        notes: tuple[str, ...] = (),
        is_markdown: bool = False,
        line_count: int = 0,
        passages: list[Passage] = (),  # type: ignore[assignment]
    ) -> int:
        cur = self.conn.execute(
            "INSERT INTO versions(blob, identity, source_class, status, reason, size, text, title, page_starts,"
            " notes, is_markdown, line_count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                blob,
                identity,
                source_class,
                status,
                reason,
                size,
                text,
                title,
                json.dumps(list(page_starts)),
                json.dumps(list(notes)),
                int(is_markdown),
                line_count,
            ),
        )
        version_id = int(cur.lastrowid or 0)
        if text is not None:
            self.conn.execute("INSERT INTO versions_tri(rowid, text) VALUES (?, ?)", (version_id, text))
        if not passages:
            return version_id
        if self._next_passage_id is None:
            self._next_passage_id = int(
                self.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM passages").fetchone()[0]
            )
        # Ids given here, so both tables take one executemany each instead of a statement per passage.
        first_id = self._next_passage_id
        self._next_passage_id += len(passages)
        self.conn.executemany(
            'INSERT INTO passages(id, version_id, ordinal, start, "end", line_start, line_end, page_start, page_end,'
            " heading, text) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    first_id + i,
                    version_id,
                    p.ordinal,
                    p.start,
                    p.end,
                    p.line_start,
                    p.line_end,
                    p.page_start,
                    p.page_end,
                    p.heading,
                    p.text,
                )
                for i, p in enumerate(passages)
            ],
        )
        self.conn.executemany(
            "INSERT INTO passages_fts(rowid, text, heading) VALUES (?, ?, ?)",
            [(first_id + i, p.text, p.heading) for i, p in enumerate(passages)],
        )
        return version_id

    def forget_skipped_versions(self) -> None:
        """Drop versions that have no text so the build retries them (the reason may have gone).

        The history that refers to them is dropped too; the build writes it anew. Skipped
        versions never entered the FTS tables, so those need no delete.
        """
        self.conn.execute("DELETE FROM path_versions")
        self.conn.execute("DELETE FROM versions WHERE status = 'skipped'")

    def head_documents(self, head_seq: int) -> list[tuple[str, str, str, int]]:
        """(path, status, reason, passage count) of every version the commit `head_seq` holds."""
        rows = self.conn.execute(
            "SELECT pv.path, v.status, v.reason, (SELECT COUNT(*) FROM passages p WHERE p.version_id = v.id)"
            " FROM path_versions pv JOIN versions v ON v.id = pv.version_id WHERE pv.last_seq = ?",
            (head_seq,),
        )
        return [(str(path), str(status), str(reason), int(count)) for path, status, reason, count in rows]

    def replace_history(self, commits: list[CommitRow], path_versions: list[PathVersion]) -> None:
        self.conn.execute("DELETE FROM commits")
        self.conn.execute("DELETE FROM path_versions")
        self.conn.executemany(
            "INSERT INTO commits(seq, sha, time, subject) VALUES (?,?,?,?)",
            [(c.seq, c.sha, c.time, c.subject) for c in commits],
        )
        self.conn.executemany(
            "INSERT INTO path_versions(path, version_id, first_seq, last_seq) VALUES (?,?,?,?)",
            [(pv.path, pv.version_id, pv.first_seq, pv.last_seq) for pv in path_versions],
        )

    def commit(self, *, optimize: bool) -> None:
        self.conn.execute("COMMIT")
        started = time.monotonic()
        if optimize:
            self.conn.execute("INSERT INTO passages_fts(passages_fts) VALUES ('optimize')")
            self.conn.execute("INSERT INTO versions_tri(versions_tri) VALUES ('optimize')")
        self.conn.close()
        self.timings["optimize"] = time.monotonic() - started
        started = time.monotonic()
        # The file was written without syncs; make it durable before it becomes the live index,
        # so a power cut cannot leave a torn file at the live path.
        replace_durably(self.temp_path, self.final_path)
        self.timings["replace"] = time.monotonic() - started

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        with contextlib.suppress(FileNotFoundError):
            self.temp_path.unlink()


def _schema_of(path: Path) -> int | None:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.DatabaseError:
        return None
    try:
        return _schema_on(conn)
    finally:
        conn.close()


def _schema_on(conn: sqlite3.Connection) -> int | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError:
        return None
    return int(row[0]) if row else None


class IndexReader:
    """Read access to a built index.

    The connection is not tied to the thread that opened it (a server answers each call on
    a worker thread); whoever shares a reader between threads has them take turns.
    """

    def __init__(self, index_path: Path) -> None:
        if not index_path.exists():
            raise IndexError_(f"{index_path}: no index here", hint="run `pincite build` first")
        # One connection both checks the schema and serves the reads (a search opens a reader per call).
        self.conn = sqlite3.connect(f"file:{index_path}?mode=ro", uri=True, check_same_thread=False)
        schema = _schema_on(self.conn)
        if schema != SCHEMA_VERSION:
            self.conn.close()
            raise IndexError_(
                f"{index_path}: index schema {schema} is not the schema {SCHEMA_VERSION} this pincite reads",
                hint="rebuild it: delete the file and run `pincite build`",
            )
        self.path = index_path

    def close(self) -> None:
        self.conn.close()

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def commits(self) -> list[CommitRow]:
        return [
            CommitRow(*row) for row in self.conn.execute("SELECT seq, sha, time, subject FROM commits ORDER BY seq")
        ]

    def commit_at(self, seq: int) -> str:
        """The SHA of the commit at position `seq` of the indexed first-parent line."""
        row = self.conn.execute("SELECT sha FROM commits WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise IndexError_(f"{self.path}: no commit at position {seq}", hint="rebuild the index")
        return str(row[0])

    def commit_seq(self, sha: str) -> int | None:
        row = self.conn.execute("SELECT seq FROM commits WHERE sha = ?", (sha,)).fetchone()
        return int(row[0]) if row else None

    def head_seq(self) -> int:
        row = self.conn.execute("SELECT MAX(seq) FROM commits").fetchone()
        if row is None or row[0] is None:
            raise IndexError_(f"{self.path}: the index holds no commits", hint="run `pincite build`")
        return int(row[0])

    def paths_at(self, seq: int) -> list[PathVersion]:
        rows = self.conn.execute(
            "SELECT path, version_id, first_seq, last_seq FROM path_versions WHERE first_seq <= ? AND last_seq >= ?"
            " ORDER BY path",
            (seq, seq),
        )
        return [PathVersion(*row) for row in rows]

    def version_of(self, path: str, seq: int) -> PathVersion | None:
        row = self.conn.execute(
            "SELECT path, version_id, first_seq, last_seq FROM path_versions"
            " WHERE path = ? AND first_seq <= ? AND last_seq >= ?",
            (path, seq, seq),
        ).fetchone()
        return PathVersion(*row) if row else None

    def history_of(self, path: str) -> list[PathVersion]:
        rows = self.conn.execute(
            "SELECT path, version_id, first_seq, last_seq FROM path_versions WHERE path = ? ORDER BY first_seq",
            (path,),
        )
        return [PathVersion(*row) for row in rows]

    def all_path_versions(self) -> list[PathVersion]:
        rows = self.conn.execute(
            "SELECT path, version_id, first_seq, last_seq FROM path_versions ORDER BY path, first_seq"
        )
        return [PathVersion(*row) for row in rows]

    def version(self, version_id: int) -> VersionRow:
        row = self.conn.execute(
            f"SELECT {_VERSION_COLUMNS.format(text='text')} FROM versions WHERE id = ?", (version_id,)
        ).fetchone()
        if row is None:
            raise IndexError_(f"{self.path}: version {version_id} missing", hint="rebuild the index")
        return _version_row(row)

    def version_metas(self) -> dict[int, VersionMeta]:
        """Every version without its text (text is None), by id."""
        rows = self.conn.execute(f"SELECT {_VERSION_COLUMNS.format(text='NULL')} FROM versions")
        return {r[0]: _version_row(r) for r in rows}

    def version_by_blob(self, blob: str) -> VersionRow | None:
        row = self.conn.execute("SELECT id FROM versions WHERE blob = ? ORDER BY id DESC", (blob,)).fetchone()
        return self.version(int(row[0])) if row else None

    def passages_of(self, version_id: int) -> list[Passage]:
        rows = self.conn.execute(
            'SELECT ordinal, start, "end", line_start, line_end, heading, text, page_start, page_end FROM passages'
            " WHERE version_id = ? ORDER BY ordinal",
            (version_id,),
        )
        return [Passage(*row) for row in rows]

    def search_passages(
        self, fts_query: str, seq: int, limit: int, path_prefix: str | None
    ) -> list[tuple[str, int, Passage, str]]:
        """(path, version id, passage, snippet) of ranked matches at commit `seq`."""
        sql = (
            'SELECT pv.path, p.version_id, p.ordinal, p.start, p."end", p.line_start, p.line_end, p.heading, p.text,'
            " p.page_start, p.page_end, snippet(passages_fts, 0, char(57344), char(57345), '…', 16)"
            " FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid"
            " JOIN path_versions pv ON pv.version_id = p.version_id AND pv.first_seq <= :seq AND pv.last_seq >= :seq"
            " WHERE passages_fts MATCH :q"
        )
        params: dict[str, object] = {"q": fts_query, "seq": seq, "limit": limit}
        if path_prefix:
            sql += " AND substr(pv.path, 1, length(:prefix)) = :prefix"
            params["prefix"] = path_prefix
        sql += " ORDER BY passages_fts.rank LIMIT :limit"
        try:
            rows = self.conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            raise UsageError(f"search query {fts_query!r} is not valid FTS5 syntax: {exc}") from exc
        return [(r[0], r[1], Passage(r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10]), r[11]) for r in rows]

    def search_substrings(
        self, substrings: list[str], fts_query: str | None, seq: int, limit: int, path_prefix: str | None
    ) -> list[tuple[str, int, Passage]]:
        """Passages at `seq` containing every substring (and matching `fts_query`, if given).

        The word tokenizer keeps a run of CJK text as one token, so CJK words inside a
        sentence are found by substring instead; the trigram table narrows the versions.
        """
        sql = (
            'SELECT pv.path, p.version_id, p.ordinal, p.start, p."end", p.line_start, p.line_end, p.heading, p.text,'
            " p.page_start, p.page_end FROM passages p"
            " JOIN path_versions pv ON pv.version_id = p.version_id AND pv.first_seq <= ? AND pv.last_seq >= ?"
            " WHERE 1"
        )
        params: list[object] = [seq, seq]
        for sub in substrings:
            sql += " AND instr(p.text, ?) > 0"
            params.append(sub)
        long_subs = [sub for sub in substrings if len(sub) >= 3]
        if long_subs:
            sql += " AND p.version_id IN (SELECT rowid FROM versions_tri WHERE versions_tri MATCH ?)"
            params.append(" ".join('"' + sub.replace('"', '""') + '"' for sub in long_subs))
        if fts_query:
            sql += " AND p.id IN (SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?)"
            params.append(fts_query)
        if path_prefix:
            sql += " AND substr(pv.path, 1, length(?)) = ?"
            params += [path_prefix, path_prefix]
        sql += " ORDER BY pv.path, p.ordinal LIMIT ?"
        params.append(limit)
        rows = self.conn.execute(sql, params).fetchall()
        return [(r[0], r[1], Passage(r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10])) for r in rows]

    def identities_by_blob(self) -> dict[str, str]:
        """Blob SHA -> extractor identity of its newest indexed ('ok') version."""
        rows = self.conn.execute("SELECT blob, identity FROM versions WHERE status = 'ok' ORDER BY id")
        return {str(blob): str(identity) for blob, identity in rows}

    def skipped_paths_at(self, seq: int) -> list[str]:
        """Paths at commit `seq` whose version has no text (not UTF-8, too large, no extractor...)."""
        rows = self.conn.execute(
            "SELECT pv.path FROM path_versions pv JOIN versions v ON v.id = pv.version_id"
            " WHERE pv.first_seq <= ? AND pv.last_seq >= ? AND v.status = 'skipped' ORDER BY pv.path",
            (seq, seq),
        )
        return [str(row[0]) for row in rows]

    def version_blob(self, version_id: int) -> str | None:
        """The blob SHA of a version, without loading its text."""
        row = self.conn.execute("SELECT blob FROM versions WHERE id = ?", (version_id,)).fetchone()
        return str(row[0]) if row else None

    def versions_containing(self, trigram_query: str, seq: int | None) -> list[tuple[str, int]]:
        """(path, version id) of versions whose text matches a trigram query (at `seq`, or any commit)."""
        sql = (
            "SELECT DISTINCT pv.path, pv.version_id FROM versions_tri"
            " JOIN path_versions pv ON pv.version_id = versions_tri.rowid WHERE versions_tri MATCH ?"
        )
        params: list[object] = [trigram_query]
        if seq is not None:
            sql += " AND pv.first_seq <= ? AND pv.last_seq >= ?"
            params += [seq, seq]
        return [(r[0], int(r[1])) for r in self.conn.execute(sql + " ORDER BY pv.path", params)]
