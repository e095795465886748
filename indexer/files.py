"""Replacing a file atomically and durably: the one way pincite writes a file a reader may hold.

A reader (a browser, CI, a concurrent `pincite`) sees the old file or the new one, never a
torn one, and a power cut after the rename cannot leave an empty file at the path: the data
is synced before the rename and the folder's entry after it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def fsync_path(path: Path) -> None:
    """Flush a file's data, or a folder's entries, to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace_durably(written: Path, target: Path) -> None:
    """Move a finished file from `written` to `target` (same folder): sync it, rename it, sync the folder."""
    fsync_path(written)
    os.replace(written, target)
    with contextlib.suppress(OSError):  # some file systems cannot sync a folder; the rename stands
        fsync_path(target.parent)


@contextlib.contextmanager
def atomic_writer(target: Path) -> Iterator[BinaryIO]:
    """Write `target` whole or not at all, through a temporary file beside it.

    The new file keeps the mode of the file it replaces (a new one gets the umask's default).
    If the block raises, the temporary file is removed and `target` is untouched.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else _default_mode()
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.chmod(temp, mode)
        replace_durably(Path(temp), target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def atomic_write(target: Path, data: bytes) -> None:
    """Replace `target` with `data` atomically and durably (see `atomic_writer`)."""
    with atomic_writer(target) as handle:
        handle.write(data)


class _ChangedMeanwhile(Exception):
    """The target no longer holds what the caller read: abandon the replacement."""


def atomic_write_if_unchanged(target: Path, data: bytes, expected: bytes) -> bool:
    """Replace `target` with `data` unless it no longer holds `expected`; False then, `target` untouched.

    For rewriting a file someone may be editing: the new data is written and synced first,
    and the file is compared with `expected` just before the rename, so an edit saved while
    the caller worked is kept (only an edit saved between that comparison and the rename,
    a few system calls, can still be lost). A file removed meanwhile counts as changed.
    """
    try:
        with atomic_writer(target) as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            try:
                current = target.read_bytes()
            except OSError:
                current = None
            if current != expected:
                raise _ChangedMeanwhile
    except _ChangedMeanwhile:
        return False
    return True


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
