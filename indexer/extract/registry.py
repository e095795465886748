"""Extractor registry: which extractor reads a file, chosen by its extension.

The PDF and HTML extractors are always registered; their libraries are imported only when a
document is extracted, so registering them costs nothing when the extras are not installed.
"""

from __future__ import annotations

from indexer.errors import ExtractionError
from indexer.extract.base import ExtractedText, Extractor, Limits
from indexer.extract.html import HtmlExtractor
from indexer.extract.pdf import PdfExtractor
from indexer.extract.text import TextExtractor

_REGISTRY: list[Extractor] = [HtmlExtractor(), PdfExtractor(), TextExtractor()]


def register(extractor: Extractor) -> None:
    """Make `extractor` the active one for its extensions (ahead of any registered before)."""
    _REGISTRY.insert(0, extractor)


def unregister(extractor: Extractor) -> None:
    """Undo `register`: the extractor registered before it for the same extensions is active again."""
    _REGISTRY.remove(extractor)


def registered() -> list[Extractor]:
    """Every registered extractor, active ones first."""
    return list(_REGISTRY)


def extractor_for(path: str) -> Extractor | None:
    """The extractor for a path by its extension, or None when pincite does not index it."""
    lower = path.lower()
    for extractor in _REGISTRY:
        if lower.endswith(extractor.extensions):
            return extractor
    return None


def extract(data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
    """The active extractor's text of `data` (the bytes of the file at `path`), within `limits`."""
    extractor = extractor_for(path)
    if extractor is None:
        raise ExtractionError(f"{path}: no extractor for this file type")
    if not extractor.available():
        raise ExtractionError(f"{path}: the {extractor.name} extractor is not installed", hint=extractor.install_hint)
    limits = limits or Limits()
    if len(data) > limits.max_bytes and extractor.source_class != "text":
        raise ExtractionError(
            f"{path}: oversized ({len(data)} bytes, more than max_file_bytes = {limits.max_bytes})",
            hint="raise max_file_bytes in pincite.toml if the file should be indexed",
        )
    return extractor.extract(data, path, limits)


__all__ = ["ExtractedText", "Extractor", "Limits", "extract", "extractor_for", "register", "registered", "unregister"]
