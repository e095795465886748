"""What every extractor shares: the extracted-text record, resource limits and the extractor protocol.

Every extractor declares the extensions it handles, its source class and an *identity*
(name, pincite's extraction version, library versions, options). Offsets of an
extracted document index that extractor's output, so two identities are two offset
spaces: the index records the identity per version and resolution fails closed when the
active identity differs (docs/design.md#d5 and docs/design.md#d13).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import math
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from indexer.errors import CpuLimitExceeded, ExtractionHung

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
    """Raised from a timer's handler; a BaseException so library `except Exception` cannot swallow it."""

    def __init__(self, hung: bool) -> None:
        super().__init__()
        self.hung = hung  # the wall-clock backstop fired, not the CPU limit


# The wall-clock backstop of a CPU limit. Work on bytes in memory that uses no CPU for this long
# is blocked (on a pipe to a child program, a lock), not slow. A loaded machine slows work by
# the share of a core it gets (load 19 on 2 cores leaves a process about a tenth), so the
# backstop is 20 times the CPU limit and at least 10 minutes: it ends a hang, never slow work
# on a machine that still gives the work a twentieth of a core.
WALL_FACTOR = 20.0
WALL_FLOOR_SECONDS = 600.0


def wall_backstop(cpu_seconds: float) -> float:
    """The wall-clock time work with a CPU limit of `cpu_seconds` may take before it counts as hung."""
    return max(WALL_FLOOR_SECONDS, WALL_FACTOR * cpu_seconds)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class ChildRun:
    """What a child program run under a CPU limit gave, and the CPU it used."""

    returncode: int
    stdout: bytes
    stderr: bytes
    cpu_seconds: float
    over_cpu_limit: bool  # the kernel stopped it at its CPU limit


def run_with_cpu_limit(command: list[str], data: bytes, cpu_seconds: float, env: dict[str, str]) -> ChildRun:
    """Run `command` on `data`; the kernel stops it once it has used `cpu_seconds` of CPU (RLIMIT_CPU).

    It then ends by SIGXCPU (or SIGKILL a second later): `ChildRun.over_cpu_limit`. Its CPU is
    the growth of this process's waited-for children's while it ran (another thread's child
    ending meanwhile would count too: only OCR runs children during an extraction). The
    wall-clock backstop (`wall_backstop`) raises subprocess.TimeoutExpired for a child that
    waits without using CPU. On Linux the limit is set from outside once the child runs
    (`prlimit`: counted from its start all the same); elsewhere in the child before it starts.
    """
    soft = max(1, math.ceil(cpu_seconds))  # the kernel counts whole seconds
    ceiling = resource.getrlimit(resource.RLIMIT_CPU)[1]  # a child cannot be given more than this process has
    hard = soft + 1 if ceiling == resource.RLIM_INFINITY else min(soft + 1, ceiling)
    soft = min(soft, hard)

    def limit_self() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU dumps core by default

    outside = hasattr(resource, "prlimit")
    before = _children_cpu()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=None if outside else limit_self,  # only where prlimit is missing
    )
    with proc:
        if outside:
            with contextlib.suppress(ProcessLookupError):
                resource.prlimit(proc.pid, resource.RLIMIT_CORE, (0, 0))
                resource.prlimit(proc.pid, resource.RLIMIT_CPU, (soft, hard))
        try:
            out, err = proc.communicate(data, timeout=wall_backstop(cpu_seconds))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
    used = _children_cpu() - before
    # SIGXCPU at the soft limit; SIGKILL at the hard one (or from elsewhere: then it used less).
    stopped = proc.returncode == -signal.SIGXCPU or (proc.returncode == -signal.SIGKILL and used >= soft)
    return ChildRun(proc.returncode, out, err, used, stopped)


@dataclass
class CpuBudget:
    """The CPU time one piece of work (extracting or rendering a document) may use.

    The work's own CPU is counted (the calling thread's, `time.thread_time`), not the time on
    the clock: whether a document is indexed must not depend on how loaded the machine is.
    `check()` raises once the CPU is spent, or once the wall-clock backstop has passed.
    """

    path: str
    seconds: float
    setting: str  # what the limit is called where the user can change it
    what: str  # "extraction", "rendering"
    cpu_start: float
    wall_seconds: float
    wall_start: float
    children: float = 0.0  # the CPU of the child programs the work ran (`charge`)

    def cpu_used(self) -> float:
        """This thread's CPU since the start, and that of the child programs the work ran (OCR)."""
        return time.thread_time() - self.cpu_start + self.children

    def charge(self, child: ChildRun) -> None:
        """Count a child program's CPU (Tesseract's for a page) as the work's."""
        self.children += child.cpu_seconds

    def cpu_left(self) -> float:
        return max(self.seconds - self.cpu_used(), 0.0)

    def check(self) -> None:
        """Cooperative check between units of work (pages), for threads where no timer signal lands."""
        if self.cpu_used() > self.seconds:
            raise self.cpu_error()
        if time.monotonic() - self.wall_start > self.wall_seconds:
            raise self.hung_error()

    def cpu_error(self) -> CpuLimitExceeded:
        return CpuLimitExceeded(
            f"{self.path}: {self.what} used more than {self.seconds:g} s of CPU ({self.setting})",
            hint=f"a pathological page or document; raise {self.setting} in pincite.toml to try harder",
        )

    def hung_error(self) -> ExtractionHung:
        return ExtractionHung(
            f"{self.path}: {self.what} was stopped as hung: {self.wall_seconds:g} s of wall-clock time passed "
            f"while it used {self.cpu_used():.1f} s of CPU (the backstop of {self.setting})",
            hint="it waited for something that did not answer; the next build tries it again",
        )


@contextmanager
def cpu_limit(
    seconds: float,
    path: str,
    *,
    setting: str = "extract_timeout_seconds",
    what: str = "extraction",
    wall_seconds: float | None = None,
) -> Iterator[CpuBudget]:
    """Stop the work in the block once it has used `seconds` of CPU, or once it looks hung.

    In the main thread two timers interrupt even one endless page (the libraries are pure
    Python or return to Python often): a CPU-time timer (`ITIMER_PROF`, the process's CPU; its
    handler compares this thread's CPU, so another busy thread does not count) and a real-time
    backstop (`wall_seconds`, by default `wall_backstop(seconds)`) against a block that waits
    without using CPU. Elsewhere only the cooperative `CpuBudget.check` applies. A real-time
    alarm that was already pending (a test timeout, say) is re-armed afterwards.
    """
    wall = wall_backstop(seconds) if wall_seconds is None else wall_seconds
    started = time.monotonic()
    budget = CpuBudget(path, seconds, setting, what, time.thread_time(), wall, started)
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield budget
        return

    armed = [True]

    def on_cpu(signum: int, frame: object) -> None:
        # The timer counts every thread's CPU; the limit is this thread's. Not yet: it re-fires.
        if armed[0] and budget.cpu_used() >= seconds:
            raise _Expired(hung=False)

    def on_wall(signum: int, frame: object) -> None:
        if armed[0]:
            raise _Expired(hung=True)

    previous_hook = sys.unraisablehook

    def on_unraisable(unraisable: Any) -> None:
        # A signal that lands in a finalizer or gc callback cannot be raised there; the timer
        # re-fires, so it is dropped quietly (not reported as the program's error).
        if unraisable.exc_type is not _Expired:
            previous_hook(unraisable)

    previous_cpu_handler = signal.signal(signal.SIGPROF, on_cpu)
    previous_wall_handler = signal.signal(signal.SIGALRM, on_wall)
    sys.unraisablehook = on_unraisable
    # Both re-fire until disarmed: an exception raised while a gc callback runs is swallowed by Python.
    previous_cpu_timer = signal.setitimer(signal.ITIMER_PROF, seconds, 0.05)
    previous_wall_timer = signal.setitimer(signal.ITIMER_REAL, wall, 0.05)
    try:
        yield budget
    except _Expired as expired:
        raise (budget.hung_error() if expired.hung else budget.cpu_error()) from None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous_cpu_handler)
        signal.signal(signal.SIGALRM, previous_wall_handler)
        sys.unraisablehook = previous_hook
        if previous_cpu_timer[0] > 0:
            remaining = previous_cpu_timer[0] - budget.cpu_used()
            signal.setitimer(signal.ITIMER_PROF, max(remaining, 0.001), previous_cpu_timer[1])
        if previous_wall_timer[0] > 0:
            remaining = previous_wall_timer[0] - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(remaining, 0.001), previous_wall_timer[1])


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
