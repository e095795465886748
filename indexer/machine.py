"""What the machine offers this process: the one place that counts usable cores, and that says
what happened when a worker process on them died."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool

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
    except BrokenProcessPool as exc:
        raise PinciteError(
            f"a worker process {work} stopped before it finished ({exc}); the previous index and site are unchanged",
            hint="the system may have stopped it for lack of memory: free memory or run the build again",
        ) from exc
