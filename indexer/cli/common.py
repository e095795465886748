"""Options and output helpers shared by every `pincite` command module.

Every command that reads a repository takes the same `--repo`; every command that prints results takes `--json`.
The group's `--quiet` and `--verbose` say how much a command tells on stderr besides its results
(`Output`), and `StageProgress` draws a build's stages.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar
from indexer.errors import UsageError

repo_option = click.option(
    "--repo",
    "repo",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="The corpus repository (any folder inside it).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
index_option = click.option(
    "--index",
    "index_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Index file (default: `index_path` from the config, .pincite/index.sqlite).",
)


report_option = click.option(
    "--report",
    "report_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Also write the whole report as JSON (what --json prints) to this file, whatever the output "
    "format: annotations and a script's figures from one run.",
)


def output_format(fmt: str, as_json: bool) -> str:
    """The output format `--format` and `--json` choose together: `--json` is the format `json`.

    Two different choices are a usage error, never one of them silently (`--json --format github`).
    """
    if as_json and fmt not in ("text", "json"):
        raise UsageError(f"--json and --format {fmt} are two output formats", hint="choose one of them")
    return "json" if as_json else fmt


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def write_json(path: Path, data: Any) -> None:
    """`data` as `emit_json` prints it, into the file `path` (replaced whole)."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


class JsonRecordStream:
    """Prints `{"records": [...], ...}` as `emit_json` would, each record as soon as it comes.

    For outputs with very many records: nothing is held until the end but the closing keys.
    """

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, record: Any) -> None:
        text = json.dumps(record, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        click.echo(('{\n  "records": [\n    ' if self.count == 0 else ",\n    ") + text, nl=False)
        self.count += 1

    def close(self, rest: dict[str, Any]) -> None:
        """Close the records list and print the other keys."""
        if self.count == 0:
            click.echo('{\n  "records": []', nl=False)
        else:
            click.echo("\n  ]", nl=False)
        tail = json.dumps(rest, indent=2, ensure_ascii=False)
        click.echo(",\n" + tail[2:] if rest else "\n}")


@dataclass(frozen=True)
class Output:
    """How much a command tells on stderr besides its results (the group's `--quiet` / `--verbose`).

    quiet: no progress and no notes; warnings and errors are still printed.
    verbose: each stage of a long command printed as a line when it starts and ends, with its
    time, wherever stderr goes (a CI log included) instead of the terminal's progress bars.
    """

    quiet: bool = False
    verbose: bool = False


def output() -> Output:
    """The running command's `Output`, as the group's options set it."""
    ctx = click.get_current_context(silent=True)
    found = ctx.find_root().obj if ctx is not None else None
    return found if isinstance(found, Output) else Output()


def note(message: str) -> None:
    """A note on stderr (what was not found, where a value comes from): left out under --quiet."""
    if not output().quiet:
        click.echo(message, err=True)


def stage_progress(as_json: bool) -> StageProgress | None:
    """How a build shows its stages: bars on a terminal, lines with --verbose, nothing under --quiet.

    With --json and no --verbose nothing is drawn either: a script reading the JSON wants its stderr quiet.
    """
    settings = output()
    if settings.quiet:
        return None
    if settings.verbose:
        return StageProgress(bars=False)
    return StageProgress(bars=True) if sys.stderr.isatty() and not as_json else None


class StageProgress:
    """A build's stages on stderr: each with its own bar (click's) on a terminal, or a line as each
    starts and ends (--verbose). A stage of unknown size has a bar that fills when it ends.
    """

    LABEL = 24  # the longest stage name ("history and diff pages") and two spaces

    def __init__(self, bars: bool) -> None:
        self.bars = bars
        self.bar: ProgressBar[int] | None = None
        self.length = 1  # the bar's count of steps
        self.name: str | None = None
        self.total: int | None = None
        self.done = 0
        self.started = 0.0

    def stage(self, name: str, total: int | None = None) -> None:
        self.finish()
        self.name, self.total, self.done, self.started = name, total, 0, time.monotonic()
        if not self.bars:
            size = "" if total is None else f" ({total:,})"
            click.echo(f"{name}{size} ...", err=True)
            return
        known = total is not None
        self.length = max(total or 0, 1)
        self.bar = click.progressbar(
            length=self.length,
            label=name.ljust(self.LABEL),
            file=sys.stderr,
            show_pos=known,
            show_percent=False,
            show_eta=known,
        )
        if total == 0:  # nothing to do: a full bar, not "0/1"
            self.bar.show_pos = False
        self.bar.render_progress()

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        if self.bar is not None and self.total:
            self.bar.update(min(steps, self.length - self.bar.pos))  # the bar never counts past its total

    def finish(self) -> None:
        if self.name is None:
            return
        if self.bar is not None:
            self.bar.update(self.length - self.bar.pos)
            self.bar.render_finish()
            self.bar = None
        else:
            count = "" if self.total is None else f" {self.done:,}"
            click.echo(f"{self.name}:{count} done in {time.monotonic() - self.started:.1f} s", err=True)
        self.name = None
