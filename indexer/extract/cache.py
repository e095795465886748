"""Extracted text cached by (blob SHA, extractor identity), so diffs and rebuilds do not re-extract.

A blob's bytes never change and an identity names everything that decides the output, so
an entry never goes stale; a new library version is a new identity and simply misses.
Entries are JSON files under `.pincite/cache/extract/` in the repository (`.pincite/`
ignores itself in git). Each stores a SHA-256 of its text and is re-checked when read: a
damaged entry is ignored and the blob extracted again, never trusted. The text class is
not cached: reading its blob is as cheap as reading an entry. A read-only repository
(`GitRepo(read_only=True)`) reads the cache but never adds to it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from indexer.config import load_config
from indexer.errors import ExtractionError
from indexer.extract import registry as extract_mod
from indexer.extract.registry import ExtractedText, Limits
from indexer.files import atomic_write
from indexer.state import make_parent
from indexer.text.model import UTF8
from indexer.vcs.repo import GitRepo

CACHE_DIR = Path(".pincite/cache/extract")


def blob_sha(data: bytes) -> str:
    """The SHA git gives `data` as a blob (what `git hash-object` prints), without running git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def limits_for(root: Path | None) -> Limits:
    """The extraction limits configured for the repository at `root` now (the defaults without one).

    Read afresh on each call: callers that extract many documents pass their own `Limits`.
    """
    return Limits.from_config(load_config(root)) if root is not None else Limits()


def cached_extract(
    repo: GitRepo, blob: str, path: str, limits: Limits | None = None, encoding: str = UTF8
) -> ExtractedText:
    """The active extractor's text of `blob` read as the file at `path`, from the cache when present.

    `encoding` is the one declared for a text file (indexer.extract.attributes). A read-only
    repository (the MCP server's) reads the cache but adds nothing to it.
    """
    read = lambda: repo.read_blob(blob)  # noqa: E731
    return extract_bytes(repo.root, blob, read, path, limits, encoding, store=not repo.read_only)


def extract_bytes(
    root: Path | None,
    blob: str,
    read: Callable[[], bytes],
    path: str,
    limits: Limits | None = None,
    encoding: str = UTF8,
    *,
    store: bool = True,
) -> ExtractedText:
    """Like `cached_extract` for callers that hold the bytes (`read()` returns them); `root=None`: no cache.

    With `store` false the cache is read but a new extraction is not written to it.
    """
    extractor = extract_mod.extractor_for(path, encoding)
    if extractor.source_class == "text" or not extractor.available() or root is None:
        return extract_mod.extract(read(), path, limits or limits_for(root), encoding)
    limits = limits or limits_for(root)
    # A PDF's text may be recorded under its OCR configuration's identity or without one (when
    # every page has text); an entry under either is exactly what extracting now would give.
    identities = extractor.identities(limits)
    for identity in identities:
        cached = _load(_entry_path(root, blob, identity), blob, identity)
        if cached is not None:
            return cached
    extracted = extract_mod.extract(read(), path, limits)
    if extracted.identity not in identities:  # pragma: no cover - an extractor whose identity is not stable
        raise ExtractionError(
            f"{path}: extractor identity changed during extraction ({' or '.join(identities)} -> {extracted.identity})"
        )
    if store:
        _store(root, _entry_path(root, blob, extracted.identity), blob, extracted)
    return extracted


def cached_text(root: Path, blob: str, identity: str) -> ExtractedText | None:
    """The cached text of `blob` under exactly `identity`, whatever extractor is active now; None if absent."""
    return _load(_entry_path(root, blob, identity), blob, identity)


def cached_identities(root: Path, blob: str) -> list[str]:
    """Every extractor identity the cache holds a text of `blob` under (entries are checked when read)."""
    found = []
    for entry in sorted((root / CACHE_DIR).glob(f"*/{blob[:2]}/{blob}.json")):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            identity = str(json.loads(entry.read_text(encoding="utf-8"))["identity"])
            if _entry_path(root, blob, identity) == entry:
                found.append(identity)
    return found


def _entry_path(root: Path, blob: str, identity: str) -> Path:
    key = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
    return root / CACHE_DIR / key / blob[:2] / f"{blob}.json"


def _load(entry: Path, blob: str, identity: str) -> ExtractedText | None:
    try:
        record = json.loads(entry.read_text(encoding="utf-8"))
        text = record["text"]
        if record["blob"] != blob or record["identity"] != identity or _digest(text) != record["sha256"]:
            return None
        return ExtractedText(
            text=text,
            source_class=record["source_class"],
            identity=identity,
            title=record["title"],
            page_starts=tuple(int(n) for n in record["page_starts"]),
            notes=tuple(str(n) for n in record["notes"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(root: Path, entry: Path, blob: str, extracted: ExtractedText) -> None:
    record = {
        "blob": blob,
        "identity": extracted.identity,
        "sha256": _digest(extracted.text),
        "source_class": extracted.source_class,
        "title": extracted.title,
        "page_starts": list(extracted.page_starts),
        "notes": list(extracted.notes),
        "text": extracted.text,
    }
    # The cache only saves time: a read-only or full disk must not fail the caller.
    with contextlib.suppress(OSError):
        make_parent(entry)
        atomic_write(entry, json.dumps(record, ensure_ascii=False).encode("utf-8"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
