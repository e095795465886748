"""Extractor registry: how each document's text is obtained, and who obtained it.

Every extractor declares the extensions it handles, its source class and an *identity*
(name, pincite's extraction version, library versions, options). Offsets of an
extracted document index that extractor's output, so two identities are two offset
spaces: the index records the identity per version and resolution fails closed when the
active identity differs (DESIGN decision 5).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from indexer.errors import ExtractionError
from indexer.text.model import decode_text_blob

if TYPE_CHECKING:
    from indexer.config import Config

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


def importable(module: str) -> bool:
    """Whether an optional library can be imported, without importing it (imports stay lazy)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: a module blocked as None in sys.modules
        return False


@functools.cache
def library_version(distribution: str) -> str:
    """An installed distribution's version, looked up once per process (it cannot change under us)."""
    return importlib.metadata.version(distribution)


@dataclass(frozen=True)
class Limits:
    """Resource limits for extracting one document.

    Limits decide whether a document is extracted at all, never what its text is, so they
    are not part of an extractor's identity.
    """

    max_bytes: int = 20_000_000
    pdf_max_pages: int = 2000
    timeout_seconds: float = 60.0

    @classmethod
    def from_config(cls, config: Config) -> Limits:
        return cls(config.max_file_bytes, config.pdf_max_pages, config.extract_timeout_seconds)


class Extractor(Protocol):
    name: str
    extensions: tuple[str, ...]
    source_class: str
    install_hint: str

    def available(self) -> bool: ...

    def identity(self) -> str: ...

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText: ...


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

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
        text = decode_text_blob(data, path)
        is_md = path.lower().endswith((".md", ".markdown"))
        return ExtractedText(text, "text", self.identity(), is_markdown=is_md)


_REGISTRY: list[Extractor] = [TextExtractor()]


def register(extractor: Extractor) -> None:
    """Make `extractor` the active one for its extensions (ahead of any registered before)."""
    _REGISTRY.insert(0, extractor)


def unregister(extractor: Extractor) -> None:
    """Undo `register`: the extractor registered before it for the same extensions is active again."""
    _REGISTRY.remove(extractor)


def registered() -> list[Extractor]:
    """Every registered extractor, active ones first."""
    _load_optional()
    return list(_REGISTRY)


def extractor_for(path: str) -> Extractor | None:
    """The extractor for a path by its extension, or None when pincite does not index it."""
    _load_optional()
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


class _Expired(BaseException):
    """Raised from the alarm handler; a BaseException so library `except Exception` cannot swallow it."""


@dataclass(frozen=True)
class Deadline:
    path: str
    seconds: float
    at: float

    def check(self) -> None:
        """Cooperative check between units of work (pages), for threads where no alarm can fire."""
        if time.monotonic() > self.at:
            raise self.error()

    def error(self) -> ExtractionError:
        return ExtractionError(
            f"{self.path}: extraction took longer than {self.seconds:g} s (extract_timeout_seconds)",
            hint="a pathological page or document; raise extract_timeout_seconds in pincite.toml to try harder",
        )


@contextmanager
def time_limit(seconds: float, path: str) -> Iterator[Deadline]:
    """Stop extraction of one document after `seconds`.

    In the main thread a real-time alarm interrupts even one endless page (the libraries are
    pure Python or return to Python often); elsewhere only the cooperative `Deadline.check`
    applies. An alarm that was already pending (a test timeout, say) is re-armed afterwards.
    """
    started = time.monotonic()
    deadline = Deadline(path, seconds, started + seconds)
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield deadline
        return

    armed = [True]

    def on_alarm(signum: int, frame: object) -> None:
        if armed[0]:
            raise _Expired

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    # Re-fires until disarmed: an exception raised while a gc callback runs is swallowed by Python.
    previous_timer = signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
    try:
        yield deadline
    except _Expired:
        raise deadline.error() from None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_timer[0] > 0:
            remaining = previous_timer[0] - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(remaining, 0.001), previous_timer[1])


_loaded = False


def _load_optional() -> None:
    """Register the PDF and HTML extractors on first use (their modules import this one).

    Their libraries are imported only when a document is extracted, so registering them
    costs nothing when the extras are not installed.
    """
    global _loaded
    if _loaded:
        return
    _loaded = True
    from indexer.extract.html import HtmlExtractor
    from indexer.extract.pdf import PdfExtractor

    register(PdfExtractor())
    register(HtmlExtractor())


class _ListHandler(logging.Handler):
    def __init__(self, sink: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


@contextmanager
def captured_log(name: str) -> Iterator[list[str]]:
    """Collect a library's logged warnings for one document instead of letting them reach stderr."""
    logger = logging.getLogger(name)
    sink: list[str] = []
    handler = _ListHandler(sink)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield sink
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
