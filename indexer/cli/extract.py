"""`pincite textconv` (git diff of PDF and HTML files as text) and `pincite init` (start a repository)."""

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
    "--ci", is_flag=True, help="Also write .github/workflows/pincite.yml: build, check and publish on every push."
)
@click.option(
    "--command",
    "command",
    default=DEFAULT_COMMAND,
    show_default=True,
    help="The textconv command git runs (give a full path when pincite is not on git's PATH).",
)
@json_option
def init_command(repo: Path, ci: bool, command: str, as_json: bool) -> None:
    """Start using pincite in a repository: settings, ignores and `git diff` for PDF and HTML.

    Finds the folders of documents (docs/, corpus/, … or the folders that are mostly
    Markdown, reST, AsciiDoc, text, PDF or HTML) and writes pincite.toml with them as
    `roots` and every other setting commented out at its default; adds the site and index
    folders to .gitignore; marks PDF and HTML in .gitattributes with git config
    `diff.pincite.textconv` so `git diff` shows their text. With --ci, also writes a
    GitHub Actions workflow. A file that exists is never overwritten: running it again
    changes nothing.

    \b
    Examples:
      pincite init && pincite build && pincite serve
      pincite init --ci && git add -A && git commit -m "Set up pincite"
    """
    from indexer.integrations.starter import start_project  # here, not above: `textconv` must not load it

    result = start_project(repo, ci=ci, textconv_command=command)
    if as_json:
        emit_json(result.to_json())
        return
    roots = " ".join(result.roots)
    click.echo(f"documents: {result.documents} under {roots}")
    for name in result.written:
        click.echo(f"wrote {name}")
    for name in result.kept:
        click.echo(f"kept {name} (it exists; nothing changed)")
    if result.ignored:
        click.echo(f"added to .gitignore: {' '.join(result.ignored)}")
    if result.textconv.added_lines:
        click.echo(f"added to {result.textconv.attributes_file.name}: {len(result.textconv.added_lines)} diff lines")
    click.echo(f"git config diff.pincite.textconv = {result.textconv.textconv}")
    click.echo(f"next: {result.next_command}")
