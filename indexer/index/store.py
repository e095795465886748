"""The SQLite index: the one place pincite talks to sqlite3.

One file with a schema version (docs/design.md#d8). Tables:
  meta(key, value)                       schema version, built commit, build time
  commits(seq, sha, time, subject)       the first-parent line, oldest first (seq 0..)
  versions(id, blob, identity, form, ...)
                                         one row per (blob SHA, extractor identity, form): text and
                                         status; the form (`documents.version_form`) is what the
                                         path and the settings decide of the row: the text format
                                         its passages and title are read in, `passage_max_chars`,
                                         whether it is a snapshot. A rebuild under a new identity
                                         or form adds rows, never drops the old
  path_versions(path, version_id, first_seq, last_seq)
                                         which version a path had over a run of commits
  passage_spans(id, version_id, ordinal, start, end, line_start, line_end, heading, pages)
  passages                               a view: the spans with their text, cut from the version's
  passages_fts                           FTS5 (porter unicode61) over passage text and headings
  versions_tri                           FTS5 trigram over the runs of CJK text (`cjk_runs`) of
                                         the versions that have one, for substring search
                                         where the word tokenizer cannot split words; without
                                         positions (detail=none), it names the versions
                                         holding every trigram of a piece's CJK runs
                                         (`trigram_match`), callers confirm

Quote lookup narrows the versions by whole words instead (`versions_matching`): every
non-blank character of a version is in one of its passages, and passages are never cut
inside a short ASCII word (indexer.text.chunk), so a version holding a quote has, for each
of the quote's words, a passage the porter table finds by that word.

The build writes a copy of the previous index (or a new file) and renames it into place,
so an interrupted or failed build leaves the previous index untouched; a lock file keeps
two builds from writing at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer.errors import IndexDamaged, IndexError_, UsageError, output_error, writing
from indexer.files import replace_durably
from indexer.locks import exclusive_lock
from indexer.text.model import count_lines
from indexer.text.passage import SPAN_FIELDS, Passage, SpanFields, span_fields
from indexer.vcs.repo import CommitInfo

if TYPE_CHECKING:  # the extraction layer's record is an annotation here: a search does not load extraction
    from indexer.extract.base import ExtractedText

# A search ranks at most this many matching passages, the newest (see `_newest_candidates_floor`).
RANKED_CANDIDATES = 5_000
RARE_PASSAGES = 256  # a word held by fewer passages narrows a quote search; counting stops there
LIVE_COMMITS = 4  # commits whose versions a reader keeps for quote searches (`_live_versions`)
NARROWING_WORDS = 2  # the rarest words a quote search looks up: a third narrows little more, at its full cost
FTS_AUTOMERGE = 4  # FTS5's default: segments of a level merged as they are written
WRITER_CACHE_KIB = 64 * 1024  # page cache of the build's connection: FTS5 merges reread recent segments
# 4: trigram rows for CJK versions only, passages keep short words whole; 5: CJK runs only; 6: a row per form
SCHEMA_VERSION = 6

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE commits (seq INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, time INTEGER NOT NULL,
                      subject TEXT NOT NULL);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    blob TEXT NOT NULL,
    identity TEXT NOT NULL,
    form TEXT NOT NULL,
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
    UNIQUE (blob, identity, form)
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
CREATE TABLE passage_spans (
    id INTEGER PRIMARY KEY,
    version_id INTEGER NOT NULL REFERENCES versions(id),
    ordinal INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL,
    page_start INTEGER,
    page_end INTEGER,
    heading TEXT NOT NULL
);
CREATE INDEX passages_version ON passage_spans(version_id, ordinal);
-- A passage's text is exactly its span of the version's text, so it is not stored twice:
-- substr() counts code points, as spans do.
CREATE VIEW passages AS
    SELECT s.id, s.version_id, s.ordinal, s.start, s."end", s.line_start, s.line_end, s.page_start, s.page_end,
           s.heading, substr(v.text, s.start + 1, s."end" - s.start) AS text
    FROM passage_spans s JOIN versions v ON v.id = s.version_id;
CREATE VIRTUAL TABLE passages_fts USING fts5(
    text, heading, content='passages', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
-- Contentless: it holds the rows of some versions only (those with a run of CJK text), each
-- row the version's runs one a line, and its matches are read by rowid alone.
CREATE VIRTUAL TABLE versions_tri USING fts5(text, content='', tokenize='trigram', detail='none');
"""


# Scripts written without spaces, which the word tokenizer keeps as one token per run.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u3000-\u303f\uff66-\uff9f]")
_CJK_RUN = re.compile(_CJK.pattern + "{3,}")  # a run shorter than a trigram has none


def holds_cjk(text: str) -> bool:
    """Whether `text` holds a character of a script the word tokenizer cannot split into words."""
    if text.isascii():
        return False
    try:
        text.encode("latin-1")  # a copy at memory speed, fifty times the pattern's: accented Latin text
    except UnicodeEncodeError:
        return _CJK.search(text) is not None
    return False  # every CJK character is beyond Latin-1


def cjk_runs(text: str) -> list[str]:
    """The runs of three CJK characters or more of `text`, in order: what the trigram table holds.

    A substring that stands in a text has each of its CJK runs inside one of the text's, so
    the trigrams of its runs are among those of the text's runs: the table still names every
    version holding it, for a fifth of the characters tokenized (tldr's CJK pages are mostly
    ASCII commands and options).
    """
    return _CJK_RUN.findall(text)


def _trigram_text(text: str | None) -> str:
    """A version's row of `versions_tri`: its CJK runs one a line ("" when it has none)."""
    return "\n".join(cjk_runs(text)) if text is not None and holds_cjk(text) else ""


def trigram_match(substrings: Sequence[str]) -> str | None:
    """A `versions_tri` query matching every version that holds all `substrings` (None: no CJK run of
    theirs has 3 characters).

    The trigram table keeps no positions, so a substring is asked as the AND of the trigrams
    of its CJK runs: a superset of the versions holding it, to be confirmed on the text.
    """
    trigrams: dict[str, None] = {}
    for sub in substrings:
        for run in cjk_runs(sub):
            for i in range(len(run) - 2):
                trigrams.setdefault(run[i : i + 3])
    if not trigrams:
        return None
    return " AND ".join(f'"{t}"' for t in trigrams)  # a CJK run holds no quote


@dataclass(frozen=True)
class VersionRow:
    """A version's row in the index: its blob, extractor identity, form, source class and status."""

    id: int
    blob: str
    identity: str
    form: str
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
class PassageAnchor:
    """Where a passage starts in its version's text (code points), and its place among the passages."""

    ordinal: int
    start: int


@dataclass(frozen=True)
class PathVersion:
    """An interval of the history: `path` held version `version_id` from commit `first_seq` to `last_seq`."""

    path: str
    version_id: int
    first_seq: int
    last_seq: int


_VERSION_FIELDS = tuple(f.name for f in dataclasses.fields(VersionRow))
_JSON_FIELDS = ("page_starts", "notes")  # stored as JSON arrays


def _version_columns(*, with_text: bool) -> str:
    """The SELECT list of a VersionRow, in field order; without the text, NULL stands in its place."""
    return ", ".join(name if name != "text" or with_text else "NULL" for name in _VERSION_FIELDS)


def _version_row(row: Sequence[Any]) -> VersionRow:
    values = dict(zip(_VERSION_FIELDS, row, strict=True))
    for name in _JSON_FIELDS:
        # Most versions have neither pages nor notes: the site lists every version on each build.
        values[name] = () if values[name] == "[]" else tuple(json.loads(values[name]))
    values["is_markdown"] = bool(values["is_markdown"])
    return VersionRow(**values)


_PASSAGE_FIELDS = tuple(f.name for f in dataclasses.fields(Passage))


def _passage_columns(table: str) -> str:
    """The SELECT list of a Passage from the passages table under the alias `table`, in field order."""
    return ", ".join(f'{table}."{name}"' for name in _PASSAGE_FIELDS)


_VERSION_COLUMNS = (
    "id",
    "blob",
    "identity",
    "form",
    "source_class",
    "status",
    "reason",
    "size",
    "text",
    "title",
    "page_starts",
    "notes",
    "is_markdown",
    "line_count",
)
_VERSION_VALUES = ", ".join("?" * len(_VERSION_COLUMNS))
_INSERT_VERSION = f"INSERT INTO versions({', '.join(_VERSION_COLUMNS)}) VALUES ({_VERSION_VALUES})"
_SPAN_COLUMNS = ", ".join(f'"{name}"' for name in SPAN_FIELDS)  # quoted: `end` is a keyword
_INSERT_SPAN = f"INSERT INTO passage_spans(id, version_id, {_SPAN_COLUMNS}) VALUES (?, ?{', ?' * len(SPAN_FIELDS)})"
# `IndexWriter.add_version` holds versions until this many, or this much text, then writes them with
# a statement per table: the build's memory still follows one batch, never the corpus.
VERSIONS_PER_WRITE = 512
# Items a query names at once: under the 999 variables older SQLite builds allow a statement.
VARIABLES_PER_QUERY = 900
HELD_TEXT_CHARS = 128 * 1024


def _json_list(items: Sequence[Any]) -> str:
    """A list as the index stores it, in JSON; most versions have an empty one, written without the encoder."""
    return json.dumps(list(items)) if items else "[]"


@dataclass
class _HeldRows:
    """Rows of versions recorded and not yet written, per table, in id order."""

    versions: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)
    trigrams: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    spans: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)
    fts: list[tuple[int, str, str]] = dataclasses.field(default_factory=list)
    text_chars: int = 0


def _passage(row: Sequence[Any]) -> Passage:
    return Passage(**dict(zip(_PASSAGE_FIELDS, row, strict=True)))


# SQLite's primary result codes for a damaged file (extended codes add bits above the low byte).
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def _word_query(word: str) -> str:
    """The FTS5 query for one word of passage text, quoted as a phrase (no operator is read in it)."""
    return 'text : "' + word.replace('"', '""') + '"'


def _damage(exc: sqlite3.DatabaseError, index: str) -> IndexDamaged | None:
    """IndexDamaged for an error SQLite gives on a corrupt file; None for any other error."""
    code = getattr(exc, "sqlite_errorcode", None)
    return IndexDamaged(index) if code is not None and code & 0xFF in _DAMAGED else None


class _Cursor(sqlite3.Cursor):
    """A cursor whose reads report a damaged index as IndexDamaged (rows are read lazily)."""

    index = ""

    def execute(self, *args: Any) -> _Cursor:
        with _damage_reported(self.index):
            super().execute(*args)
        return self

    def executemany(self, *args: Any) -> _Cursor:
        with _damage_reported(self.index):
            super().executemany(*args)
        return self

    def fetchone(self) -> Any:
        with _damage_reported(self.index):
            return super().fetchone()

    def fetchall(self) -> list[Any]:
        with _damage_reported(self.index):
            return super().fetchall()

    def fetchmany(self, size: int | None = None) -> list[Any]:
        with _damage_reported(self.index):
            return super().fetchmany(self.arraysize if size is None else size)

    def __next__(self) -> Any:
        with _damage_reported(self.index):
            return super().__next__()


class _Connection(sqlite3.Connection):
    """The index's one connection class: every statement and read goes through `_Cursor`.

    A damaged page can surface in any statement or any row, so the check is made here, at
    the store's boundary, once, and not around each query.
    """

    index = ""  # the index file whose damage is reported (the live path, also for a writer's copy)

    def cursor(self, factory: Any = None) -> _Cursor:  # type: ignore[override]
        made = super().cursor(_Cursor)
        made.index = self.index
        return made

    def execute(self, *args: Any) -> _Cursor:
        return self.cursor().execute(*args)

    def executemany(self, *args: Any) -> _Cursor:
        return self.cursor().executemany(*args)

    def executescript(self, script: str) -> _Cursor:
        with _damage_reported(self.index):
            return super().executescript(script)  # type: ignore[return-value]


@contextlib.contextmanager
def _damage_reported(index: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.DatabaseError as exc:
        damage = _damage(exc, index)
        if damage is None:
            raise
        raise damage from exc


def open_index(target: str, index: Path, **options: Any) -> _Connection:
    """A connection to `target` (a path or a `file:` URI) that reports damage as IndexDamaged for `index`."""
    with _damage_reported(str(index)):
        conn = sqlite3.connect(target, factory=_Connection, **options)
    assert isinstance(conn, _Connection)
    conn.index = str(index)
    return conn


def set_aside_damaged(index: Path) -> Path:
    """Rename a damaged index out of the way (kept, for whoever wants to look at it); its new name."""
    aside = index.with_name(f"{index.name}.damaged-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}")
    os.replace(index, aside)
    return aside


def _connect(path: Path, index: Path) -> sqlite3.Connection:
    conn = open_index(str(path), index, isolation_level=None)
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
        check_index_target(index_path)
        self.final_path = index_path
        self.temp_path = index_path.with_name(f".{index_path.name}.{os.getpid()}.tmp")
        self.reused_file = False
        self.timings: dict[str, float] = {}  # seconds spent on whole-file steps, for benchmarks
        self._next_version_id: int | None = None  # ids `add_version` gives, from the first call on
        self._next_passage_id: int | None = None
        self._dropped = 0  # versions `drop_superseded_forms` deleted: their pages are given back at `commit`
        self._held = _HeldRows()
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
        self.conn = _connect(self.temp_path, index_path)
        self.conn.execute("PRAGMA journal_mode = OFF")
        self.conn.execute("PRAGMA synchronous = OFF")
        # The file is private to this build until the rename: no other reader or writer.
        self.conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        self.conn.execute("PRAGMA temp_store = MEMORY")
        self.conn.execute(f"PRAGMA cache_size = {-WRITER_CACHE_KIB}")
        if not self.reused_file:
            # FTS5 merges free many pages; with incremental auto-vacuum the file gives them back.
            self.conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            self.conn.executescript(SCHEMA)
            self.set_meta("schema_version", str(SCHEMA_VERSION))
            # A new file is optimized at the end (`commit`), which merges every segment at once:
            # merging them as they are written too was a quarter of the word table's write time.
            self._set_automerge(0)
        self.conn.execute("BEGIN")

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def check_reused(self) -> None:
        """Raise IndexDamaged unless SQLite finds the previous index's every page sound.

        An update reads the rows of the touched paths alone: a damaged page elsewhere would
        be carried into the next index unseen, where a full walk reads every row and meets it.
        `quick_check` reads every page (0.08 s CPU for tldr's 40 MB index), not every index entry."""
        rows = self.conn.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            raise IndexDamaged(str(self.final_path))

    def known_versions(self) -> dict[tuple[str, str, str], int]:
        """(blob, identity, form) -> version id of every version recorded."""
        self._write_held()
        rows = self.conn.execute("SELECT blob, identity, form, id FROM versions")
        return {(blob, identity, form): vid for blob, identity, form, vid in rows}

    def add_version(
        self,
        *,
        blob: str,
        identity: str,
        form: str,
        size: int,
        extracted: ExtractedText | None,
        reason: str = "",
        passages: Sequence[Passage] = (),
        spans: Sequence[SpanFields] = (),
    ) -> int:
        """Record one (blob, identity, form) version: its text and passages, or, without `extracted`, why it has none.

        The passages are given as `Passage`s, or as `spans` (their fields without their text, which
        is cut from the version's): a build's workers send them so, and no `Passage` is made again.

        The rows are held and written a batch at a time (VERSIONS_PER_WRITE versions or
        HELD_TEXT_CHARS of text), one statement per table (`_write_held`): a statement per
        small version cost more than its rows. Ids are given here, as SQLite would give them
        (the largest so far plus one), so the version id returned is its row's.
        """
        text = extracted.text if extracted is not None else None
        if self._next_version_id is None:
            self._next_version_id = self._next_id("versions")
            self._next_passage_id = self._next_id("passage_spans")
        assert self._next_passage_id is not None
        version_id = self._next_version_id
        self._next_version_id += 1
        held = self._held
        held.versions.append(
            (
                version_id,
                blob,
                identity,
                form,
                extracted.source_class if extracted is not None else "text",
                "ok" if extracted is not None else "skipped",
                reason,
                size,
                text,
                extracted.title if extracted is not None else "",
                _json_list(extracted.page_starts if extracted is not None else ()),
                _json_list(extracted.notes if extracted is not None else ()),
                int(extracted is not None and extracted.is_markdown),
                count_lines(text) if text is not None else 0,
            )
        )
        trigram_text = _trigram_text(text)
        if trigram_text:
            # Only CJK substring search needs trigrams; they cost more to build than the word table.
            held.trigrams.append((version_id, trigram_text))
        if passages:
            spans = [span_fields(p) for p in passages]
        first_id = self._next_passage_id
        self._next_passage_id += len(spans)
        held.spans += [(first_id + i, version_id, *span) for i, span in enumerate(spans)]
        if spans:
            assert text is not None
            held.fts += [(first_id + i, text[span[1] : span[2]], span[5]) for i, span in enumerate(spans)]
        held.text_chars += len(text or "")
        if len(held.versions) >= VERSIONS_PER_WRITE or held.text_chars >= HELD_TEXT_CHARS:
            self._write_held()
        return version_id

    def _next_id(self, table: str) -> int:
        return int(self.conn.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}").fetchone()[0])

    def _write_held(self) -> None:
        """Write the versions `add_version` holds: every other statement of the writer comes after."""
        held, self._held = self._held, _HeldRows()
        if held.versions:
            self.conn.executemany(_INSERT_VERSION, held.versions)
        if held.trigrams:
            self.conn.executemany("INSERT INTO versions_tri(rowid, text) VALUES (?, ?)", held.trigrams)
        if held.spans:
            self.conn.executemany(_INSERT_SPAN, held.spans)
            self.conn.executemany("INSERT INTO passages_fts(rowid, text, heading) VALUES (?, ?, ?)", held.fts)

    def _set_automerge(self, segments: int) -> None:
        for table in ("passages_fts", "versions_tri"):
            self.conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('automerge', ?)", (segments,))

    def forget_skipped_versions(self, failures_key: str, *, retry: bool = False) -> None:
        """Drop the history (the build writes it anew) and the versions that have no text, unless
        they were recorded under the same `failures_key`.

        A failure is remembered as a success is, by (blob, extractor identity), plus the limits
        it met (`failures_key`): the same bytes through the same extractor under the same limits
        fail the same way, so they are not extracted again. Other limits, or `retry`, retry them.
        Skipped versions never entered the FTS tables, so those need no delete.
        """
        self._write_held()
        self.conn.execute("DELETE FROM path_versions")
        recorded = self.conn.execute("SELECT value FROM meta WHERE key = 'failures_key'").fetchone()
        if retry or recorded is None or recorded[0] != failures_key:
            self.conn.execute("DELETE FROM versions WHERE status = 'skipped'")
            self.set_meta("failures_key", failures_key)

    def drop_superseded_forms(self) -> int:
        """Delete the versions no interval of the history holds whose (blob, identity) a held
        version has (of another form: another `passage_max_chars`, Markdown parser or path
        format); return how many.

        A build under another form cuts every version again, and without this the rows of the
        old form would stay for good. A version of an identity no held row has stays: a citation
        made under an older extractor resolves to exactly its text (`version_under` takes any
        form of a (blob, identity)). Call it after `replace_history`: an update never leaves a
        row unheld (the history only grows; anything that changes the form walks it whole).
        """
        self._write_held()
        ids = [
            int(vid)
            for (vid,) in self.conn.execute(
                "SELECT v.id FROM versions v WHERE v.id NOT IN (SELECT version_id FROM path_versions)"
                " AND EXISTS (SELECT 1 FROM versions w JOIN path_versions pv ON pv.version_id = w.id"
                " WHERE w.blob = v.blob AND w.identity = v.identity)"
            )
        ]
        for start in range(0, len(ids), VARIABLES_PER_QUERY):
            self._delete_versions(ids[start : start + VARIABLES_PER_QUERY])
        self._dropped += len(ids)
        return len(ids)

    def _delete_versions(self, ids: Sequence[int]) -> None:
        """Delete these versions with their passages and full-text rows.

        Neither FTS table holds its rows' text: the word table reads it from `passages` and the
        trigram table from none, so each row's delete gives the very values that were inserted
        (FTS5's 'delete' command), before the passages they come from are gone."""
        marks = ",".join("?" * len(ids))
        self.conn.execute(
            "INSERT INTO passages_fts(passages_fts, rowid, text, heading)"
            f" SELECT 'delete', id, text, heading FROM passages WHERE version_id IN ({marks})",
            ids,
        )
        rows = self.conn.execute(f"SELECT id, text FROM versions WHERE id IN ({marks})", ids).fetchall()
        trigrams = [(vid, runs) for vid, text in rows if (runs := _trigram_text(text))]
        self.conn.executemany("INSERT INTO versions_tri(versions_tri, rowid, text) VALUES ('delete', ?, ?)", trigrams)
        self.conn.execute(f"DELETE FROM passage_spans WHERE version_id IN ({marks})", ids)
        self.conn.execute(f"DELETE FROM versions WHERE id IN ({marks})", ids)

    def skipped_version_ids(self) -> set[int]:
        self._write_held()
        return {int(row[0]) for row in self.conn.execute("SELECT id FROM versions WHERE status = 'skipped'")}

    def head_documents(self, head_seq: int) -> list[tuple[str, str, str, int]]:
        """(path, status, reason, passage count) of every version the commit `head_seq` holds."""
        self._write_held()
        rows = self.conn.execute(
            "SELECT pv.path, v.status, v.reason, (SELECT COUNT(*) FROM passage_spans s WHERE s.version_id = v.id)"
            " FROM path_versions pv JOIN versions v ON v.id = pv.version_id WHERE pv.last_seq = ?",
            (head_seq,),
        ).fetchall()  # at once: a row at a time through the damage check costs more than the query
        return [(str(path), str(status), str(reason), int(count)) for path, status, reason, count in rows]

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def history_head(self) -> tuple[int, str] | None:
        """(seq, sha) of the newest commit of the recorded history, None when there is none."""
        row = self.conn.execute("SELECT seq, sha FROM commits ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def versions_of_blobs(self, blobs: Sequence[str]) -> dict[tuple[str, str, str], int]:
        """`known_versions` for these blobs alone: an update looks up what its new commits brought."""
        self._write_held()
        rows = self._rows_for("SELECT blob, identity, form, id FROM versions WHERE blob IN ({})", blobs)
        return {(str(blob), str(identity), str(form)): int(vid) for blob, identity, form, vid in rows}

    def open_rows(self, paths: Sequence[str], seq: int) -> dict[str, tuple[int, int]]:
        """path -> (row id, version id) of the interval each of `paths` has at its last commit `seq`."""
        sql = "SELECT path, id, version_id FROM path_versions WHERE last_seq = ? AND path IN ({})"
        return {str(path): (int(row), int(vid)) for path, row, vid in self._rows_for(sql, paths, seq)}

    def version_summaries(self, version_ids: Iterable[int]) -> dict[int, tuple[str, str, int]]:
        """Version id -> (status, reason, passage count): what each adds to a head summary."""
        self._write_held()
        sql = (
            "SELECT v.id, v.status, v.reason, (SELECT COUNT(*) FROM passage_spans s WHERE s.version_id = v.id)"
            " FROM versions v WHERE v.id IN ({})"
        )
        rows = self._rows_for(sql, version_ids)
        return {int(vid): (str(status), str(reason), int(count)) for vid, status, reason, count in rows}

    def in_history(self, version_ids: Iterable[int]) -> set[int]:
        """Those of the versions some interval of the recorded history holds."""
        rows = self._rows_for("SELECT DISTINCT version_id FROM path_versions WHERE version_id IN ({})", version_ids)
        return {int(vid) for (vid,) in rows}

    def _rows_for(self, sql: str, items: Iterable[Any], *params: Any) -> list[Any]:
        """The rows of `sql` (its `IN ({})` filled with a placeholder per item, after `params`) over
        all `items`: one query per VARIABLES_PER_QUERY of them (SQLite limits a statement's variables)."""
        unique = list(dict.fromkeys(items))
        rows: list[Any] = []
        for start in range(0, len(unique), VARIABLES_PER_QUERY):
            batch = unique[start : start + VARIABLES_PER_QUERY]
            rows += self.conn.execute(sql.format(",".join("?" * len(batch))), (*params, *batch)).fetchall()
        return rows

    def extend_history(
        self,
        old_head: int,
        commits: list[CommitInfo],
        closed: dict[int, int],
        path_versions: list[PathVersion],
    ) -> None:
        """Append `commits` after the commit `old_head`: the intervals open there run on to the new
        head, except the rows `closed` names (row id -> their last seq); `path_versions` are added."""
        self._write_held()
        new_head = old_head + len(commits)
        self.conn.executemany(
            "INSERT INTO commits(seq, sha, time, subject) VALUES (?,?,?,?)",
            [(old_head + 1 + n, c.sha, c.time, c.subject) for n, c in enumerate(commits)],
        )
        if commits:
            self.conn.execute("UPDATE path_versions SET last_seq = ? WHERE last_seq = ?", (new_head, old_head))
        self.conn.executemany(
            "UPDATE path_versions SET last_seq = ? WHERE id = ?", [(last, i) for i, last in closed.items()]
        )
        self.conn.executemany(
            "INSERT INTO path_versions(path, version_id, first_seq, last_seq) VALUES (?,?,?,?)",
            [(pv.path, pv.version_id, pv.first_seq, pv.last_seq) for pv in path_versions],
        )

    def replace_history(self, commits: list[CommitInfo], path_versions: list[PathVersion]) -> None:
        self._write_held()
        self.conn.execute("DELETE FROM commits")
        self.conn.execute("DELETE FROM path_versions")
        self.conn.executemany(
            "INSERT INTO commits(seq, sha, time, subject) VALUES (?,?,?,?)",
            [(seq, c.sha, c.time, c.subject) for seq, c in enumerate(commits)],
        )
        self.conn.executemany(
            "INSERT INTO path_versions(path, version_id, first_seq, last_seq) VALUES (?,?,?,?)",
            [(pv.path, pv.version_id, pv.first_seq, pv.last_seq) for pv in path_versions],
        )

    def commit(self, *, optimize: bool) -> None:
        self._write_held()
        self.conn.execute("COMMIT")
        started = time.monotonic()
        # A delete from an FTS5 table is a row of its own until the segments merge: after deleting
        # versions, merging them is what makes the file no larger than a cold build's.
        if optimize or self._dropped:
            self.conn.execute("INSERT INTO passages_fts(passages_fts) VALUES ('optimize')")
            self.conn.execute("INSERT INTO versions_tri(versions_tri) VALUES ('optimize')")
            self.conn.executescript("PRAGMA incremental_vacuum;")  # one page per step: run to the end
        if not self.reused_file:
            self._set_automerge(FTS_AUTOMERGE)  # later builds add to this file a few versions at a time
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


SQLITE_HEADER = b"SQLite format 3\x00"
# SQLite reports a full disk or an unwritable folder as its own error codes, not as OSError.
_SQLITE_OS_ERRORS = {
    sqlite3.SQLITE_FULL: errno.ENOSPC,
    sqlite3.SQLITE_READONLY: errno.EACCES,
    sqlite3.SQLITE_CANTOPEN: errno.EACCES,
    sqlite3.SQLITE_PERM: errno.EACCES,
}


@contextlib.contextmanager
def index_writing(index_path: Path) -> Iterator[None]:
    """Disk full or a read-only folder while writing the index: an OutputError, never a traceback."""
    try:
        with writing("the index", index_path):
            yield
    except sqlite3.OperationalError as exc:
        code = _SQLITE_OS_ERRORS.get(getattr(exc, "sqlite_errorcode", -1))
        if code is None:
            raise
        raise output_error(OSError(code, str(exc), str(index_path)), "the index", index_path) from exc


def is_pincite_index(path: Path) -> bool:
    """Whether the file at `path` is a SQLite database with pincite's meta table (any schema version)."""
    try:
        with open(path, "rb") as handle:
            if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return False
    except OSError as exc:
        raise IndexError_(
            f"{path}: cannot read it to check it is a pincite index ({exc.strerror})",
            hint="make the file readable, or choose another path with --index",
        ) from exc
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.DatabaseError:
        return False
    try:
        row = conn.execute("SELECT 1 FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()
    return row is not None


def check_index_target(path: Path) -> None:
    """Refuse, before any work, to write the index over anything but an earlier pincite index.

    The build replaces the file whole, so a wrong `--index` or `index_path` would otherwise turn a
    document (or any file the user can write) into a database.
    """
    if path.is_dir():
        raise IndexError_(
            f"{path}: is a folder, not an index file",
            hint=f"pass a file path, e.g. --index {path / 'index.sqlite'}",
        )
    if not path.exists():
        return
    if not path.is_file():
        raise IndexError_(f"{path}: is not a regular file; refusing to write the index there", hint=_ELSEWHERE)
    if path.stat().st_size > 0 and not is_pincite_index(path):
        raise IndexError_(f"{path}: exists and is not a pincite index; refusing to overwrite it", hint=_ELSEWHERE)


_ELSEWHERE = "choose another path with --index or `index_path`, or move the file away yourself"


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
        return int(row[0]) if row else None
    except (sqlite3.DatabaseError, ValueError, TypeError):  # a damaged value is no schema
        return None


class IndexReader:
    """Read access to a built index.

    The connection is not tied to the thread that opened it (a server answers each call on
    a worker thread); whoever shares a reader between threads has them take turns.
    """

    ranked_candidates = RANKED_CANDIDATES  # matches a search ranks at most: the newest

    def __init__(self, index_path: Path) -> None:
        if not index_path.exists():
            raise IndexError_(f"{index_path}: no index here", hint="run `pincite build` first")
        if index_path.is_dir() or not is_pincite_index(index_path):
            # Never suggest deleting it: it may be anyone's file, passed to --index by mistake.
            what = "a folder" if index_path.is_dir() else "not a pincite index"
            raise IndexError_(
                f"{index_path}: is {what}",
                hint="pass the file `pincite build` wrote (default: .pincite/index.sqlite), or run `pincite build`",
            )
        # One connection both checks the schema and serves the reads (a search opens a reader per call).
        self.conn = open_index(f"file:{index_path}?mode=ro", index_path, uri=True, check_same_thread=False)
        schema = _schema_on(self.conn)
        if schema != SCHEMA_VERSION:
            self.conn.close()
            raise IndexError_(
                f"{index_path}: index schema {schema} is not the schema {SCHEMA_VERSION} this pincite reads",
                hint="rebuild it with `pincite build` (the build replaces an index of another schema)",
            )
        self.path = index_path
        self._rarity: dict[str, int] = {}  # word -> passages holding it (`passages_with`)
        self._rare_versions: dict[str, set[int]] = {}  # a rare word -> the versions of its passages
        self._live: dict[int, dict[int, list[str]]] = {}  # commit seq -> version id -> its paths there
        self._seqs: dict[str, int | None] = {}  # commit SHA -> its seq (`commit_seq`)
        self._blobs: dict[int, str | None] = {}  # version id -> its blob (`version_blob`)

    def close(self) -> None:
        self.conn.close()

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def commits(self) -> list[CommitInfo]:
        """The indexed first-parent line, oldest first: a commit's position is its `seq`."""
        return [CommitInfo(*row) for row in self.conn.execute("SELECT sha, time, subject FROM commits ORDER BY seq")]

    def commit_at(self, seq: int) -> str:
        """The SHA of the commit at position `seq` of the indexed first-parent line."""
        row = self.conn.execute("SELECT sha FROM commits WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise IndexError_(f"{self.path}: no commit at position {seq}", hint="rebuild the index")
        return str(row[0])

    def commit_seq(self, sha: str) -> int | None:
        """The position of commit `sha` in the indexed line, or None; remembered (a check asks per quote)."""
        if sha not in self._seqs:
            row = self.conn.execute("SELECT seq FROM commits WHERE sha = ?", (sha,)).fetchone()
            self._seqs[sha] = int(row[0]) if row else None
        return self._seqs[sha]

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
        # Fetched at once: a row at a time, each row's damage check cost as much as the row (38,000 at tldr).
        return [PathVersion(*row) for row in rows.fetchall()]

    def version(self, version_id: int) -> VersionRow:
        row = self.conn.execute(
            f"SELECT {_version_columns(with_text=True)} FROM versions WHERE id = ?", (version_id,)
        ).fetchone()
        if row is None:
            raise IndexError_(f"{self.path}: version {version_id} missing", hint="rebuild the index")
        return _version_row(row)

    def version_metas(self) -> dict[int, VersionMeta]:
        """Every version without its text (text is None), by id."""
        rows = self.conn.execute(f"SELECT {_version_columns(with_text=False)} FROM versions")
        return {r[0]: _version_row(r) for r in rows.fetchall()}  # at once, as all_path_versions

    def paths_holding(self, blobs: Iterable[str]) -> set[str]:
        """The paths that held any of these blobs at some commit of the history (as any version of them)."""
        rows = self.conn.execute(
            "SELECT DISTINCT pv.path FROM path_versions pv JOIN versions v ON v.id = pv.version_id"
            " WHERE v.blob IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(blobs)),),
        )
        return {str(row[0]) for row in rows.fetchall()}

    def paths_in_folder(self, folder: str, seq: int) -> list[str]:
        """The paths directly in `folder` (not its subfolders; "." the top) that hold a version at commit
        `seq`, in order: a range of the path index for a folder, not a walk over every path."""
        held = "first_seq <= ? AND last_seq >= ?"
        params: list[str | int]
        if folder == ".":
            sql, params = f"instr(path, '/') = 0 AND {held}", [seq, seq]
        else:  # every path under `folder/` sorts from it to `folder0` ("0" follows "/")
            sql, params = f"path >= ? AND path < ? AND {held}", [f"{folder}/", f"{folder}0", seq, seq]
        rows = self.conn.execute(f"SELECT DISTINCT path FROM path_versions WHERE {sql}", params)
        paths = (str(row[0]) for row in rows.fetchall())
        return sorted(path for path in paths if (path.rpartition("/")[0] or ".") == folder)

    def paths_not_held_throughout(self, head_seq: int) -> set[str]:
        """The paths that do not hold a version at every commit from their first to `head_seq`: gone from
        it, or with a gap (their intervals' lengths add up to less than their span). One grouped query."""
        rows = self.conn.execute(
            "SELECT path FROM path_versions GROUP BY path"
            " HAVING max(last_seq) != ? OR sum(last_seq - first_seq + 1) != max(last_seq) - min(first_seq) + 1",
            (head_seq,),
        )
        return {str(row[0]) for row in rows.fetchall()}

    def version_by_blob(self, blob: str) -> VersionRow | None:
        row = self.conn.execute("SELECT id FROM versions WHERE blob = ? ORDER BY id DESC", (blob,)).fetchone()
        return self.version(int(row[0])) if row else None

    def version_text(self, version_id: int) -> str:
        """A version's text alone ("" when it has none): what a page needs beside its `VersionMeta`."""
        row = self.conn.execute("SELECT text FROM versions WHERE id = ?", (version_id,)).fetchone()
        if row is None:
            raise IndexError_(f"{self.path}: version {version_id} missing", hint="rebuild the index")
        return str(row[0] or "")

    def passage_anchors(self, version_id: int) -> list[PassageAnchor]:
        """Where a version's passages start, in order, without cutting their text from the version's."""
        rows = self.conn.execute(
            "SELECT ordinal, start FROM passage_spans WHERE version_id = ? ORDER BY ordinal", (version_id,)
        )
        return [PassageAnchor(*row) for row in rows]

    def passage_spans_of(self, blob: str, identity: str, form: str) -> list[tuple[int, int]]:
        """(start, end) of each passage of the version of `blob` under `identity` and `form`, in order;
        [] when not indexed."""
        rows = self.conn.execute(
            'SELECT s.start, s."end" FROM versions v JOIN passage_spans s ON s.version_id = v.id'
            " WHERE v.blob = ? AND v.identity = ? AND v.form = ? ORDER BY s.ordinal",
            (blob, identity, form),
        ).fetchall()  # at once: a row at a time through the damage check costs more than the query
        return [(int(r[0]), int(r[1])) for r in rows]

    def passages_of(self, version_id: int) -> list[Passage]:
        rows = self.conn.execute(
            f"SELECT {_passage_columns('passages')} FROM passages WHERE version_id = ? ORDER BY ordinal",
            (version_id,),
        )
        return [_passage(row) for row in rows]

    def search_passages(
        self,
        fts_query: str,
        seq: int,
        limit: int,
        path_prefix: str | None,
        *,
        snippets: bool = True,
        rank_newest: int | None = None,
    ) -> list[tuple[str, int, Passage, str]]:
        """(path, version id, passage, snippet) of ranked matches at commit `seq`; without `snippets`
        the snippet is '' (making one tokenizes the passage again: a quote's near matches need none).
        `rank_newest`: how many of the newest matches are ranked first (default `ranked_candidates`)."""
        snippet = "snippet(passages_fts, 0, char(57344), char(57345), '…', 16)" if snippets else "''"
        sql = (
            f"SELECT pv.path, p.version_id, {_passage_columns('p')}, {snippet}"
            " FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid"
            " JOIN path_versions pv ON pv.version_id = p.version_id AND pv.first_seq <= :seq AND pv.last_seq >= :seq"
            " WHERE passages_fts MATCH :q"
        )
        params: dict[str, object] = {"q": fts_query, "seq": seq, "limit": limit}
        if path_prefix:
            sql += " AND substr(pv.path, 1, length(:prefix)) = :prefix"
            params["prefix"] = path_prefix
        ranked = " ORDER BY passages_fts.rank LIMIT :limit"
        try:
            floor = self._newest_candidates_floor(fts_query, rank_newest or self.ranked_candidates)
            rows = []
            if floor is not None:  # FTS5 takes the rowid range itself: it scores only the rows above it
                newest = sql + " AND passages_fts.rowid >= :floor" + ranked
                rows = self.conn.execute(newest, params | {"floor": floor}).fetchall()
            if len(rows) < limit:  # too few of the newest candidates are at `seq` (or fewer match at all)
                rows = self.conn.execute(sql + ranked, params).fetchall()
        except sqlite3.OperationalError as exc:
            raise UsageError(f"search query {fts_query!r} is not valid FTS5 syntax: {exc}") from exc
        return [(r[0], r[1], _passage(r[2:-1]), r[-1]) for r in rows]

    def _newest_candidates_floor(self, fts_query: str, ranked: int) -> int | None:
        """The lowest passage id among the `ranked` newest matches, or None when fewer match.

        bm25 scores every match before the best come out (about 2 µs a passage): a query of
        the most frequent words would score nearly the whole index. Its hits are ranked among
        the newest matching passages instead (ids grow with each build, so HEAD's are there).
        Walking the match list by id, unscored, costs a fraction of that.
        """
        row = self.conn.execute(
            "SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
            (fts_query, ranked - 1),
        ).fetchone()
        return int(row[0]) if row else None

    def search_substrings(
        self, substrings: list[str], fts_query: str | None, seq: int, limit: int, path_prefix: str | None
    ) -> list[tuple[str, int, Passage]]:
        """Passages at `seq` containing every substring (and matching `fts_query`, if given).

        The word tokenizer keeps a run of CJK text as one token, so CJK words inside a
        sentence are found by substring instead; the trigram table narrows the versions.
        """
        sql = (
            f"SELECT pv.path, p.version_id, {_passage_columns('p')} FROM passages p"
            " JOIN path_versions pv ON pv.version_id = p.version_id AND pv.first_seq <= ? AND pv.last_seq >= ?"
            " WHERE 1"
        )
        params: list[object] = [seq, seq]
        for sub in substrings:
            sql += " AND instr(p.text, ?) > 0"
            params.append(sub)
        # The trigram table holds the CJK runs of the versions' texts, so it can narrow only a
        # search for CJK text.
        narrowing = trigram_match(substrings) if any(holds_cjk(sub) for sub in substrings) else None
        if narrowing:
            sql += " AND p.version_id IN (SELECT rowid FROM versions_tri WHERE versions_tri MATCH ?)"
            params.append(narrowing)
        if fts_query:
            sql += " AND p.id IN (SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?)"
            params.append(fts_query)
        if path_prefix:
            sql += " AND substr(pv.path, 1, length(?)) = ?"
            params += [path_prefix, path_prefix]
        sql += " ORDER BY pv.path, p.ordinal LIMIT ?"
        params.append(limit)
        rows = self.conn.execute(sql, params).fetchall()
        return [(r[0], r[1], _passage(r[2:])) for r in rows]

    def identities_by_blob(self) -> dict[str, tuple[str, ...]]:
        """Blob SHA -> the extractor identities of its indexed ('ok') versions, oldest first.

        A build after an extractor upgrade adds the new identity's version beside the old one
        (docs/design.md#d13), so a blob can have several.
        """
        found: dict[str, tuple[str, ...]] = {}
        for blob, identity in self.conn.execute("SELECT blob, identity FROM versions WHERE status = 'ok' ORDER BY id"):
            held = found.get(str(blob), ())
            if identity not in held:  # one identity may have rows of several forms
                found[str(blob)] = (*held, str(identity))
        return found

    def version_identity(self, version_id: int) -> tuple[str, str] | None:
        """(source class, extractor identity) of a version, without loading its text."""
        row = self.conn.execute("SELECT source_class, identity FROM versions WHERE id = ?", (version_id,)).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def version_under(self, blob: str, identity: str, form: str) -> VersionRow | None:
        """The indexed ('ok') version of `blob` extracted under exactly `identity`, with its text: the
        row of `form` when there is one, else the newest of another form (the text is the identity's,
        whatever the form; its title and source class may not be this form's)."""
        row = self.conn.execute(
            "SELECT id FROM versions WHERE blob = ? AND identity = ? AND status = 'ok'"
            " ORDER BY form = ? DESC, id DESC LIMIT 1",
            (blob, identity, form),
        ).fetchone()
        return self.version(int(row[0])) if row else None

    def skipped_paths_at(self, seq: int) -> list[str]:
        """Paths at commit `seq` whose version has no text (not UTF-8, too large, no extractor...)."""
        rows = self.conn.execute(
            "SELECT pv.path FROM path_versions pv JOIN versions v ON v.id = pv.version_id"
            " WHERE pv.first_seq <= ? AND pv.last_seq >= ? AND v.status = 'skipped' ORDER BY pv.path",
            (seq, seq),
        )
        return [str(row[0]) for row in rows]

    def readable_at(self, seq: int) -> list[tuple[str, str, int]]:
        """(path, blob, length of its text) of every path at commit `seq` whose version has text, by
        path: the documents a quote search at `seq` may find a quote in (`versions_matching` narrows
        these)."""
        rows = self.conn.execute(
            "SELECT pv.path, v.blob, length(v.text) FROM path_versions pv JOIN versions v ON v.id = pv.version_id"
            " WHERE pv.first_seq <= ? AND pv.last_seq >= ? AND v.text IS NOT NULL ORDER BY pv.path",
            (seq, seq),
        )
        return [(str(row[0]), str(row[1]), int(row[2])) for row in rows]

    def interval_blobs(self, path: str) -> list[tuple[PathVersion, str]]:
        """Every interval of `path` in the indexed history, oldest first, each with its version's blob."""
        rows = self.conn.execute(
            "SELECT pv.path, pv.version_id, pv.first_seq, pv.last_seq, v.blob FROM path_versions pv"
            " JOIN versions v ON v.id = pv.version_id WHERE pv.path = ? ORDER BY pv.first_seq",
            (path,),
        )
        return [(PathVersion(r[0], r[1], r[2], r[3]), str(r[4])) for r in rows]

    def version_blob(self, version_id: int) -> str | None:
        """The blob SHA of a version, without loading its text; remembered (a version never changes)."""
        if version_id not in self._blobs:
            row = self.conn.execute("SELECT blob FROM versions WHERE id = ?", (version_id,)).fetchone()
            self._blobs[version_id] = str(row[0]) if row else None
        return self._blobs[version_id]

    def versions_matching(
        self,
        words: Sequence[str],
        pieces: Sequence[str],
        seq: int | None,
        unfiltered: Callable[[int], bool] | None = None,
    ) -> list[tuple[str, int]]:
        """(path, version id) of versions (at commit `seq`, or at any commit) with a passage holding
        each of the rare ones among `words`, and whose text holds each of `pieces` verbatim.

        A superset of the versions holding a text made of these words and pieces (see the
        module docstring); callers confirm on the text. The two rarest words narrow when fewer
        than RARE_PASSAGES passages hold each (`passages_with`), or the rarest alone otherwise:
        a common word narrows little and costs a lookup per passage holding it, which a false
        quote paid in every check. A word no passage holds answers at once: no version holds
        the quote. A rare word's versions come from the same lookup that counted it, remembered
        per reader (fewer than RARE_PASSAGES ids a word), so a quote of known words costs one query:
        its versions at `seq`. The pieces are then looked for in the texts left, one text at a
        time, by Python's substring search: SQLite's `instr` over the same texts took ten times
        as long (2 s for one quote over 62 large documents). Versions for which `unfiltered` is
        true are kept without reading their text: the caller holds it already, and its own exact
        test is cheaper than this one.
        """
        found = self._versions_with_words(words, seq)
        if not pieces:
            return found
        texts: dict[int, bool] = {}  # version id -> holds every piece (a version may stand at several paths)
        for _path, version_id in found:
            if version_id in texts:
                continue
            if unfiltered is not None and unfiltered(version_id):
                texts[version_id] = True
            else:
                row = self.conn.execute("SELECT text FROM versions WHERE id = ?", (version_id,)).fetchone()
                texts[version_id] = row is not None and all(piece in row[0] for piece in pieces)
        return [(path, version_id) for path, version_id in found if texts[version_id]]

    def _versions_with_words(self, words: Sequence[str], seq: int | None) -> list[tuple[str, int]]:
        """(path, version id) of the versions with text (at `seq`, or any) that hold the rare words."""
        sql = "SELECT DISTINCT pv.path, pv.version_id FROM path_versions pv JOIN versions v ON v.id = pv.version_id"
        sql += " WHERE v.text IS NOT NULL"
        params: list[object] = []
        if words:
            ranked = sorted(words, key=lambda w: (self.passages_with(w), w))
            if self.passages_with(ranked[0]) == 0:
                return []
            rare = [w for w in ranked[:NARROWING_WORDS] if self.passages_with(w) < RARE_PASSAGES]
            if rare:
                # Intersected here, from what counting them found: no passage list is walked again.
                holding = set.intersection(*(self._versions_of_word(w) for w in rare))
                if seq is not None:  # the versions at `seq` from one look-up per commit, not one per quote
                    live = self._live_versions(seq)
                    return sorted((path, v) for v in holding & live.keys() for path in live[v])
                sql += f" AND pv.version_id IN ({','.join('?' * len(holding))})"
                params += sorted(holding)
            else:
                sql += (
                    " AND pv.version_id IN (SELECT version_id FROM passage_spans WHERE id IN"
                    " (SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?))"
                )
                params.append(_word_query(ranked[0]))
        if seq is not None:
            sql += " AND pv.first_seq <= ? AND pv.last_seq >= ?"
            params += [seq, seq]
        return [(r[0], int(r[1])) for r in self.conn.execute(sql + " ORDER BY pv.path", params).fetchall()]

    def passages_with(self, word: str) -> int:
        """How many passages, of every version, the porter table finds by `word`, counted up to
        RARE_PASSAGES (a common word's count would cost a step per passage); remembered per reader."""
        if word not in self._rarity:
            query = "SELECT count(*) FROM (SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? LIMIT ?)"
            self._rarity[word] = int(self.conn.execute(query, (_word_query(word), RARE_PASSAGES)).fetchone()[0])
        return self._rarity[word]

    def _live_versions(self, seq: int) -> dict[int, list[str]]:
        """Version id -> its paths at commit `seq`, read once per commit and reader (the last
        LIVE_COMMITS commits asked are kept: a server's reader is asked at many)."""
        if seq not in self._live:
            live: dict[int, list[str]] = {}
            for pv in self.paths_at(seq):
                live.setdefault(pv.version_id, []).append(pv.path)
            if len(self._live) >= LIVE_COMMITS:
                del self._live[next(iter(self._live))]
            self._live[seq] = live
        return self._live[seq]

    def _versions_of_word(self, word: str) -> set[int]:
        """The versions with a passage the porter table finds by a rare `word`; remembered per reader
        (fewer than RARE_PASSAGES ids a word: the memory stays small)."""
        if word not in self._rare_versions:
            query = (
                "SELECT DISTINCT version_id FROM passage_spans WHERE id IN"
                " (SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?)"
            )
            self._rare_versions[word] = {int(r[0]) for r in self.conn.execute(query, (_word_query(word),)).fetchall()}
        return self._rare_versions[word]
