"""The `pincite` command: a thin shell over the library API.

Each command parses its options, makes one library call and prints the result (text for
people, `--json` for scripts). Errors from the library are `PinciteError`s: this module
alone turns them into a one-line message and the class's exit code.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from typing import Any

import click

from indexer import __version__
from indexer.cli.common import Output
from indexer.errors import PinciteError, did_you_mean

# Each command lives in the module of its area and is imported only when it runs, so
# `pincite --version` and `pincite textconv` (which git runs once per diffed file) load
# neither the site nor the network code.
COMMANDS = {
    "build": "indexer.cli.index:build_command",
    "search": "indexer.cli.index:search_command",
    "cite": "indexer.cli.citations:cite_command",
    "resolve": "indexer.cli.citations:resolve_command",
    "verify": "indexer.cli.citations:verify_command",
    "check": "indexer.cli.citations:check_command",
    "pin": "indexer.cli.citations:pin_command",
    "impact": "indexer.cli.impact:impact_command",
    "locate": "indexer.cli.recovery:locate_command",
    "snapshot": "indexer.cli.snapshot:snapshot_command",
    "serve": "indexer.cli.site:serve_command",
    "init": "indexer.cli.extract:init_command",
    "textconv": "indexer.cli.extract:textconv_command",
    "doctor": "indexer.cli.ops:doctor_command",
    "mcp": "indexer.cli.agents:mcp_command",
}


class PinciteGroup(click.Group):
    """The command group: commands load on demand, and `PinciteError`s become messages and exit codes."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, COMMANDS, n=3, cutoff=0.75)
            advice = did_you_mean(*close) if close else "see `pincite --help`"
            ctx.fail(f"no such command {name!r}: {advice}")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PinciteError as exc:
            click.echo(f"pincite: error: {exc}", err=True)
            sys.exit(exc.exit_code)


@click.group(cls=PinciteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pincite")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no notes on stderr; warnings and errors still show.")
@click.option(
    "-v", "--verbose", is_flag=True, help="Each stage of a build as a line on stderr as it starts and ends, timed."
)
@click.pass_context
def main(ctx: click.Context, quiet: bool, verbose: bool) -> None:
    """pincite: search a git corpus and cite passages pinned to commits.

    \b
    Typical use:
      pincite build                         index HEAD of the corpus and render the site
      pincite search "retention period"     find passages and their citations
      pincite cite corpus/handbook.md --lines 12-18
      pincite check docs/                   verify every citation in your documents

    Colours follow the terminal; set NO_COLOR to turn them off.
    """
    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose cannot be used together")
    ctx.obj = Output(quiet=quiet, verbose=verbose)
    if os.environ.get("NO_COLOR"):  # no-color.org: set and not empty
        ctx.color = False


if __name__ == "__main__":
    main()
