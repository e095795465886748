"""Resolve a citation: the exact pinned text, read from git objects, in every unit system.

`resolve(citation, repo)` returns a `Resolved` (the text, the span as code points, lines,
line:column and PDF pages, the blob, the source class and extractor identity) or raises
a `PinciteError` saying why the citation cannot be resolved. The working tree is never
read. A `Resolver` caches commits, tree entries, texts and diffs, so checking many
citations costs work per distinct (commit, path), not per citation.

Offsets of a PDF or HTML version count one extractor identity's text (DESIGN decision 13).
A citation naming its identity (`;x=TOKEN`) resolves in exactly that identity's text: the
active extractor's when it is that one, else the index's or the extraction cache's, else it
is unresolvable and the reason names both identities. A citation naming none, to a blob the
index recorded under more than one identity, is unresolvable and names them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from indexer.citations.lineage import DRIFTED, Lineage, PathIntervals, follow, prefetch_renames, relocate_lines
from indexer.config import Config, load_config
from indexer.errors import (
    ExtractionError,
    PinciteError,
    RepositoryError,
    ShallowHistoryError,
    UnknownRevision,
    UsageError,
)
from indexer.extract import attributes
from indexer.extract import registry as extract_mod
from indexer.extract.base import Limits
from indexer.extract.text import encoding_of
from indexer.index import documents
from indexer.index.store import IndexReader
from indexer.text.citation import Citation, identity_token, names_identity, token_for
from indexer.text.model import UTF8, LineIndex, Span
from indexer.text.normalize import normalize_for_match
from indexer.vcs.repo import MODE_FILE, GitRepo, Hunk, PathChange, TreeEntry, safe_repo_path

_T = TypeVar("_T")

TREE_LISTING_AFTER = 8
PREFETCH_BATCH = 5000

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


VersionKey = tuple[str, str]  # (blob, extractor identity): what a version's text depends on, and nothing else


def version_key(version: documents.VersionText) -> VersionKey:
    return version.blob, version.extracted.identity


@dataclass
class ResolverMemo:
    """Everything a Resolver has looked up, keyed by value; one per run, never shared between runs.

    A failed look-up is remembered as its error, so asking again raises the same error without
    running git again.
    """

    commits: dict[str, str | PinciteError] = field(default_factory=dict)  # rev -> full SHA
    entries: dict[tuple[str, str], TreeEntry | PinciteError] = field(default_factory=dict)  # (commit, path)
    texts: dict[tuple[str, str, str], documents.VersionText | PinciteError] = field(
        default_factory=dict
    )  # (blob, extension, encoding)
    declared: dict[str, dict[str, attributes.Declared]] = field(default_factory=dict)  # commit -> path -> encoding
    line_indexes: dict[VersionKey, LineIndex] = field(default_factory=dict)
    normalized: dict[VersionKey, tuple[str, list[int]]] = field(default_factory=dict)
    text_blobs: dict[VersionKey, str] = field(default_factory=dict)  # the blob git diffs for a version
    hunks: dict[tuple[str, str], list[Hunk]] = field(default_factory=dict)  # (old text blob, new text blob)
    changes: dict[tuple[str, str, str], PathChange] = field(default_factory=dict)  # (old commit, new commit, path)
    corpus_trees: dict[str, list[TreeEntry]] = field(default_factory=dict)  # commit -> entries under the roots
    full_trees: dict[str, dict[str, TreeEntry]] = field(default_factory=dict)  # commit -> path -> entry
    paths_asked: dict[str, int] = field(default_factory=dict)  # commit -> paths looked up one by one
    identities: dict[str, tuple[str, ...]] | None = None  # blob -> extractor identities recorded in the index
    pinned_texts: dict[tuple[str, str], documents.VersionText | PinciteError] = field(
        default_factory=dict
    )  # (blob, identity): texts under an identity that is not the active one
    lineages: dict[tuple[str, str, str], Lineage | None] = field(default_factory=dict)  # (pinned, path, target)


class Resolver:
    """Resolves citations of one repository, remembering everything git or extraction costs."""

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
        history = self.path_intervals()
        if history is not None and history.holds(rev):
            return rev  # a full SHA of the indexed history is a commit of this repository
        if rev not in self.memo.commits:
            try:
                self.memo.commits[rev] = self.repo.resolve_commit(rev)
            except ShallowHistoryError as exc:
                self.memo.commits[rev] = exc
            except UnknownRevision:
                self.memo.commits[rev] = UnknownRevision(
                    f"{rev!r} is not a commit in this repository", hint=UNKNOWN_COMMIT_HINT
                )
            except RepositoryError as exc:
                self.memo.commits[rev] = exc
        return _value(self.memo.commits[rev])

    def entry(self, commit: str, path: str) -> TreeEntry:
        key = (commit, path)
        if key not in self.memo.entries:
            history = self.path_intervals()
            indexed = history.blob_at(commit, path) if history is not None else None
            listed = TreeEntry(path, "100644", indexed) if indexed else self._listed_entry(commit, path)
            if listed is not None:
                self.memo.entries[key] = listed
            else:
                try:
                    self.memo.entries[key] = documents.entry_at(self.repo, commit, path)
                except documents.DocumentUnavailable as exc:
                    hint = "check the path with `git ls-tree -r COMMIT`"
                    self.memo.entries[key] = RepositoryError(str(exc), hint=hint)
        return _value(self.memo.entries[key])

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
        if commit not in self.memo.full_trees:
            self.memo.full_trees[commit] = {e.path: e for e in self.repo.tree_entries(commit, ())}
        entry = self.memo.full_trees[commit].get(path)
        return entry if entry is not None and entry.mode in MODE_FILE else None

    def text(self, blob: str, path: str, commit: str | None = None) -> documents.VersionText:
        """The active extractor's text of a blob read as `path` (the extension picks the extractor).

        A text file is decoded in the encoding the index recorded for the blob (its identity
        names it); without an index, in the one the `.gitattributes` of `commit` declare.
        """
        encoding = self.encoding(blob, path, commit)
        key = (blob, _extension(path), encoding)
        if key not in self.memo.texts:
            try:
                self.memo.texts[key] = documents.version_text(self.repo, blob, path, self.limits, encoding)
            except documents.DocumentUnavailable as exc:
                cause = exc.__cause__
                if isinstance(cause, PinciteError):
                    self.memo.texts[key] = ExtractionError(f"{cause.message} (blob {blob[:12]})", hint=cause.hint)
                else:
                    self.memo.texts[key] = ExtractionError(f"{path} (blob {blob[:12]}): {exc}")
        return _value(self.memo.texts[key])

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
        key = version_key(version)
        if key not in self.memo.line_indexes:
            self.memo.line_indexes[key] = LineIndex(version.text)
        return self.memo.line_indexes[key]

    def corpus_entries(self, commit: str) -> list[TreeEntry]:
        """Every tree entry under the corpus roots at `commit`."""
        if commit not in self.memo.corpus_trees:
            self.memo.corpus_trees[commit] = self.repo.tree_entries(commit, self.config.roots)
        return self.memo.corpus_trees[commit]

    def normalized(self, version: documents.VersionText) -> tuple[str, list[int]]:
        """The version's text as quote matching sees it, with its offset map (text.normalize)."""
        key = version_key(version)
        if key not in self.memo.normalized:
            self.memo.normalized[key] = normalize_for_match(version.text)
        return self.memo.normalized[key]

    def path_change(self, old_commit: str, new_commit: str, path: str) -> PathChange:
        """What became of `path` between two commits (renames followed), once per (commits, path)."""
        key = (old_commit, new_commit, path)
        if key not in self.memo.changes:
            change = self.repo.changes_between(old_commit, new_commit).get(path)
            if change is None:
                blob = self.entry(old_commit, path).sha
                change = PathChange("unchanged", path, blob, blob)
            self.memo.changes[key] = change
        return self.memo.changes[key]

    def prefetch_hunks(self, citations: Iterable[Citation], target: str) -> None:
        """Diff every (cited blob, blob at the target) pair of the text documents cited, in one git diff.

        Only an optimisation for many citations: whatever it does not cover, `hunks` diffs
        blob by blob, and both give git's diff of the same two blobs with the same options.
        Where each cited path leads is read from the indexed history, its renames detected for all
        citations in a few git processes; pairs outside it are left to `verify`, which asks git.
        """
        cited: list[tuple[Citation, str, str]] = []
        for citation in citations:
            try:
                cited.append((citation, self.commit(citation.commit), safe_repo_path(citation.path)))
            except PinciteError:
                continue
        history = self.path_intervals()
        if history is not None:
            prefetch_renames(history, self.repo, ((commit, path, target) for _c, commit, path in cited))
        followed: list[tuple[Citation, Lineage]] = []
        outside: dict[str, set[str]] = {}  # pinned commit -> paths the index cannot follow
        for citation, commit, path in cited:
            try:
                lineage = self.lineage(commit, path, target)
            except PinciteError:
                continue
            if lineage is None:
                outside.setdefault(commit, set()).add(path)
            elif lineage.blob and lineage.path and _text_class(path) and _text_class(lineage.path):
                followed.append((replace(citation, commit=commit, path=path), lineage))
        # Where a walk left the indexed documents, the text at the target is read as declared there.
        self.read_declarations(
            target,
            (
                lineage.path
                for _c, lineage in followed
                if lineage.path and not self.recorded_identities(lineage.blob or "")
            ),
        )
        self._diff_pairs((self.entry(c.commit, c.path).sha, lineage.blob or "") for c, lineage in followed)
        # The drifted ones name the commit that changed them: diff their steps now, in one go too.
        self._diff_pairs(
            (step.old_blob, step.new_blob)
            for citation, lineage in followed
            if self._drifts(citation, lineage)
            for step in lineage.steps
            if step.new_blob is not None
        )
        for commit, paths in outside.items():
            self._prefetch_by_commit(commit, paths, target)

    def _diff_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """git's hunks of many (old blob, new blob) text pairs, a few processes in all."""
        ordered = sorted({pair for pair in pairs if pair not in self.memo.hunks})
        for start in range(0, len(ordered), PREFETCH_BATCH):
            batch = ordered[start : start + PREFETCH_BATCH]
            # A pair the batch leaves out (binary for git) is diffed on its own by `hunks` later.
            self.memo.hunks.update(self.repo.diff_blob_pairs(batch))

    def _drifts(self, citation: Citation, lineage: Lineage) -> bool:
        """Whether the prefetched diff of the cited blob and its blob at the target touches the cited lines."""
        try:
            resolved = self.resolve(citation)
        except PinciteError:
            return False
        hunks = self.memo.hunks.get((resolved.blob, lineage.blob or ""), [])
        return relocate_lines(*resolved.lines, hunks)[0] == DRIFTED

    def _prefetch_by_commit(self, commit: str, paths: set[str], target: str) -> None:
        """Without the index: one diff of the two commits for all the text documents cited at `commit`."""
        changes = self.repo.changes_between(commit, target)
        wanted: set[str] = set()
        for path in paths:
            change = changes.get(path)
            if change is None or change.new_path is None or change.status not in ("modified", "renamed"):
                continue
            if _text_class(path) and _text_class(change.new_path):
                wanted |= {path, change.new_path}
        if len(wanted) > 2:  # for one file, `hunks` costs the same single process
            self.memo.hunks.update(self.repo.diff_commit_paths(commit, target, sorted(wanted)))

    def hunks(self, old: documents.VersionText, new: documents.VersionText) -> list[Hunk]:
        """Zero-context hunks of git's diff between two versions' texts."""
        return self.blob_hunks(self._text_blob(old), self._text_blob(new))

    def blob_hunks(self, old_blob: str, new_blob: str) -> list[Hunk]:
        """Zero-context hunks of git's diff between two blobs holding texts."""
        if (old_blob, new_blob) not in self.memo.hunks:
            self.memo.hunks[(old_blob, new_blob)] = self.repo.diff_blobs(old_blob, new_blob)
        return self.memo.hunks[(old_blob, new_blob)]

    def diffs_as_committed(self, resolved: Resolved, blob: str) -> bool:
        """Whether `blob` as committed is its text in the citation's offset space, so git diffs it unread.

        True for UTF-8 text the index recorded under the cited identity: that text is the blob's
        own bytes decoded, and `hunks` of the text would diff this very blob.
        """
        return documents.diffs_committed_blob(resolved.source_class, resolved.identity) and (
            resolved.identity in self.recorded_identities(blob)
        )

    def _text_blob(self, version: documents.VersionText) -> str:
        key = version_key(version)
        if key not in self.memo.text_blobs:
            self.memo.text_blobs[key] = documents.text_blob(self.repo, version)
        return self.memo.text_blobs[key]

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
        key = (pinned, path, target)
        if key not in self.memo.lineages:
            history = self.path_intervals()
            self.memo.lineages[key] = follow(history, self.repo, pinned, path, target) if history else None
        return self.memo.lineages[key]

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
        """The identity the active extractor for `path` has (None when it is not installed)."""
        extractor = extract_mod.extractor_for(path, self.encoding(blob, path, commit))
        return extractor.identity() if extractor.available() else None

    def text_under(self, blob: str, path: str, identity: str, commit: str | None = None) -> documents.VersionText:
        """The text of `blob` under exactly extractor `identity`, or an error naming it and the active one.

        The active extractor's text when it has that identity; otherwise the text the index or
        the extraction cache holds for (blob, identity) — never another extractor's output.
        """
        active = self.active_identity(blob, path, commit)
        if identity == active:
            return self.text(blob, path, commit)
        key = (blob, identity)
        if key not in self.memo.pinned_texts:
            found = documents.recorded_text(self.repo, self.index(), blob, path, identity)
            self.memo.pinned_texts[key] = found or ExtractionError(
                f"{path} (blob {blob[:12]}) is cited in the text of extractor {identity!r}, which neither the "
                f"index nor the extraction cache holds, and the active one is {active or 'not installed'!r}",
                hint="their offsets differ: rebuild with the recorded extractor version installed, or re-cite",
            )
        return _value(self.memo.pinned_texts[key])

    def cited_identity(self, citation: Citation, path: str, commit: str, blob: str) -> str | None:
        """The identity whose text `citation` counts offsets in; None: the active one (a citation naming none).

        Raises when the citation names an identity nothing here knows, or names none while the
        index recorded several for the blob (which one was it made under cannot be told).
        """
        where = f"{path} at {commit[:12]}"
        recorded = self.recorded_identities(blob)
        token = citation.identity_token
        if token is None:
            if len(recorded) > 1 and extract_mod.extractor_for(path).source_class != "text":
                named = ", ".join(f"{i!r} (x={identity_token(i)})" for i in recorded)
                raise ExtractionError(
                    f"{where} was indexed under {len(recorded)} extractor identities ({named}) "
                    "and the citation does not say which one its offsets count",
                    hint="add the one it was made under (;x=TOKEN, or &x=TOKEN in a permalink), or re-cite it",
                )
            return None
        active = self.active_identity(blob, path, commit)
        known = dict.fromkeys([*recorded, *([active] if active else [])])
        matches = [i for i in known if names_identity(token, i)]
        if not matches:
            matches = [i for i in documents.cached_identities(self.repo, blob) if names_identity(token, i)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise ExtractionError(
                f"{where}: extractor identity x={token} could be any of {', '.join(map(repr, matches))}",
                hint="write more hex digits of the identity's token",
            )
        named = ", ".join(f"{i!r} (x={identity_token(i)})" for i in known) or "none"
        raise ExtractionError(
            f"{where} is cited in the text of extractor identity x={token}, which neither the index nor the "
            f"extraction cache holds; known here: {named}",
            hint="their offsets differ: rebuild with the extractor version the citation was made with, or re-cite",
        )

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
        self._reader, self._reader_tried, self._intervals = None, False, None

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
        cited = self.cited_identity(citation, path, commit, entry.sha)
        if cited is not None:
            version = self.text_under(entry.sha, path, cited, commit)
        else:
            version = self.text(entry.sha, path, commit)
            recorded = self.recorded_identity(entry.sha)
            if recorded is not None and recorded != version.extracted.identity:
                raise ExtractionError(
                    f"{path} at {commit[:12]} was indexed with extractor {recorded!r} but the active one is "
                    f"{version.extracted.identity!r}",
                    hint="their offsets differ: install the recorded extractor version, or re-cite against a new build",
                )
        identity = version.extracted.identity
        index = self.line_index(version)
        span = _span_of(citation, version.text, index)
        # A citation by lines covers the lines it names, a final empty line included: its span
        # alone cannot say so (an empty last line adds no character), so keep the range as cited.
        first, last = citation.lines if citation.lines is not None else index.lines_of_span(span)
        l1, c1 = index.column_of(span.start)
        l2, c2 = index.column_of(span.end)
        # An extracted document's citation always names the identity it resolved in.
        named = cited is not None or version.extracted.source_class != "text"
        token = identity_token(identity) if named else None
        canonical = replace(citation, commit=commit, path=path, blob=entry.sha, identity_token=token)
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


def _value(cached: _T | PinciteError) -> _T:
    if isinstance(cached, PinciteError):
        # Raised afresh: re-raising the instance would extend its traceback (and keep every frame
        # of every earlier raise alive) each time, so a long-running server would grow without end.
        raise cached.with_traceback(None)
    return cached
