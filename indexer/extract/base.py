"""What every extractor shares: the extracted-text record, resource limits and the extractor protocol.

Every extractor declares the extensions it handles, its source class and an *identity*
(name, pincite's extraction version, library versions, options). Offsets of an
extracted document index that extractor's output, so two identities are two offset
spaces: the index records the identity per version and resolution fails closed when the
active identity differs (docs/design.md#d5 and docs/design.md#d13).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from indexer.errors import ExtractionError

if TYPE_CHECKING:
    from indexer.config import Config


@dataclass(frozen=True)
class ExtractedText:
    """A blob's text as one extractor identity reads it: what citations count code points in."""

    text: str
    source_class: str  # "text", "extracted" or "snapshot"
    identity: str
    title: str = ""
    # Offsets where pages 2, 3, ... start (PDF only); page n spans page_starts[n-2]..
    page_starts: tuple[int, ...] = ()
    notes: tuple[str, ...] = field(default=())
    is_markdown: bool = False
    # What the build reports as a warning about this text (a PDF's characters no table maps);
    # the index keeps it as the version's reason, so a rebuild that reuses the text still says it.
    warning: str = ""


def importable(module: str) -> bool:
    """Whether an optional library can be imported, without importing it (imports stay lazy)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # ValueError: a module blocked as None in sys.modules
        return False


@functools.cache
def library_version(distribution: str) -> str:
    """An installed distribution's version, looked up once per process (it cannot change under us)."""
    import importlib.metadata  # only when an identity is asked for: `pincite textconv` starts without it

    return importlib.metadata.version(distribution)


@dataclass(frozen=True)
class Limits:
    """Resource limits for extracting one document, and the OCR languages.

    The limits decide whether a document is extracted at all, never what its text is, so they
    are not part of an extractor's identity. The OCR languages decide the text of pages
    without a text layer only: they are part of the identity of the PDFs that have such pages
    (`Extractor.identities`, extract/pdf.py), not of every PDF.
    """

    max_bytes: int = 20_000_000
    pdf_max_pages: int = 2000
    timeout_seconds: float = 60.0
    ocr_languages: tuple[str, ...] = ("eng",)

    @classmethod
    def from_config(cls, config: Config) -> Limits:
        return cls(config.max_file_bytes, config.pdf_max_pages, config.extract_timeout_seconds, config.ocr_languages)


class Extractor(Protocol):
    """What every extractor declares: its name, the file names it takes, its source class and identity."""

    name: str
    extensions: tuple[str, ...]
    source_class: str
    install_hint: str

    def available(self) -> bool: ...

    def identity(self) -> str: ...

    def identities(self, limits: Limits) -> tuple[str, ...]:
        """Every identity a blob's text may have under these settings, `identity()` first.

        One for most extractors; a PDF's second names the OCR that reads its pages without a
        text layer, which only some blobs have (which one a blob gets is known once it is read).
        """
        ...

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText: ...


class _Expired(BaseException):
    """Raised from the alarm handler; a BaseException so library `except Exception` cannot swallow it."""


@dataclass(frozen=True)
class Deadline:
    """The time one extraction may take; `check()` raises once it has passed."""

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

    previous_hook = sys.unraisablehook

    def on_unraisable(unraisable: Any) -> None:
        # An alarm that lands in a finalizer or gc callback cannot be raised there; the timer
        # re-fires, so it is dropped quietly (not reported as the program's error).
        if unraisable.exc_type is not _Expired:
            previous_hook(unraisable)

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    sys.unraisablehook = on_unraisable
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
        sys.unraisablehook = previous_hook
        if previous_timer[0] > 0:
            remaining = previous_timer[0] - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(remaining, 0.001), previous_timer[1])


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
