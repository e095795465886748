"""What the machine offers this process: the one place that counts usable cores, that says
what happened when a worker process on them died, and that turns a termination signal into
an exit that runs the build's cleanup."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from indexer.errors import PinciteError


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@contextlib.contextmanager
def worker_deaths_reported(work: str) -> Iterator[None]:
    """A worker process that dies (killed for want of memory, say) ends the build with a message.

    The build writes the index and the site to temporary files: what a failed build leaves is
    the previous index and site, which the message says.
    """
    try:
        yield
    except Exception as exc:
        # Imported here: the process pool's module (multiprocessing and its kin) is already loaded
        # when one of its pools broke, and a process that runs no pool never pays for it.
        from concurrent.futures.process import BrokenProcessPool

        if not isinstance(exc, BrokenProcessPool):
            raise
        raise PinciteError(
            f"a worker process {work} stopped before it finished ({exc}); the previous index and site are unchanged",
            hint="the system may have stopped it for lack of memory: free memory or run the build again",
        ) from exc


@contextlib.contextmanager
def terminated_as_exit() -> Iterator[None]:
    """While the block runs, SIGTERM (a CI timeout, `kill`) raises SystemExit like Ctrl-C raises KeyboardInterrupt.

    Python's default for SIGTERM ends the process where it stands, and a build's temporary
    folders would stay behind; as an exception, every `finally` and `except BaseException`
    on the way out removes what it made. Only the main thread can take signals; elsewhere
    the block runs as it is. The handler that was there before is put back.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists (a temporary folder named for a dead one is stale)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
