"""Operations commands: `pincite doctor`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .doctor import OK, diagnose

# Declared here rather than imported from cli.py, which imports this module at its end.
repo_option = click.option(
    "--repo",
    "repo",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="The corpus repository (any folder inside it).",
)
index_option = click.option(
    "--index",
    "index_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Index file (default: `index_path` from the config, .pincite/index.sqlite).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


@click.command("doctor")
@repo_option
@index_option
@click.option("--strict", is_flag=True, help="Exit with status 1 when any check warns (for CI).")
@json_option
def doctor_command(repo: Path, index_path: Path | None, strict: bool, as_json: bool) -> None:
    """Check this machine and repository: git, extras, textconv, history, index, site URL.

    Every line is `ok` or `warn`; a warning says what to do. Doctor works anywhere,
    also outside a repository, and changes nothing.

    \b
    Examples:
      pincite doctor
      pincite doctor --repo ../handbook --json
      pincite doctor --strict          # in CI: fail when anything needs attention
    """
    report = diagnose(repo, index_path)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        width = max(len(check.name) for check in report.checks)
        for check in report.checks:
            status = click.style(f"{check.status:<4}", fg="green" if check.status == OK else "yellow", bold=True)
            click.echo(f"{status} {check.name:<{width}}  {check.detail}")
            if check.hint:
                click.echo(f"     {'':<{width}}  -> {check.hint}")
    if strict and not report.ok:
        sys.exit(1)
