"""Extractor registry: how each document's text is obtained, and who obtained it.

Every extractor declares the extensions it handles, its source class and an *identity*
(name, pincite's extraction version, library versions, options). Offsets of an
extracted document index that extractor's output, so two identities are two offset
spaces: the index records the identity per version and resolution fails closed when the
active identity differs (DESIGN decision 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .errors import ExtractionError
from .textmodel import decode_text_blob

TEXT_EXTENSIONS = (".md", ".markdown", ".txt")


@dataclass(frozen=True)
class ExtractedText:
    text: str
    source_class: str  # "text", "extracted" or "snapshot"
    identity: str
    title: str = ""
    # Offsets where pages 2, 3, ... start (PDF only); page n spans page_starts[n-2]..
    page_starts: tuple[int, ...] = ()
    notes: tuple[str, ...] = field(default=())
    is_markdown: bool = False


class Extractor(Protocol):
    name: str
    extensions: tuple[str, ...]
    source_class: str
    install_hint: str

    def available(self) -> bool: ...

    def identity(self) -> str: ...

    def extract(self, data: bytes, path: str) -> ExtractedText: ...


class TextExtractor:
    name = "text"
    extensions: tuple[str, ...] = TEXT_EXTENSIONS
    source_class = "text"
    install_hint = ""
    VERSION = 1

    def available(self) -> bool:
        return True

    def identity(self) -> str:
        return f"text/{self.VERSION}"

    def extract(self, data: bytes, path: str) -> ExtractedText:
        text = decode_text_blob(data, path)
        is_md = path.lower().endswith((".md", ".markdown"))
        return ExtractedText(text, "text", self.identity(), is_markdown=is_md)


_REGISTRY: list[Extractor] = [TextExtractor()]


def register(extractor: Extractor) -> None:
    _REGISTRY.insert(0, extractor)


def extractor_for(path: str) -> Extractor | None:
    """The extractor for a path by its extension, or None when pincite does not index it."""
    _load_optional()
    lower = path.lower()
    for extractor in _REGISTRY:
        if lower.endswith(extractor.extensions):
            return extractor
    return None


def extract(data: bytes, path: str) -> ExtractedText:
    extractor = extractor_for(path)
    if extractor is None:
        raise ExtractionError(f"{path}: no extractor for this file type")
    if not extractor.available():
        raise ExtractionError(f"{path}: the {extractor.name} extractor is not installed", hint=extractor.install_hint)
    return extractor.extract(data, path)


_loaded = False


def _load_optional() -> None:
    """Register the PDF and HTML extractors when their modules exist (they import lazily)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for module_name, class_name in (("extract_pdf", "PdfExtractor"), ("extract_html", "HtmlExtractor")):
        try:
            module = importlib.import_module(f".{module_name}", __package__)
        except ImportError:  # the module ships with pincite; this only guards partial checkouts
            continue
        register(getattr(module, class_name)())
