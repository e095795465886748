"""`pincite textconv` and `pincite init`: git diff of PDF and HTML files as text."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from indexer.cli.common import emit_json, json_option, repo_option
from indexer.errors import ExtractionError

# The one import below the API (tests/test_cli_layer.py names it): git runs `pincite textconv` once
# per diffed file, so it loads the extractors alone, not the API's index and citation layers.
from indexer.extract.textconv import DEFAULT_COMMAND, textconv_bytes, textconv_json


@click.command("textconv")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--marker-on-error",
    is_flag=True,
    help="On an extraction error print one `[pincite textconv: ...]` line and exit 0, so one unreadable "
    "file does not stop a whole `git diff` (what `pincite init` configures).",
)
@json_option
def textconv_command(file: Path, marker_on_error: bool, as_json: bool) -> None:
    """Print the text pincite extracts from FILE (a PDF or HTML file).

    This is the text pincite indexes and cites, offsets and all: pages of a PDF are
    separated by a line holding only a form feed. Files of other types are printed
    unchanged. Git calls this command for `git diff` after `pincite init`.

    \b
    Examples:
      pincite textconv corpus/reports/annual-report.pdf | less
      pincite textconv --json corpus/web/travel-policy.html
    """
    try:
        if as_json:
            emit_json(textconv_json(file, Path.cwd()))
            return
        output = textconv_bytes(file, Path.cwd())
    except ExtractionError as exc:
        if not marker_on_error:
            raise
        click.echo(f"pincite textconv: {exc}", err=True)
        output = f"[pincite textconv: {exc.message}]\n".encode()
    sys.stdout.buffer.write(output)
    sys.stdout.buffer.flush()


@click.command("init")
@repo_option
@click.option(
    "--command",
    "command",
    default=DEFAULT_COMMAND,
    show_default=True,
    help="The textconv command git runs (give a full path when pincite is not on git's PATH).",
)
@json_option
def init_command(repo: Path, command: str, as_json: bool) -> None:
    """Make `git diff` show PDF and HTML files as the text pincite indexes.

    Adds `*.pdf diff=pincite`-style lines to the repository's .gitattributes (commit
    that file) and sets `diff.pincite.textconv` in the repository's own git config
    (each clone runs `pincite init` once). Running it again changes nothing.
    `pincite verify` does not need this: it diffs extracted text by itself.

    \b
    Example:
      pincite init && git add .gitattributes && git commit -m "Diff PDFs as text"
      git diff HEAD~1 -- corpus/reports/
    """
    from indexer import api  # here, not above: `textconv` must not load the API

    result = api.init(repo, command=command)
    if as_json:
        emit_json(result.to_json())
        return
    if result.added_lines:
        click.echo(f"added to {result.attributes_file}:")
        for line in result.added_lines:
            click.echo(f"  {line}")
        click.echo("commit .gitattributes so every clone diffs these files as text")
    else:
        click.echo(f"{result.attributes_file} already marks the extracted file types")
    click.echo(f"git config diff.pincite.textconv = {result.textconv}")
