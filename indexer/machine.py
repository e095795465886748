"""What the machine offers this process: the one place that counts usable cores, that says
what happened when a worker process on them died, that turns a termination signal into
an exit that runs the build's cleanup, and that sets how often the cycle collector scans the heap."""

from __future__ import annotations

import contextlib
import gc
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


# A build's heap holds a few million objects that live until it ends (the index's rows, the site's
# manifest, a record per document) and makes almost no cyclic garbage: Python's default third
# threshold (10) scans all of them about a dozen times in a one-file rebuild of 38,000 documents,
# a fifth of its CPU. A hundred times rarer full scans; the young generations are collected as before.
FULL_COLLECTION_THRESHOLD = 1000


@contextlib.contextmanager
def rare_full_collections() -> Iterator[None]:
    """While the block runs, the cycle collector scans its oldest generation a hundred times less often.

    What is collected does not change, only when: an unreachable cycle among the long-lived objects
    waits longer. The thresholds that were set before are put back.
    """
    previous = gc.get_threshold()
    gc.set_threshold(previous[0], previous[1], max(previous[2], FULL_COLLECTION_THRESHOLD))
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists (a temporary folder named for a dead one is stale)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
