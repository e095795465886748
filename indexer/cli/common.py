"""Options and output helpers shared by every `pincite` command module.

Every command that reads a repository takes the same `--repo`; every command that prints results takes `--json`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

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


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))
