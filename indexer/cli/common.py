"""Options and output helpers shared by every `pincite` command module.

Every command that reads a repository takes the same `--repo`; every command that prints results takes `--json`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

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
