"""Operations commands: `pincite doctor`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from indexer.cli.common import emit_json, index_option, json_option, repo_option
from indexer.errors import PinciteError
from indexer.integrations.doctor import OK, diagnose


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
        emit_json(report.to_json())
    else:
        width = max(len(check.name) for check in report.checks)
        for check in report.checks:
            status = click.style(f"{check.status:<4}", fg="green" if check.status == OK else "yellow", bold=True)
            click.echo(f"{status} {check.name:<{width}}  {check.detail}")
            if check.hint:
                click.echo(f"     {'':<{width}}  -> {check.hint}")
    if strict and not report.ok:
        sys.exit(PinciteError.exit_code)  # the warnings are printed above
