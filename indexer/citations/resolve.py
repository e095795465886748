"""Resolve a citation: the exact pinned text, read from git objects, in every unit system.

`resolve(citation, repo)` returns a `Resolved` (the text, the span as code points, lines,
line:column and PDF pages, the blob, the source class and extractor identity) or raises
a `PinciteError` saying why the citation cannot be resolved. The working tree is never
read. A `Resolver` caches commits, tree entries, texts and diffs, so checking many
citations costs work per distinct (commit, path), not per citation.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from indexer.config import Config, load_config
from indexer.errors import ExtractionError, PinciteError, RepositoryError, ShallowHistoryError, UsageError
from indexer.extract import registry as extract_mod
from indexer.index import documents
from indexer.index.store import IndexReader
from indexer.text.citation import Citation
from indexer.text.model import LineIndex, Span
from indexer.text.normalize import normalize_for_match
from indexer.vcs.repo import MODE_FILE, GitRepo, Hunk, PathChange, TreeEntry, safe_repo_path

_T = TypeVar("_T")

TREE_LISTING_AFTER = 8
PREFETCH_BATCH = 400

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

    def to_json(self) -> dict[str, object]:
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
        }


class Resolver:
    """Resolves citations of one repository, caching everything git or extraction costs."""

    def __init__(self, repo: GitRepo, config: Config | None = None, index_path: Path | None = None) -> None:
        self.repo = repo
        self.config = config or load_config(repo.root)
        self.index_path = index_path or repo.root / self.config.index_path
        self._commits: dict[str, str | PinciteError] = {}
        self._entries: dict[tuple[str, str], TreeEntry | PinciteError] = {}
        self._texts: dict[tuple[str, str], documents.VersionText | PinciteError] = {}
        self._lines: dict[int, LineIndex] = {}
        self._hunks: dict[tuple[str, str], list[Hunk]] = {}
        self._changes: dict[tuple[str, str, str], PathChange] = {}
        self._normalized: dict[int, tuple[str, list[int]]] = {}
        self._trees: dict[str, list[TreeEntry]] = {}
        self._full_trees: dict[str, dict[str, TreeEntry]] = {}
        self._asked: dict[str, int] = {}
        self._text_blobs: dict[int, str] = {}
        self._identities: dict[str, str] | None = None
        self._reader: IndexReader | bool | None = False

    # -- cached look-ups -----------------------------------------------------------
    def commit(self, rev: str) -> str:
        """Full SHA of a commit (abbreviations accepted when unambiguous)."""
        if rev not in self._commits:
            try:
                self._commits[rev] = self.repo.resolve_commit(rev)
            except ShallowHistoryError as exc:
                self._commits[rev] = exc
            except RepositoryError as exc:
                if exc.message.startswith(("unknown revision", "unknown commit")):
                    exc = RepositoryError(f"{rev!r} is not a commit in this repository", hint=UNKNOWN_COMMIT_HINT)
                self._commits[rev] = exc
        return _value(self._commits[rev])

    def entry(self, commit: str, path: str) -> TreeEntry:
        key = (commit, path)
        if key not in self._entries:
            listed = self._listed_entry(commit, path)
            if listed is not None:
                self._entries[key] = listed
            else:
                try:
                    self._entries[key] = documents.entry_at(self.repo, commit, path)
                except documents.DocumentUnavailable as exc:
                    hint = "check the path with `git ls-tree -r COMMIT`"
                    self._entries[key] = RepositoryError(str(exc), hint=hint)
        return _value(self._entries[key])

    def _listed_entry(self, commit: str, path: str) -> TreeEntry | None:
        """A regular file's entry from one listing of the whole tree, once a commit is asked often.

        One `git ls-tree` per path is cheaper for a few paths; past TREE_LISTING_AFTER paths
        of one commit, a single listing of its tree serves them all. Anything the listing does
        not hold as a regular file is left to `documents.entry_at`, which explains why.
        """
        asked = self._asked.get(commit, 0) + 1
        self._asked[commit] = asked
        if asked <= TREE_LISTING_AFTER:
            return None
        if commit not in self._full_trees:
            self._full_trees[commit] = {e.path: e for e in self.repo.tree_entries(commit, ())}
        entry = self._full_trees[commit].get(path)
        return entry if entry is not None and entry.mode in MODE_FILE else None

    def text(self, blob: str, path: str) -> documents.VersionText:
        """The active extractor's text of a blob read as `path` (the extension picks the extractor)."""
        key = (blob, _extension(path))
        if key not in self._texts:
            try:
                self._texts[key] = documents.version_text(self.repo, blob, path)
            except documents.DocumentUnavailable as exc:
                cause = exc.__cause__
                if isinstance(cause, PinciteError):
                    self._texts[key] = ExtractionError(f"{cause.message} (blob {blob[:12]})", hint=cause.hint)
                else:
                    self._texts[key] = ExtractionError(f"{path} (blob {blob[:12]}): {exc}")
        return _value(self._texts[key])

    def text_at(self, commit: str, path: str) -> documents.VersionText:
        return self.text(self.entry(commit, path).sha, path)

    def line_index(self, version: documents.VersionText) -> LineIndex:
        if id(version) not in self._lines:
            self._lines[id(version)] = LineIndex(version.text)
        return self._lines[id(version)]

    def corpus_entries(self, commit: str) -> list[TreeEntry]:
        """Every tree entry under the corpus roots at `commit`."""
        if commit not in self._trees:
            self._trees[commit] = self.repo.tree_entries(commit, self.config.roots)
        return self._trees[commit]

    def normalized(self, version: documents.VersionText) -> tuple[str, list[int]]:
        """The version's text as quote matching sees it, with its offset map (quote.normalize_for_match)."""
        if id(version) not in self._normalized:
            self._normalized[id(version)] = normalize_for_match(version.text)
        return self._normalized[id(version)]

    def path_change(self, old_commit: str, new_commit: str, path: str) -> PathChange:
        """What became of `path` between two commits (renames followed), once per (commits, path)."""
        key = (old_commit, new_commit, path)
        if key not in self._changes:
            change = self.repo.changes_between(old_commit, new_commit).get(path)
            if change is None:
                blob = self.entry(old_commit, path).sha
                change = PathChange("unchanged", path, blob, blob)
            self._changes[key] = change
        return self._changes[key]

    def prefetch_hunks(self, citations: Iterable[Citation], target: str) -> None:
        """Diff each pinned commit against `target` once for all the text documents cited at it.

        Only an optimisation for many citations: whatever it does not cover, `hunks` diffs
        blob by blob, and both give git's diff of the same two blobs with the same options.
        """
        by_commit: dict[str, set[str]] = {}
        for citation in citations:
            try:
                by_commit.setdefault(self.commit(citation.commit), set()).add(safe_repo_path(citation.path))
            except PinciteError:
                continue
        for commit, paths in by_commit.items():
            changes = self.repo.changes_between(commit, target)
            wanted: set[str] = set()
            for path in paths:
                change = changes.get(path)
                if change is None or change.new_path is None or change.status not in ("modified", "renamed"):
                    continue
                if _text_class(path) and _text_class(change.new_path):
                    wanted |= {path, change.new_path}
            if len(wanted) > 2:  # for one file, `hunks` costs the same single process
                for start in range(0, len(wanted), PREFETCH_BATCH):
                    batch = sorted(wanted)[start : start + PREFETCH_BATCH]
                    self._hunks.update(self.repo.diff_commit_paths(commit, target, batch))

    def hunks(self, old: documents.VersionText, new: documents.VersionText) -> list[Hunk]:
        """Zero-context hunks of git's diff between two versions' texts."""
        old_blob, new_blob = self._text_blob(old), self._text_blob(new)
        if (old_blob, new_blob) not in self._hunks:
            self._hunks[(old_blob, new_blob)] = self.repo.diff_blobs(old_blob, new_blob)
        return self._hunks[(old_blob, new_blob)]

    def _text_blob(self, version: documents.VersionText) -> str:
        if id(version) not in self._text_blobs:
            self._text_blobs[id(version)] = documents.text_blob(self.repo, version)
        return self._text_blobs[id(version)]

    def index(self) -> IndexReader | None:
        """The built index, when there is one (quote lookups use its trigram table)."""
        if self._reader is False:
            try:
                self._reader = IndexReader(self.index_path)
            except PinciteError:
                self._reader = None
        return self._reader if isinstance(self._reader, IndexReader) else None

    def recorded_identity(self, blob: str) -> str | None:
        if self._identities is None:
            self._identities = documents.recorded_identities(self.index_path)
        return self._identities.get(blob)

    def close(self) -> None:
        if isinstance(self._reader, IndexReader):
            self._reader.close()
        self._reader = False

    # -- resolution --------------------------------------------------------------------
    def resolve(self, citation: Citation) -> Resolved:
        path = safe_repo_path(citation.path)
        commit = self.commit(citation.commit)
        entry = self.entry(commit, path)
        if citation.blob is not None and citation.blob != entry.sha:
            raise RepositoryError(
                f"{path} at {commit[:12]} is blob {entry.sha[:12]}, not the permalink's blob {citation.blob[:12]}",
                hint="the permalink was edited or belongs to another repository",
            )
        version = self.text(entry.sha, path)
        identity = version.extracted.identity
        recorded = self.recorded_identity(entry.sha)
        if recorded is not None and recorded != identity:
            raise ExtractionError(
                f"{path} at {commit[:12]} was indexed with extractor {recorded!r} but the active one is {identity!r}",
                hint="their offsets differ: install the recorded extractor version, or re-cite against a new build",
            )
        index = self.line_index(version)
        span = _span_of(citation, version.text, index)
        first, last = index.lines_of_span(span)
        l1, c1 = index.column_of(span.start)
        l2, c2 = index.column_of(span.end)
        canonical = replace(citation, commit=commit, path=path, blob=entry.sha)
        return Resolved(
            citation=canonical,
            blob=entry.sha,
            source_class=version.extracted.source_class,
            identity=identity,
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
    resolved = resolver.resolve(Citation(commit, clean, lines=lines, chars=chars))
    if unit is not None and unit != resolved.citation.unit:
        converted = span_citation(commit, clean, resolved.span, resolved.line_index, unit)
        resolved = resolver.resolve(converted)
    return replace(resolved, citation=replace(resolved.citation, quote=resolved.text))


def span_citation(
    commit: str, path: str, span: Span, index: LineIndex, unit: str, quote: str | None = None
) -> Citation:
    """A citation of `span` written in `unit` ("lines", "chars" or "linecol")."""
    if unit == "lines":
        return Citation(commit, path, lines=index.lines_of_span(span), quote=quote)
    if unit == "linecol":
        return Citation(commit, path, linecol=(*index.column_of(span.start), *index.column_of(span.end)), quote=quote)
    return Citation(commit, path, chars=(span.start, span.end), quote=quote)


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
    extractor = extract_mod.extractor_for(path)
    return extractor is not None and extractor.source_class == "text"


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[-1] if "." in name else ""


def _value(cached: _T | PinciteError) -> _T:
    if isinstance(cached, PinciteError):
        # Raised afresh: re-raising the instance would extend its traceback (and keep every frame
        # of every earlier raise alive) each time, so a long-running server would grow without end.
        raise cached.with_traceback(None)
    return cached
