"""The benchmark scenarios: one module each, run by `python -m bench <scenario>`.

A scenario module's docstring starts with its one-line summary and defines:

- `arguments(parser)`: its own options (sizes, seeds, the path of a clone or a built site);
- `run(args) -> Result`: the measurement, with `args.baseline` (a checkout or None) when the
  module sets `BASELINE = True` (it then measures that checkout in the same run, beside this one).

Modules import pincite (`indexer`) inside their functions, never at the top: a scenario's steps
may run in a child process with another checkout's pincite (`bench.harness.step`). A scenario
that needs a fetched public repository or a built site takes its path as an argument; CI runs
no scenario.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Result:
    """What one run of a scenario found: its section's text and every raw figure."""

    markdown: str
    figures: dict[str, Any]
    subject: str | None = None  # what was measured, when a scenario can measure several things (a repository)
    notes: list[str] = field(default_factory=list)  # lines for the section's header (the repository's commit, ...)


def names() -> list[str]:
    """Every scenario's name (its module's name, `_` written `-`), sorted."""
    return sorted(info.name.replace("_", "-") for info in pkgutil.iter_modules(__path__) if not info.ispkg)


def load(name: str) -> ModuleType:
    """The module of scenario `name`."""
    if name not in names():
        raise KeyError(name)
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}")


def summary(module: ModuleType) -> str:
    return (module.__doc__ or "").strip().split("\n", 1)[0]
