"""How a long operation reports its stages, so a terminal can show each one as it runs.

A build names each stage as it starts (walking the history, extracting, the site's pages,
Pagefind, ...), with its count of steps when that is known, and says how many steps are done.
Starting a stage ends the one before it; `finish` ends the last. The calls come from the
thread that runs the build.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """What a build tells whoever shows its progress (the CLI draws it on a terminal)."""

    def stage(self, name: str, total: int | None = None) -> None:
        """Stage `name` starts (the one before it has ended); `total` is its count of steps, if known."""

    def advance(self, steps: int = 1) -> None:
        """`steps` more steps of the current stage are done."""

    def finish(self) -> None:
        """The last stage has ended."""


class Silent:
    """Progress nobody watches: the default, so the build never asks whether someone does."""

    def stage(self, name: str, total: int | None = None) -> None:
        pass

    def advance(self, steps: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass


SILENT = Silent()
