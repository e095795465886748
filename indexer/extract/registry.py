"""Extractor registry: which extractor reads a file, chosen by its extension.

A name no extractor claims is read by the text extractor (docs/design.md#d15): every file
is a text document unless it is binary, which the text policy finds from its bytes.

The PDF and HTML extractors are always registered; their libraries are imported only when a
document is extracted, so registering them costs nothing when the extras are not installed.
"""

from __future__ import annotations

from indexer.errors import ExtractionError, UsageError
from indexer.extract.base import ExtractedText, Extractor, Limits
from indexer.extract.html import HtmlExtractor
from indexer.extract.pdf import PdfExtractor
from indexer.extract.text import TextExtractor
from indexer.text.model import UTF8

_REGISTRY: list[Extractor] = [HtmlExtractor(), PdfExtractor()]
_TEXT = TextExtractor()


def register(extractor: Extractor) -> None:
    """Make `extractor` the active one for its extensions (ahead of any registered before).

    An extension is the end of a file name: the build classifies the paths of one name once
    (`indexer.index.build._classified`), so an extension reaching into folders is refused."""
    if any("/" in extension for extension in extractor.extensions):
        raise UsageError(
            f"extractor {extractor.name!r}: an extension is the end of a file name, without '/'",
            hint=f"give its extensions as file-name endings, not {extractor.extensions!r}",
        )
    _REGISTRY.insert(0, extractor)


def unregister(extractor: Extractor) -> None:
    """Undo `register`: the extractor registered before it for the same extensions is active again."""
    _REGISTRY.remove(extractor)


def registered() -> list[Extractor]:
    """Every registered extractor, active ones first, the text fallback last."""
    return [*_REGISTRY, _TEXT]


def extractor_for(path: str, encoding: str = UTF8) -> Extractor:
    """The extractor for a path by its extension; the text extractor (in `encoding`) for any other name."""
    lower = path.lower()
    for extractor in _REGISTRY:
        if extractor.extensions and lower.endswith(extractor.extensions):
            return extractor
    return _TEXT if encoding == UTF8 else TextExtractor(encoding)


def extract(data: bytes, path: str, limits: Limits | None = None, encoding: str = UTF8) -> ExtractedText:
    """The active extractor's text of `data` (the bytes of the file at `path`), within `limits`.

    `encoding` is the one declared for the path (`indexer.extract.attributes`); only text reads it.
    """
    extractor = extractor_for(path, encoding)
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
