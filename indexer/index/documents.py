"""The text of one document version, however it is obtained.

Everything that needs a version's text (resolve, verify, quote checks, the site) goes
through `version_text`, so the text-class policy, extractor identities and the extraction
cache live in one place.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from indexer.errors import ExtractionError, PinciteError
from indexer.extract import cache as extract_cache
from indexer.extract.registry import ExtractedText, Limits, extractor_for
from indexer.extract.text import encoding_of, passage_format
from indexer.index.store import IndexReader
from indexer.text.chunk import cut_key
from indexer.text.kinds import is_snapshot
from indexer.text.model import UTF8
from indexer.vcs.repo import MODE_FILE, GitRepo, TreeEntry


@dataclass(frozen=True)
class VersionText:
    """One version of a document with its text (from the index, the cache or a fresh extraction)."""

    path: str
    blob: str
    extracted: ExtractedText

    @property
    def text(self) -> str:
        return self.extracted.text


def version_form(path: str, identity: str, max_chars: int) -> str:
    """What shapes a version's row besides its blob and extractor identity, all of it decided by
    the path and the settings: the format its passages are cut in (`chunk.cut_key`, with
    `passage_max_chars`) and whether it is a snapshot (its source class).

    The text is the same at every path; the passages, the title and the rendered view are not,
    so the index keeps a row per (blob, identity, form): a blob at a `.txt` and at a `.md` path
    is two rows, each cut as its path says, whichever path a build meets first.
    """
    form = cut_key(passage_format(path, identity), max_chars)
    return form + ";snapshot" if is_snapshot(path) else form


class DocumentUnavailable(Exception):
    """The exact text of a document version cannot be established (the reason says why)."""


def entry_at(repo: GitRepo, commit: str, path: str) -> TreeEntry:
    entry = repo.blob_at(commit, path)
    if entry is None:
        raise DocumentUnavailable(f"{path} does not exist at {commit[:12]}")
    if entry.mode == "tree":
        raise DocumentUnavailable(f"{path} is a folder at {commit[:12]}, not a document")
    if entry.mode not in MODE_FILE:
        raise DocumentUnavailable(f"{path} is not a regular file at {commit[:12]} (mode {entry.mode})")
    return entry


def version_text(
    repo: GitRepo, blob: str, path: str, limits: Limits | None = None, encoding: str = UTF8
) -> VersionText:
    """The active extractor's text of `blob` (read as the file at `path`, in its declared `encoding`).

    Within `limits`; without them, the repository's configured ones apply.

    Extracted text comes from the cache keyed by (blob, extractor identity) when it is
    there (indexer.extract.cache), so diffs and re-resolution do not re-extract.
    """
    try:
        extracted = extract_cache.cached_extract(repo, blob, path, limits, encoding=encoding)
    except ExtractionError as exc:
        raise DocumentUnavailable(str(exc)) from exc
    return VersionText(path, blob, extracted)


def text_at(repo: GitRepo, commit: str, path: str) -> VersionText:
    """The text `path` had at `commit`."""
    return version_text(repo, entry_at(repo, commit, path).sha, path)


def text_blob(repo: GitRepo, version: VersionText) -> str:
    """A git blob holding the version's text, so git can diff what pincite indexed.

    For UTF-8 text that is the committed blob itself; for extracted text, and for text in a
    declared encoding, it is the text written as UTF-8 with `git hash-object -w`
    (docs/design.md#techniques: git diffs blobs we write ourselves, so `verify` sees exactly
    git's diff of the indexed text, and its hunks hold text rather than undecoded bytes).
    """
    if diffs_committed_blob(version.extracted.source_class, version.extracted.identity):
        return version.blob
    return repo.hash_object(version.text.encode("utf-8"))


def diffs_committed_blob(source_class: str, identity: str) -> bool:
    """Whether git diffs a version's committed blob as its text: true for UTF-8 text only."""
    return source_class == "text" and encoding_of(identity) == UTF8


def recorded_text(
    repo: GitRepo, reader: IndexReader | None, blob: str, path: str, identity: str, max_chars: int
) -> VersionText | None:
    """The text of `blob` under exactly `identity`, from the index or the extraction cache; None when neither has it.

    This is how a citation made under an older extractor identity resolves after an upgrade:
    never by extracting again with another extractor, whose offsets differ. The index's row of
    the form `path` gives it (`version_form`, under `max_chars`) is taken when there is one: its
    title is this path's. The source class is the path's whichever row gives the text (a row of
    another form may be another path's, a snapshot's or not).
    """
    form = version_form(path, identity, max_chars)
    row = reader.version_under(blob, identity, form) if reader is not None else None
    if row is not None and row.text is not None:
        extracted = ExtractedText(
            text=row.text,
            source_class=source_class_at(path, identity),
            identity=identity,
            title=row.title,
            page_starts=row.page_starts,
            notes=row.notes,
            is_markdown=row.is_markdown,
        )
        return VersionText(path, blob, extracted)
    cached = extract_cache.cached_text(repo.root, blob, identity)
    if cached is None:
        return None
    return VersionText(path, blob, dataclasses.replace(cached, source_class=source_class_at(path, identity)))


def source_class_at(path: str, identity: str) -> str:
    """The source class a version of `identity` has at `path`, as the build records it
    (`prepare.extract_and_chunk`): a snapshot under the snapshot root, else its extractor's."""
    if is_snapshot(path):
        return "snapshot"
    return extractor_for(path, encoding_of(identity) or UTF8).source_class


def cached_identities(repo: GitRepo, blob: str) -> list[str]:
    """The extractor identities the repository's extraction cache holds a text of `blob` under."""
    return extract_cache.cached_identities(repo.root, blob)


def recorded_identities(index_path: Path) -> dict[str, tuple[str, ...]]:
    """Blob SHA -> the extractor identities the index at `index_path` recorded for it, oldest first.

    Empty when there is no readable index: the index is a cache, and a citation's text is
    still established from git objects without it.
    """
    try:
        reader = IndexReader(index_path)
    except PinciteError:
        return {}
    try:
        return reader.identities_by_blob()
    finally:
        reader.close()
