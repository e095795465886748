"""Resolve a citation: the exact pinned text, read from git objects, in every unit system.

`resolve(citation, repo)` returns a `Resolved` (the text, the span as code points, lines,
line:column and PDF pages, the blob, the source class and extractor identity) or raises
a `PinciteError` saying why the citation cannot be resolved. The working tree is never
read. A `Resolver` caches commits, tree entries, texts and diffs, so checking many
citations costs work per distinct (commit, path), not per citation.

Offsets of a PDF or HTML version count one extractor identity's text (docs/design.md#d13);
which identity a citation counts in is `citations.identity`'s rule. Its look-ups are kept in a
`ResolverMemo` of `citations.memo.Memo`s, one per run; planning many citations' diffs at once is
`drift.prefetch_hunks`.
"""

from __future__ import annotations

import shlex
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from indexer.citations import identity
from indexer.citations.lineage import Lineage, PathIntervals, follow
from indexer.citations.memo import Memo
from indexer.citations.verdicts import ChangeKind
from indexer.config import Config, load_config
from indexer.errors import (
    ExtractionError,
    PinciteError,
    RepositoryError,
    UnknownRevision,
    UsageError,
)
from indexer.extract import attributes
from indexer.extract import registry as extract_mod
from indexer.extract.base import Limits
from indexer.extract.ocr import ocr_pages
from indexer.extract.text import encoding_of
from indexer.index import documents
from indexer.index.store import IndexReader
from indexer.text.citation import Citation, identity_token, token_for
from indexer.text.model import UTF8, LineIndex, Span
from indexer.text.normalize import normalize_for_match, normalized_text
from indexer.vcs.repo import MODE_FILE, GitRepo, Hunk, PathChange, TreeEntry, safe_repo_path

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs startup time
    from indexer.shapes import ResolvedJson

_T = TypeVar("_T")

TREE_LISTING_AFTER = 8

UNKNOWN_COMMIT_HINT = (
    "CI checkouts are often shallow: fetch the full history (`git fetch --unshallow`, or "
    "`fetch-depth: 0` on actions/checkout), or check the SHA"
)


@dataclass(frozen=True)
class Resolved:
    """A citation resolved at its pinned commit. `citation` is canonical: full SHA and blob."""

    citation: Citation
    blob: str
    source_class: str
    identity: str
    span: Span
    lines: tuple[int, int]
    linecol: tuple[int, int, int, int]
    pages: tuple[int, int] | None
    text: str
    document: documents.VersionText = field(repr=False, compare=False)
    line_index: LineIndex = field(repr=False, compare=False)

    @property
    def commit(self) -> str:
        return self.citation.commit

    @property
    def path(self) -> str:
        return self.citation.path

    def context(self, lines: int) -> tuple[str, str]:
        """Up to `lines` whole lines of text before and after the span (with their line ends)."""
        if lines <= 0:
            return "", ""
        index = self.line_index
        first = max(1, self.lines[0] - lines)
        before = self.document.text[index.line_start(first) : self.span.start]
        last_line = index.line_of(len(self.document.text))
        last = min(last_line, self.lines[1] + lines)
        after = self.document.text[self.span.end : index.line_end(last)]
        return before, after

    def to_json(self) -> ResolvedJson:
        return {
            "citation": self.citation.text_form(),
            "commit": self.commit,
            "path": self.path,
            "blob": self.blob,
            "source_class": self.source_class,
            "identity": self.identity,
            "chars": [self.span.start, self.span.end],
            "lines": list(self.lines),
            "linecol": list(self.linecol),
            "pages": list(self.pages) if self.pages else None,
            "text": self.text,
            "ocr": self.recognized,
        }

    @property
    def recognized(self) -> bool:
        """Whether the span touches a page whose words OCR read from its image (extract/ocr.py)."""
        recognized = ocr_pages(self.document.extracted.notes)
        first, last = self.pages or (1, 1)  # a one-page PDF has no page range
        return any(page in recognized for page in range(first, last + 1))


VersionKey = tuple[str, str]  # (blob, extractor identity): what a version's text depends on, and nothing else


def version_key(version: documents.VersionText) -> VersionKey:
    return version.blob, version.extracted.identity


def _remembering_errors() -> Memo[Any, Any]:
    return Memo(remember_errors=True)


@dataclass(frozen=True)
class CorpusText:
    """The normalized texts of every readable document at one commit, one a line (a normalized text
    and a normalized quote hold no line end: no match crosses two), and which document each is."""

    text: str
    starts: tuple[int, ...]  # where each document's text starts in `text`
    order: tuple[VersionKey, ...]  # whose text it is, in the same order

    @cached_property
    def keys(self) -> frozenset[VersionKey]:
        """The documents it holds (asked once a candidate)."""
        return frozenset(self.order)

    def holding(self, wanted: str) -> set[VersionKey]:
        """The documents whose normalized text holds `wanted`: one substring search for a quote that
        stands nowhere (the usual fabrication), one more per document that holds it."""
        found: set[VersionKey] = set()
        at = self.text.find(wanted)
        while at != -1:
            which = bisect_right(self.starts, at) - 1
            found.add(self.order[which])
            if which + 1 == len(self.starts):
                break
            at = self.text.find(wanted, self.starts[which + 1])
        return found


@dataclass
class ResolverMemo:
    """Everything a Resolver has looked up, keyed by value; one per run, never shared between runs.

    A failed look-up of a commit, a tree entry or a text is remembered as its error, so asking
    again raises the same error without running git again.
    """

    commits: Memo[str, str] = field(default_factory=_remembering_errors)  # rev -> full SHA
    entries: Memo[tuple[str, str], TreeEntry] = field(default_factory=_remembering_errors)  # (commit, path)
    texts: Memo[tuple[str, str, str], documents.VersionText] = field(
        default_factory=_remembering_errors
    )  # (blob, extension, encoding)
    pinned_texts: Memo[tuple[str, str], documents.VersionText] = field(
        default_factory=_remembering_errors
    )  # (blob, identity): texts under an identity that is not the active one
    declared: dict[str, dict[str, attributes.Declared]] = field(default_factory=dict)  # commit -> path -> encoding
    line_indexes: Memo[VersionKey, LineIndex] = field(default_factory=Memo)
    normalized: Memo[VersionKey, tuple[str, list[int]]] = field(default_factory=Memo)
    normalized_texts: Memo[VersionKey, str] = field(default_factory=Memo)  # the same without the offsets
    text_blobs: Memo[VersionKey, str] = field(default_factory=Memo)  # the blob git diffs for a version
    # A version's passages, per form (`documents.version_form`): (blob, identity, form).
    passage_spans: Memo[tuple[str, str, str], tuple[Span, ...]] = field(default_factory=Memo)
    # A version's normalized text with its spaces left out: a failed quote's near place asks it of the
    # cited document, and every failed quote citing that document asks the same (`quote._respaced`).
    compact_texts: Memo[VersionKey, str] = field(default_factory=Memo)
    hunks: Memo[tuple[str, str], list[Hunk]] = field(default_factory=Memo)  # (old text blob, new text blob)
    changes: Memo[tuple[str, str, str], PathChange] = field(default_factory=Memo)  # (old commit, new commit, path)
    corpus_trees: Memo[str, list[TreeEntry]] = field(default_factory=Memo)  # commit -> entries under the roots
    full_trees: Memo[str, dict[str, TreeEntry]] = field(default_factory=Memo)  # commit -> path -> entry
    lineages: Memo[tuple[str, str, str], Lineage | None] = field(default_factory=Memo)  # (pinned, path, target)
    git_lines: Memo[tuple[str, str], PathIntervals | None] = field(default_factory=Memo)  # (pinned, target)
    git_lineages: Memo[tuple[str, str, str], Lineage | None] = field(default_factory=Memo)  # (pinned, path, target)
    # (normalized quote, commit seq) -> (path, version id) that may hold it: the quote check and the
    # recovery of a wrong or false quote ask the index the same question at the same commit.
    holding: Memo[tuple[str, int], list[tuple[str, int]]] = field(default_factory=Memo)
    skipped: Memo[int, list[str]] = field(default_factory=Memo)  # commit seq -> paths without readable text
    # Blobs whose whole text the run has normalized: asking it for a quote costs less than the
    # index's verbatim-pieces filter would (`versions_matching`).
    normalized_blobs: set[str] = field(default_factory=set)
    # (quote, commit, unit) -> its exact places, when none is in the document they were ordered near
    # (then that order is the plain one): a wrong quote's check and its recovery ask alike.
    exact_places: Memo[tuple[str, str, str], tuple[Citation, ...]] = field(default_factory=Memo)
    # Commit seq -> the normalized texts of every readable document there, one a line: a quote
    # absent from it stands nowhere at that commit, asked without the index (`quote._corpus_text`).
    corpus_texts: dict[int, CorpusText] = field(default_factory=dict)
    corpus_rent: dict[int, int] = field(default_factory=dict)  # seq -> what quotes searched without it cost, in chars
    readable: Memo[int, list[tuple[str, str, int]]] = field(default_factory=Memo)  # seq -> (path, blob, length)
    paths_asked: dict[str, int] = field(default_factory=dict)  # commit -> paths looked up one by one
    identities: dict[str, tuple[str, ...]] | None = None  # blob -> extractor identities recorded in the index


class Resolver:
    """Resolves citations of one repository to their exact text: `resolve(citation) -> Resolved`.

    One per run (a `check`, a `verify`, an agent's warm session): every look-up that costs git or
    extraction — commits, tree entries, texts, line indexes, diffs, where a path leads — is
    remembered in its `memo`, keyed by value, so many citations cost work per distinct (commit,
    path) and blob pair. The index, when there is one, is read for the path-version intervals
    (`path_intervals`) and the extractor identities it recorded. Never reads the working tree.
    """

    def __init__(self, repo: GitRepo, config: Config | None = None, index_path: Path | None = None) -> None:
        self.repo = repo
        self.config = config or load_config(repo.root)
        self.index_path = index_path or repo.root / self.config.index_path
        self.limits = Limits.from_config(self.config)
        self.memo = ResolverMemo()
        self._reader: IndexReader | None = None
        self._reader_tried = False
        self._intervals: PathIntervals | None = None

    # -- cached look-ups -----------------------------------------------------------
    def commit(self, rev: str) -> str:
        """Full SHA of a commit (abbreviations accepted when unambiguous)."""
        intervals = self.path_intervals()
        if intervals is not None and intervals.holds(rev):
            return rev  # a full SHA of the indexed history is a commit of this repository
        return self.memo.commits.get_or_compute(rev, lambda: self._resolve_commit(rev))

    def _resolve_commit(self, rev: str) -> str:
        try:
            return self.repo.resolve_commit(rev)
        except UnknownRevision:
            raise UnknownRevision(f"{rev!r} is not a commit in this repository", hint=UNKNOWN_COMMIT_HINT) from None

    def entry(self, commit: str, path: str) -> TreeEntry:
        """The tree entry of `path` at `commit` (the index's blob when it holds the path there)."""
        return self.memo.entries.get_or_compute((commit, path), lambda: self._entry(commit, path))

    def _entry(self, commit: str, path: str) -> TreeEntry:
        intervals = self.path_intervals()
        indexed = intervals.blob_at(commit, path) if intervals is not None else None
        listed = TreeEntry(path, "100644", indexed) if indexed else self._listed_entry(commit, path)
        if listed is not None:
            return listed
        try:
            return documents.entry_at(self.repo, commit, path)
        except documents.DocumentUnavailable as exc:
            absent = RepositoryError(str(exc), hint="check the path with `git ls-tree -r COMMIT`")
            raise self._with_working_tree(absent, commit, path) from None

    def _with_working_tree(self, error: RepositoryError | UsageError, commit: str, path: str) -> PinciteError:
        """`error` (the path absent at `commit`, a span past its end), told what the working tree explains.

        When `commit` is HEAD's and the working tree holds the path uncommitted, what the user
        sees in their editor is not what the commit holds: say so, and that a citation needs a commit.
        """
        state = self.repo.uncommitted(path)
        if state is None or self.repo.head() != commit:
            return error
        if state == "new":
            return type(error)(
                f"{path} is not committed: HEAD ({commit[:12]}) does not hold it, and a citation pins a commit",
                hint=f"commit it (`git add {shlex.quote(path)}` and `git commit`), then cite it",
            )
        return type(error)(
            f"{error.message}; {path} has uncommitted changes, and a citation reads the file as HEAD commits it",
            hint="commit the change, then cite the lines again (or cite lines the commit holds)",
        )

    def _listed_entry(self, commit: str, path: str) -> TreeEntry | None:
        """A regular file's entry from one listing of the whole tree, once a commit is asked often.

        One `git ls-tree` per path is cheaper for a few paths; past TREE_LISTING_AFTER paths
        of one commit, a single listing of its tree serves them all. Anything the listing does
        not hold as a regular file is left to `documents.entry_at`, which explains why.
        """
        asked = self.memo.paths_asked.get(commit, 0) + 1
        self.memo.paths_asked[commit] = asked
        if asked <= TREE_LISTING_AFTER:
            return None
        tree = self.memo.full_trees.get_or_compute(
            commit, lambda: {e.path: e for e in self.repo.tree_entries(commit, ())}
        )
        entry = tree.get(path)
        return entry if entry is not None and entry.mode in MODE_FILE else None

    def text(self, blob: str, path: str, commit: str | None = None) -> documents.VersionText:
        """The active extractor's text of a blob read as `path` (the extension picks the extractor).

        A text file is decoded in the encoding the index recorded for the blob (its identity
        names it); without an index, in the one the `.gitattributes` of `commit` declare.
        """
        encoding = self.encoding(blob, path, commit)
        try:
            return self._text_in(blob, path, encoding)
        except ExtractionError as unreadable:
            later = self._declared_at_head(blob, path, commit, encoding)
            if later is None:
                raise
            try:
                return self._text_in(blob, path, later)
            except ExtractionError:
                raise unreadable from None  # the cited commit's reading, as the hint tells it

    def _text_in(self, blob: str, path: str, encoding: str) -> documents.VersionText:
        key = (blob, _extension(path), encoding)
        return self.memo.texts.get_or_compute(key, lambda: self._version_text(blob, path, encoding))

    def _declared_at_head(self, blob: str, path: str, commit: str | None, encoding: str) -> str | None:
        """The encoding HEAD's `.gitattributes` declare for a blob the cited commit's declarations cannot read.

        A repository that declares an encoding describes its files' bytes, older versions included
        (a build reads every version in the built commit's declarations). Without an index, or
        outside the roots, nothing recorded an old blob's encoding: the declaration at the cited
        commit is tried first, and HEAD's only when that reading fails, so a blob that reads as
        declared back then keeps its text. None when HEAD declares nothing else.
        """
        if commit is None or encoding != UTF8 or self.recorded_identity(blob) is not None:
            return None
        try:
            head = self.commit("HEAD")
        except PinciteError:
            return None
        if head == commit:
            return None
        self.read_declarations(head, [path])
        declared = self.memo.declared[head][path].encoding
        return declared if declared != UTF8 else None

    def _version_text(self, blob: str, path: str, encoding: str) -> documents.VersionText:
        stored = self._indexed_text(blob, path, encoding)
        if stored is not None:
            return stored
        try:
            return documents.version_text(self.repo, blob, path, self.limits, encoding)
        except documents.DocumentUnavailable as exc:
            cause = exc.__cause__
            if isinstance(cause, PinciteError):
                raise ExtractionError(f"{cause.message} (blob {blob[:12]})", hint=cause.hint) from None
            raise ExtractionError(f"{path} (blob {blob[:12]}): {exc}") from None

    def _indexed_text(self, blob: str, path: str, encoding: str) -> documents.VersionText | None:
        """The text the index (or the extraction cache) holds for an extracted blob under an identity
        the active extractor may give it (a PDF's with or without its OCR configuration): exactly what
        extracting again gives, without the seconds a PDF takes. None for the text class (its blob
        is read as fast) and when neither holds it."""
        extractor = extract_mod.extractor_for(path, encoding)
        if extractor.source_class == "text" or not extractor.available():
            return None
        max_chars = self.config.passage_max_chars
        for candidate in extractor.identities(self.limits):
            found = documents.recorded_text(self.repo, self.index(), blob, path, candidate, max_chars)
            if found is not None:
                return found
        return None

    def encoding(self, blob: str, path: str, commit: str | None) -> str:
        """The encoding a text blob is read in (UTF-8 unless declared); see `text`."""
        recorded = self.recorded_identity(blob)
        from_index = encoding_of(recorded) if recorded else None
        if from_index is not None or recorded is not None or commit is None:
            return from_index or UTF8
        self.read_declarations(commit, [path])
        return self.memo.declared[commit][path].encoding

    def read_declarations(self, commit: str, paths: Iterable[str]) -> None:
        """What `.gitattributes` at `commit` declares for these paths, for all of them in one git process."""
        declared = self.memo.declared.setdefault(commit, {})
        wanted = sorted(set(paths) - declared.keys())
        if wanted:
            found = attributes.declared_for(self.repo, commit, wanted)
            declared.update((path, found.get(path, attributes.UNDECLARED)) for path in wanted)

    def text_at(self, commit: str, path: str) -> documents.VersionText:
        return self.text(self.entry(commit, path).sha, path, commit)

    def line_index(self, version: documents.VersionText) -> LineIndex:
        """The version's lines, computed once per (blob, identity)."""
        return self.memo.line_indexes.get_or_compute(version_key(version), lambda: LineIndex(version.text))

    def corpus_entries(self, commit: str) -> list[TreeEntry]:
        """Every tree entry under the corpus roots at `commit`."""
        return self.memo.corpus_trees.get_or_compute(commit, lambda: self.repo.tree_entries(commit, self.config.roots))

    def normalized(self, version: documents.VersionText) -> tuple[str, list[int]]:
        """The version's text as quote matching sees it, with its offset map (text.normalize)."""
        self.memo.normalized_blobs.add(version.blob)
        return self.memo.normalized.get_or_compute(version_key(version), lambda: normalize_for_match(version.text))

    def normalized_text(self, version: documents.VersionText) -> str:
        """The version's normalized text alone: whether a quote stands in it, before asking where."""
        key = version_key(version)
        mapped = self.memo.normalized.peek(key)
        if mapped is not None:
            return mapped[0]
        self.memo.normalized_blobs.add(version.blob)
        return self.memo.normalized_texts.get_or_compute(key, lambda: normalized_text(version.text))

    def path_change(self, old_commit: str, new_commit: str, path: str) -> PathChange:
        """What became of `path` between two commits (renames followed), once per (commits, path)."""
        return self.memo.changes.get_or_compute(
            (old_commit, new_commit, path), lambda: self._path_change(old_commit, new_commit, path)
        )

    def _path_change(self, old_commit: str, new_commit: str, path: str) -> PathChange:
        change = self.repo.changes_between(old_commit, new_commit).get(path)
        if change is None:
            blob = self.entry(old_commit, path).sha
            change = PathChange(ChangeKind.UNCHANGED, path, blob, blob)
        return change

    def hunks(self, old: documents.VersionText, new: documents.VersionText) -> list[Hunk]:
        """Zero-context hunks of git's diff between two versions' texts."""
        return self.blob_hunks(self._text_blob(old), self._text_blob(new))

    def blob_hunks(self, old_blob: str, new_blob: str) -> list[Hunk]:
        """Zero-context hunks of git's diff between two blobs holding texts."""
        return self.memo.hunks.get_or_compute((old_blob, new_blob), lambda: self.repo.diff_blobs(old_blob, new_blob))

    def diffs_as_committed(self, resolved: Resolved, blob: str) -> bool:
        """Whether `blob` as committed is its text in the citation's offset space, so git diffs it unread.

        True for UTF-8 text the index recorded under the cited identity: that text is the blob's
        own bytes decoded, and `hunks` of the text would diff this very blob.
        """
        return documents.diffs_committed_blob(resolved.source_class, resolved.identity) and (
            resolved.identity in self.recorded_identities(blob)
        )

    def _text_blob(self, version: documents.VersionText) -> str:
        return self.memo.text_blobs.get_or_compute(
            version_key(version), lambda: documents.text_blob(self.repo, version)
        )

    def index(self) -> IndexReader | None:
        """The built index, when there is one (quote lookups narrow the documents with it)."""
        if not self._reader_tried:
            self._reader_tried = True
            try:
                self._reader = IndexReader(self.index_path)
            except PinciteError:
                self._reader = None
        return self._reader

    def path_intervals(self) -> PathIntervals | None:
        """The indexed first-parent history, when there is an index (read once)."""
        if self._intervals is None:
            reader = self.index()
            if reader is not None:
                self._intervals = PathIntervals.read(reader)
        return self._intervals

    def lineage(self, pinned: str, path: str, target: str) -> Lineage | None:
        """Where `path` at `pinned` leads at `target`, step by step; None outside the indexed history."""
        intervals = self.path_intervals()
        if intervals is None:
            return None
        return self.memo.lineages.get_or_compute(
            (pinned, path, target), lambda: follow(intervals, self.repo, pinned, path, target)
        )

    def git_lineage(self, pinned: str, path: str, target: str) -> Lineage | None:
        """The same walk as `lineage` along git's first-parent line instead of the index's, for a
        (pinned, target) the index does not hold: the steps name the commit that changed the cited
        lines. None when `pinned` is not on the target's first-parent line (nothing to walk)."""

        def walk() -> Lineage | None:
            line = self.git_line(pinned, target)
            return follow(line, self.repo, pinned, path, target) if line is not None else None

        return self.memo.git_lineages.get_or_compute((pinned, path, target), walk)

    def git_line(self, pinned: str, target: str) -> PathIntervals | None:
        """git's first-parent line from `pinned` to `target` (read once), None when `pinned` is not on it."""
        return self.memo.git_lines.get_or_compute(
            (pinned, target), lambda: PathIntervals.along_git(self.repo, pinned, target)
        )

    def recorded_identities(self, blob: str) -> tuple[str, ...]:
        """The extractor identities the index recorded a text of `blob` under, oldest first."""
        if self.memo.identities is None:
            self.memo.identities = documents.recorded_identities(self.index_path)
        return self.memo.identities.get(blob, ())

    def recorded_identity(self, blob: str) -> str | None:
        """The newest identity the index recorded for `blob`, if any."""
        recorded = self.recorded_identities(blob)
        return recorded[-1] if recorded else None

    def active_identity(self, blob: str, path: str, commit: str | None = None) -> str | None:
        """The identity the active extractor for `path` gives `blob` (None when it is not installed).

        Where it may give several (a PDF: with its OCR configuration when some page has no text
        layer), the one recorded for the blob, else the one extracting it gives; when that
        fails, the last (no text of this blob is under it, so nothing is served in its name).
        """
        extractor = extract_mod.extractor_for(path, self.encoding(blob, path, commit))
        if not extractor.available():
            return None
        identities = extractor.identities(self.limits)
        if len(identities) == 1:
            return identities[0]
        recorded = self.recorded_identities(blob)
        for candidate in identities:
            if candidate in recorded:
                return candidate
        try:
            return self.text(blob, path, commit).extracted.identity
        except ExtractionError:
            return identities[-1]

    def text_under(self, blob: str, path: str, identity: str, commit: str | None = None) -> documents.VersionText:
        """The text of `blob` under exactly extractor `identity`, or an error naming it and the active one.

        The active extractor's text when it has that identity; otherwise the text the index or
        the extraction cache holds for (blob, identity) — never another extractor's output.
        """
        active = self.active_identity(blob, path, commit)
        if identity == active:
            return self.text(blob, path, commit)
        return self.memo.pinned_texts.get_or_compute(
            (blob, identity), lambda: self._recorded_text(blob, path, identity, active)
        )

    def _recorded_text(self, blob: str, path: str, identity: str, active: str | None) -> documents.VersionText:
        found = documents.recorded_text(self.repo, self.index(), blob, path, identity, self.config.passage_max_chars)
        if found is None:
            raise ExtractionError(
                f"{path} (blob {blob[:12]}) is cited in the text of extractor {identity!r}, which neither the "
                f"index nor the extraction cache holds, and the active one is {active or 'not installed'!r}",
                hint="their offsets differ: rebuild with the recorded extractor version installed, or re-cite",
            )
        return found

    def cited_text(self, citation: Citation, path: str, commit: str, blob: str) -> tuple[documents.VersionText, bool]:
        """The text of `blob` that `citation` counts its offsets in, and whether it names its identity.

        The rules of which identity that is are `citations.identity`'s; an extracted document's
        citation always names the identity it resolved in.
        """
        where = f"{path} at {commit[:12]}"
        try:
            cited = identity.cited_identity(
                citation.identity_token,
                where,
                self.recorded_identities(blob),
                extracted=not _text_class(path),
                active=lambda: self.active_identity(blob, path, commit),
                cached=lambda: documents.cached_identities(self.repo, blob),
            )
            if cited is not None:
                return self.text_under(blob, path, cited, commit), True
        except ExtractionError as refused:
            missing = self._missing_extractor(blob, path, commit, where)
            if missing is None:
                raise
            raise missing from refused
        version = self.text(blob, path, commit)
        identity.check_active_matches_recorded(where, self.recorded_identity(blob), version.extracted.identity)
        return version, version.extracted.source_class != "text"

    def _missing_extractor(self, blob: str, path: str, commit: str, where: str) -> ExtractionError | None:
        """The error to give when the cited text cannot be read because its extractor is not installed.

        Without the extractor, and without an index or extraction cache holding the text (a fresh
        clone, a pre-commit hook's own environment), the identities cannot be compared at all: the
        one thing to do is to install it, not to rebuild. None when the extractor is installed.
        """
        extractor = extract_mod.extractor_for(path, self.encoding(blob, path, commit))
        if extractor.source_class == "text" or extractor.available():
            return None
        return ExtractionError(
            f"{where}: the {extractor.name} extractor is not installed here, and no index or extraction cache "
            "holds the text the citation counts in",
            hint=f"{extractor.install_hint} (for the pre-commit hook, the same requirement in its "
            "additional_dependencies)",
        )

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
        self._reader, self._reader_tried, self._intervals = None, False, None

    # -- resolution --------------------------------------------------------------------
    def resolve(self, citation: Citation) -> Resolved:
        """The exact text `citation` pins at its commit, or a `PinciteError` saying why it cannot be read.

        The citation's commit and path are made canonical (full SHA, the blob); its span is
        read in the text of the identity it counts in (`cited_text`) and given in every unit
        (code points, lines, line:column, PDF pages). A permalink's blob must be the blob at
        the commit; a span past the end of the text is a `UsageError`.
        """
        path = safe_repo_path(citation.path)
        commit = self.commit(citation.commit)
        entry = self.entry(commit, path)
        if citation.blob is not None and citation.blob != entry.sha:
            raise RepositoryError(
                f"{path} at {commit[:12]} is blob {entry.sha[:12]}, not the permalink's blob {citation.blob[:12]}",
                hint="the permalink was edited or belongs to another repository",
            )
        version, named = self.cited_text(citation, path, commit, entry.sha)
        index = self.line_index(version)
        try:
            span = _span_of(citation, version.text, index)
        except UsageError as past_the_end:
            raise self._with_working_tree(past_the_end, commit, path) from None
        # A citation by lines covers the lines it names, a final empty line included: its span
        # alone cannot say so (an empty last line adds no character), so keep the range as cited.
        first, last = citation.lines if citation.lines is not None else index.lines_of_span(span)
        l1, c1 = index.column_of(span.start)
        l2, c2 = index.column_of(span.end)
        token = identity_token(version.extracted.identity) if named else None
        canonical = replace(citation, commit=commit, path=path, blob=entry.sha, identity_token=token)
        return Resolved(
            citation=canonical,
            blob=entry.sha,
            source_class=version.extracted.source_class,
            identity=version.extracted.identity,
            span=span,
            lines=(first, last),
            linecol=(l1, c1, l2, c2),
            pages=_pages(version.extracted.page_starts, span),
            text=version.text[span.start : span.end],
            document=version,
            line_index=index,
        )


def resolve(citation: Citation, repo: GitRepo, *, resolver: Resolver | None = None) -> Resolved:
    """The exact text `citation` pins, from git objects; raises a PinciteError when it cannot."""
    return (resolver or Resolver(repo)).resolve(citation)


def cite_span(
    resolver: Resolver,
    path: str,
    rev: str,
    lines: tuple[int, int] | None,
    chars: tuple[int, int] | None,
    unit: str | None = None,
) -> Resolved:
    """A new citation of `path` at `rev` by lines or characters, written in `unit`, resolved."""
    commit = resolver.commit(rev)
    clean = safe_repo_path(path)
    token = token_of(resolver.text_at(commit, clean))  # a new citation counts the active extractor's text
    resolved = resolver.resolve(Citation(commit, clean, lines=lines, chars=chars, identity_token=token))
    if unit is not None and unit != resolved.citation.unit:
        converted = span_citation(commit, clean, resolved.span, resolved.line_index, unit, identity_token=token)
        resolved = resolver.resolve(converted)
    return replace(resolved, citation=replace(resolved.citation, quote=resolved.text))


def span_citation(
    commit: str,
    path: str,
    span: Span,
    index: LineIndex,
    unit: str,
    quote: str | None = None,
    lines: tuple[int, int] | None = None,
    identity_token: str | None = None,
) -> Citation:
    """A citation of `span` written in `unit` ("lines", "chars" or "linecol").

    `lines`, when known (a relocated line citation), is the line range to write: the span
    of a range ending in an empty line ends where that line starts, so reading the lines
    back from the span alone would drop it. `identity_token` names the extractor identity
    whose text `span` counts (`token_of`).
    """
    token = identity_token
    if unit == "lines":
        return Citation(commit, path, lines=lines or index.lines_of_span(span), quote=quote, identity_token=token)
    if unit == "linecol":
        linecol = (*index.column_of(span.start), *index.column_of(span.end))
        return Citation(commit, path, linecol=linecol, quote=quote, identity_token=token)
    return Citation(commit, path, chars=(span.start, span.end), quote=quote, identity_token=token)


def token_of(version: documents.VersionText) -> str | None:
    """The identity token a citation of this version carries: extracted and snapshot text only."""
    return token_for(version.extracted.source_class, version.extracted.identity)


def _span_of(citation: Citation, text: str, index: LineIndex) -> Span:
    where = f"{citation.path} at {citation.commit[:12]}"
    if citation.lines is not None:
        first, last = citation.lines
        count = index.line_count
        if last > count:
            raise UsageError(
                f"{citation.selector} is past the end of {where}, which has {count} line(s)",
                hint="cite lines inside the document",
            )
        return index.span_of_lines(first, last)
    if citation.chars is not None:
        start, end = citation.chars
        if end > len(text):
            raise UsageError(
                f"{citation.selector} is past the end of {where}, which has {len(text)} characters",
                hint="character offsets count code points from 0, end exclusive",
            )
        return Span(start, end)
    assert citation.linecol is not None
    l1, c1, l2, c2 = citation.linecol
    return Span(_offset(index, text, l1, c1, where), _offset(index, text, l2, c2, where))


def _offset(index: LineIndex, text: str, line: int, column: int, where: str) -> int:
    lines = index.line_of(len(text))
    if line > lines:
        raise UsageError(f"line {line} is past the end of {where}, which has {index.line_count} line(s)")
    width = index.line_end(line) - index.line_start(line)
    if column > width + 1:
        raise UsageError(f"column {column} is past the end of line {line} of {where} ({width} characters)")
    return index.offset_of(line, column)


def _pages(page_starts: tuple[int, ...], span: Span) -> tuple[int, int] | None:
    if not page_starts:
        return None
    return bisect_right(page_starts, span.start) + 1, bisect_right(page_starts, max(span.start, span.end - 1)) + 1


def _text_class(path: str) -> bool:
    return extract_mod.extractor_for(path).source_class == "text"


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[-1] if "." in name else ""
