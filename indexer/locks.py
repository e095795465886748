"""Advisory file locks that keep two builds from writing the same output at once."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from indexer.errors import PinciteError


@contextlib.contextmanager
def exclusive_lock(lock_path: Path, busy: PinciteError) -> Iterator[None]:
    """Hold an exclusive lock on `lock_path`; raise `busy` at once if another process holds it.

    The kernel drops the lock when its holder dies, so a killed build never blocks the next one.
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise busy from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
