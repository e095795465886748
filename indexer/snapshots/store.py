"""URL snapshots: a fetched page committed under `snapshots/` with its metadata.

A snapshot is the body exactly as received (after HTTP content decoding) at a stable
path derived from the URL, `snapshots/<host>/<slug>-<hash8>.<ext>`, with its metadata
beside it at `<body path>.meta.json`. Refreshing a URL commits the new body to the same
path, so a page's drift is what `git diff` reports (docs/design.md#d6 and docs/design.md#d7). Nothing
outside `snapshot` and `refresh` fetches: build, resolve and verify read the commits.

Files are written to a temporary name and renamed into place, and the commit is made
from blobs in a temporary index: a failed or interrupted run leaves no partial file, and
a failure after the files were written restores what was there before.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlsplit

from indexer import __version__
from indexer.extract import registry as extract_mod
from indexer.index.documents import DocumentUnavailable, text_blob, version_text
from indexer.files import atomic_write
from indexer.text import charsets
from indexer.text.kinds import SNAPSHOT_META_SUFFIX, SNAPSHOT_ROOT, is_snapshot, is_snapshot_meta
from indexer.errors import FetchError, PinciteError, RepositoryError, UsageError
from indexer.vcs.repo import GitRepo
from indexer.snapshots.netaddr import canonical_url
from indexer.snapshots.guard import ALLOWED_TYPES, Connector, FetchedPage, FetchLimits, Resolver, fetch
from indexer.shapes import DiffstatJson, SnapshotResultJson

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs startup time
    from indexer.shapes import SnapshotJson

META_SUFFIX = SNAPSHOT_META_SUFFIX
_SLUG_MAX = 60
_PAGE_SUFFIX = re.compile(r"\.(?:html?|xhtml|php|aspx?|jsp|md|markdown|txt|pdf)$", re.IGNORECASE)
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Labels browsers read as windows-1252 (WHATWG Encoding), as the HTML extractor does.


@dataclass(frozen=True)
class SnapshotMeta:
    """What `<body path>.meta.json` records about one fetch."""

    url: str
    final_url: str
    fetched_at: str
    status: int
    content_type: str
    charset: str | None
    size: int
    sha256: str
    resolved_ip: str
    pincite_version: str
    extractor: str | None
    etag: str | None = None
    last_modified: str | None = None
    content_language: str | None = None
    path: str = ""  # the body's repository path (not stored: it is where the file is)

    def to_json(self) -> SnapshotJson:
        data = asdict(self)
        del data["path"]
        return cast("SnapshotJson", data)

    def dumps(self) -> bytes:
        return (json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def loads(cls, data: bytes, path: str) -> SnapshotMeta:
        try:
            raw = json.loads(data.decode("utf-8"))
            known = {k: raw[k] for k in cls.__dataclass_fields__ if k in raw and k != "path"}
            return cls(**known, path=path)
        except (ValueError, TypeError) as exc:
            raise RepositoryError(
                f"{path}{META_SUFFIX}: not valid snapshot metadata ({exc})",
                hint="restore it from git history, or snapshot the URL again",
            ) from exc


@dataclass(frozen=True)
class SnapshotResult:
    """What happened to one URL: `new`, `changed`, `unchanged` or `failed`."""

    url: str
    status: str
    path: str = ""
    sha256: str = ""
    size: int = 0
    commit: str | None = None
    reason: str = ""
    diffstat: tuple[int, int] | None = None  # lines (added, removed) of the extracted text
    warnings: tuple[str, ...] = field(default=())

    def to_json(self) -> SnapshotResultJson:
        diffstat: DiffstatJson | None = None
        if self.diffstat is not None:
            diffstat = {"added": self.diffstat[0], "removed": self.diffstat[1]}
        return {
            "url": self.url,
            "status": self.status,
            "path": self.path,
            "sha256": self.sha256,
            "size": self.size,
            "commit": self.commit,
            "reason": self.reason,
            "diffstat": diffstat,
            "warnings": list(self.warnings),
        }

    def summary(self) -> str:
        """One line for people: the status, the URL, where it went and what was committed."""
        if self.status == "failed":
            return f"failed     {self.url}: {self.reason} (the old snapshot is kept)"
        where = f"committed {self.commit[:12]}" if self.commit else "not committed"
        if self.status == "unchanged":
            where = "nothing to commit"
        stat = ""
        if self.diffstat is not None:
            stat = f", text +{self.diffstat[0]} -{self.diffstat[1]} lines"
        return f"{self.status:<10} {self.url} -> {self.path} (sha256 {self.sha256[:12]}{stat}; {where})"


@dataclass(frozen=True)
class FetchOptions:
    """How `snapshot` and `refresh` fetch; tests inject a resolver and a connector."""

    allow_private: bool = False
    limits: FetchLimits | None = None
    resolver: Resolver | None = None
    connector: Connector | None = None


# -- paths -------------------------------------------------------------------------------
def snapshot_path(url: str, extension: str) -> str:
    """`snapshots/<host>/<slug>-<hash8>.<ext>`: the same URL (fragment aside) always maps here."""
    canonical = canonical_url(url)
    parts = urlsplit(canonical)
    host = (parts.hostname or "host").replace(":", "-")
    if not host.strip("."):  # "." or ".." as a folder name would leave snapshots/
        host = "host"
    if parts.port is not None:
        host = f"{host}_{parts.port}"
    slug = re.sub(r"[^a-z0-9._]+", "-", unquote(parts.path).lower())
    slug = _PAGE_SUFFIX.sub("", slug.strip("-._"))[:_SLUG_MAX].strip("-._") or "index"
    return f"{SNAPSHOT_ROOT}/{host}/{slug}-{url_hash(canonical)}.{extension}"


def url_hash(url: str) -> str:
    """First 8 hex digits of the SHA-256 of the canonical URL (no fragment)."""
    return hashlib.sha256(canonical_url(url).encode("utf-8")).hexdigest()[:8]


def _candidate_paths(url: str) -> list[str]:
    return [snapshot_path(url, ext) for ext in dict.fromkeys(ALLOWED_TYPES.values())]


# -- reading snapshots back ---------------------------------------------------------------
def snapshot_provenance(repo: GitRepo | Path | str, commit: str, path: str) -> SnapshotMeta | None:
    """The metadata of the snapshot at `path` in `commit`, or None when `path` is no snapshot."""
    git = repo if isinstance(repo, GitRepo) else GitRepo(repo)
    if not is_snapshot(path) or is_snapshot_meta(path):
        return None
    entry = git.blob_at(commit, path + META_SUFFIX)
    if entry is None or entry.mode == "tree":
        return None
    return SnapshotMeta.loads(git.read_blob(entry.sha), path)


def list_snapshots(repo: GitRepo | Path | str, commit: str = "HEAD") -> list[SnapshotMeta]:
    """Every snapshot committed at `commit`, by path."""
    git = repo if isinstance(repo, GitRepo) else GitRepo(repo)
    if not git.has_commits():
        return []
    sha = git.resolve_commit(commit)
    found = []
    for entry in git.tree_entries(sha, (SNAPSHOT_ROOT,)):
        if entry.path.endswith(META_SUFFIX):
            body = entry.path[: -len(META_SUFFIX)]
            found.append(SnapshotMeta.loads(git.read_blob(entry.sha), body))
    return sorted(found, key=lambda meta: meta.path)


def _existing(git: GitRepo, url: str) -> SnapshotMeta | None:
    if not git.has_commits():
        return None
    head = git.resolve_commit("HEAD")
    for candidate in _candidate_paths(url):
        meta = snapshot_provenance(git, head, candidate)
        if meta is not None:
            return meta
    return None


# -- taking snapshots ---------------------------------------------------------------------
def snapshot(
    urls: list[str] | tuple[str, ...],
    repo: GitRepo | Path | str = ".",
    message: str | None = None,
    commit: bool = True,
    allow_private: bool = False,
    *,
    options: FetchOptions | None = None,
) -> list[SnapshotResult]:
    """Fetch every URL, then store and commit each (one commit per URL).

    Every page is fetched and every target path checked before the first file is written,
    so a failed or refused fetch, or a snapshot file with local edits, stores nothing.
    """
    git = repo if isinstance(repo, GitRepo) else GitRepo(repo)
    options = options or FetchOptions(allow_private=allow_private)
    pages: dict[str, FetchedPage] = {}
    for url in urls:
        key = canonical_url(url)  # URLs that differ by fragment only are one snapshot
        if key not in pages:
            pages[key] = _fetch(git, url, options)
    _refuse_dirty(git, [p for page in pages.values() for p in _paths_of(page)])
    return [_store(git, page, _existing(git, page.url), message, commit) for page in pages.values()]


def _paths_of(page: FetchedPage) -> list[str]:
    body = snapshot_path(page.url, page.extension)
    return [body, body + META_SUFFIX]


def refresh(
    urls: list[str] | tuple[str, ...] = (),
    repo: GitRepo | Path | str = ".",
    all_snapshots: bool = False,
    message: str | None = None,
    commit: bool = True,
    allow_private: bool = False,
    *,
    options: FetchOptions | None = None,
) -> list[SnapshotResult]:
    """Re-fetch URLs (or every snapshot at HEAD); commit what changed, keep what failed."""
    git = repo if isinstance(repo, GitRepo) else GitRepo(repo)
    options = options or FetchOptions(allow_private=allow_private)
    wanted = list(urls)
    if all_snapshots:
        wanted += [meta.url for meta in list_snapshots(git)]
    if not wanted and not all_snapshots:
        raise UsageError("nothing to refresh", hint="name URLs, or pass --all to refresh every snapshot")
    results: list[SnapshotResult] = []
    seen: set[str] = set()
    for url in wanted:
        try:
            key = canonical_url(url)
            if key in seen:
                continue
            seen.add(key)
            page = _fetch(git, url, options)
            results.append(_store(git, page, _existing(git, url), message, commit))
        except PinciteError as exc:
            results.append(SnapshotResult(url=url, status="failed", reason=str(exc)))
    return results


def _fetch(git: GitRepo, url: str, options: FetchOptions) -> FetchedPage:
    from indexer.config import load_config

    limits = options.limits
    if limits is None:
        config = load_config(git.root)
        limits = FetchLimits(
            max_bytes=config.fetch_max_bytes,
            connect_timeout=min(10.0, config.fetch_timeout_seconds),
            read_timeout=min(15.0, config.fetch_timeout_seconds),
            total_timeout=config.fetch_timeout_seconds,
        )
    page = fetch(
        url,
        allow_private=options.allow_private,
        limits=limits,
        resolver=options.resolver,
        connector=options.connector,
    )
    problem = unreadable_charset(page.body, page.media_type, page.charset, snapshot_path(url, page.extension))
    if problem:
        raise FetchError(
            f"{page.final_url}: {problem}; nothing was stored",
            hint="pincite reads a snapshot from its committed bytes alone; ask the site for a UTF-8 "
            "version, or save the page with its charset declared inside and commit it under corpus/",
        )
    return page


def unreadable_charset(body: bytes, media_type: str, charset: str | None, path: str) -> str | None:
    """Why the committed bytes alone would not give the characters the server sent, or None.

    The extractors read a snapshot without its HTTP headers: text and Markdown as UTF-8,
    HTML by BOM, then `<meta charset>`, then UTF-8. When the header's charset gives other
    characters than that reading, the text read back would be wrong, so the page is refused.
    """
    if media_type == "application/pdf":
        return None
    is_html = ALLOWED_TYPES.get(media_type) == "html"
    if charset is not None and not body.startswith(_BOMS):  # a byte-order mark outranks the header
        declared = charsets.lookup(charset)
        if declared is None:
            return f"{charset!r}, the charset its HTTP header declares, is not one browsers know"
        try:
            sent: str | None = declared.decode(body)
        except UnicodeDecodeError:
            return f"the body is not valid {charset}, the charset its HTTP header declares"
    else:
        sent = None
    try:
        read_back = _decode_as_extractor(body, path) if is_html else body.decode("utf-8")
    except (UnicodeDecodeError, PinciteError):
        read_back = None
    if read_back is None:
        said = f"declared as {charset} in the HTTP header only" if charset else "no charset declared"
        return f"the {media_type} body cannot be read back from its bytes ({said})"
    if sent is not None and sent.removeprefix("\ufeff") != read_back.removeprefix("\ufeff"):
        return f"the page is {charset} by its HTTP header, but its bytes alone read differently"
    return None


def _decode_as_extractor(body: bytes, path: str) -> str:
    from indexer.extract.html import decode_html

    return decode_html(body, path)[0]


def _store(
    git: GitRepo, page: FetchedPage, previous: SnapshotMeta | None, message: str | None, commit: bool
) -> SnapshotResult:
    body_path = snapshot_path(page.url, page.extension)
    if previous is not None and previous.sha256 == page.sha256 and previous.path == body_path:
        return SnapshotResult(page.url, "unchanged", body_path, page.sha256, len(page.body), None)
    meta = _meta_for(page, body_path)
    files: dict[str, bytes | None] = {body_path: page.body, body_path + META_SUFFIX: meta.dumps()}
    if previous is not None and previous.path != body_path:  # the page changed type: html -> pdf
        files[previous.path] = None
        files[previous.path + META_SUFFIX] = None
    _refuse_dirty(git, list(files))
    warnings = _extraction_warnings(page.body, body_path)
    commit_sha = _write_and_commit(git, files, _message(page, body_path, message) if commit else None)
    diffstat = _diffstat(git, previous, body_path, commit_sha) if previous is not None and commit_sha else None
    status = "new" if previous is None else "changed"
    return SnapshotResult(
        page.url, status, body_path, page.sha256, len(page.body), commit_sha, diffstat=diffstat, warnings=warnings
    )


def _meta_for(page: FetchedPage, body_path: str) -> SnapshotMeta:
    extractor = extract_mod.extractor_for(body_path)
    return SnapshotMeta(
        url=page.url,
        final_url=page.final_url,
        fetched_at=page.fetched_at,
        status=page.status,
        content_type=page.media_type,
        charset=page.charset,
        size=len(page.body),
        sha256=page.sha256,
        resolved_ip=page.resolved_ip,
        pincite_version=__version__,
        extractor=extractor.identity() if extractor.available() else None,
        etag=page.headers.get("etag"),
        last_modified=page.headers.get("last-modified"),
        content_language=page.headers.get("content-language"),
        path=body_path,
    )


def _extraction_warnings(body: bytes, body_path: str) -> tuple[str, ...]:
    try:
        extracted = extract_mod.extract(body, body_path)
    except PinciteError as exc:
        return (f"{body_path}: the build will skip it for now: {exc}",)
    if not extracted.text.strip():
        return (f"{body_path}: no text could be extracted from the page",)
    return ()


def _message(page: FetchedPage, body_path: str, message: str | None) -> str:
    subject = message.strip() if message and message.strip() else f"Snapshot {page.final_url}"
    return (
        f"{subject}\n\nURL: {page.url}\nsha256: {page.sha256}\nsize: {len(page.body)} bytes\n"
        f"fetched: {page.fetched_at}\npath: {body_path}\n"
    )


def _refuse_dirty(git: GitRepo, paths: list[str]) -> None:
    dirty = git.dirty_paths(tuple(paths))
    if dirty:
        raise RepositoryError(
            f"{dirty[0]} has uncommitted changes; the snapshot would overwrite them",
            hint="commit or discard them first (git status shows them)",
        )


def _write_and_commit(git: GitRepo, files: dict[str, bytes | None], message: str | None) -> str | None:
    """Put the files in place and commit them; on any failure put back what was there."""
    bare = git.run_text("rev-parse", "--is-bare-repository").strip() == "true"
    before: dict[str, bytes | None] = {}
    try:
        if not bare:
            for path, data in files.items():
                target = git.root / path
                before[path] = target.read_bytes() if target.is_file() else None
                _replace_file(target, data)
        return git.commit_files(files, message) if message is not None else None
    except BaseException:
        for path, data in before.items():
            _replace_file(git.root / path, data)
        raise


def _replace_file(target: Path, data: bytes | None) -> None:
    if data is None:
        target.unlink(missing_ok=True)
        return
    atomic_write(target, data)


def _diffstat(git: GitRepo, previous: SnapshotMeta, body_path: str, commit_sha: str) -> tuple[int, int] | None:
    """(added, removed) lines between the extracted texts, by git's own diff."""
    old_entry = git.blob_at(git.parent(commit_sha) or commit_sha, previous.path)
    new_entry = git.blob_at(commit_sha, body_path)
    if old_entry is None or new_entry is None:
        return None
    try:
        old = text_blob(git, version_text(git, old_entry.sha, previous.path))
        new = text_blob(git, version_text(git, new_entry.sha, body_path))
    except DocumentUnavailable:
        return None
    hunks = git.diff_blobs(old, new)
    return sum(h.new_count for h in hunks), sum(h.old_count for h in hunks)
