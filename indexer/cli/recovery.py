"""Recovery command: `pincite locate`, where a quote stands now and when it left."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from indexer import api
from indexer.cli.common import emit_json, json_option, note, repo_option
from indexer.errors import PinciteError


@click.command("locate")
@click.argument("quote")
@click.option("--path", "cited_path", default=None, help="The document the quote was cited from (enables history).")
@click.option("--since", default=None, help="A commit at which the quote stood at --path (default: any).")
@click.option("--against", default="HEAD", show_default=True, help="The commit to search (must be indexed).")
@click.option(
    "--unit",
    type=click.Choice(["lines", "chars", "linecol"]),
    default="lines",
    show_default=True,
    help="How the new citations are written.",
)
@click.option("--no-fuzzy", is_flag=True, help="Exact places only: no near matches.")
@repo_option
@json_option
def locate_command(
    quote: str,
    cited_path: str | None,
    since: str | None,
    against: str,
    unit: str,
    no_fuzzy: bool,
    repo: Path,
    as_json: bool,
) -> None:
    """Find where QUOTE stands at --against, and when it left --path.

    \b
    Examples:
      pincite locate "application logs are kept for 90 days"
      pincite locate "SMS codes are accepted" --path corpus/policies/information-security.md
      pincite locate --json --since 01b01a8 --path corpus/a.md "the quoted words"

    Exact places (after quote normalization) come with a ready citation. When there are
    none: near matches labelled with their similarity (suggestions, never verified), the
    last commit at which the quote stood at --path and the commit that removed or changed
    it, and the suggestions of discovery providers. Exit status 0 when the quote stands
    exactly somewhere, 1 when it does not.
    """
    located = api.locate(quote, repo, against=against, path=cited_path, since=since, unit=unit, fuzzy=not no_fuzzy)
    if as_json:
        emit_json(located.to_json())
    else:
        _print(located)
    if not located.found:
        sys.exit(PinciteError.exit_code)  # said above: no exact place


def _print(located: api.Located) -> None:
    found, discovery = located.search, located.discovery
    for place in found.places:
        click.echo(f"exact: {place.text_form()}")
    for near in found.near:
        click.echo(f"near ({near.similarity:.0%} similar, not verified): {near.citation.text_form()}")
        click.echo(f"  {near.word_diff}")
    if found.last_seen:
        seen = found.last_seen
        click.echo(f"last stood at {seen.path}@{seen.last_commit}")
        moved = f" (now {seen.new_path})" if seen.new_path and seen.new_path != seen.path else ""
        click.echo(f"{seen.change} by {seen.removed_by}{moved}: {seen.subject}")
        for hunk in seen.hunks:
            click.echo(f"  {hunk.header}")
            for line in hunk.lines:
                click.echo(f"  {line}")
    if discovery:
        for candidate in discovery.candidates:
            where = f" in {candidate.repository}" if candidate.repository else ""
            click.echo(f"suggestion from {candidate.provider}: {candidate.source}{where} ({candidate.next_step})")
        for failure in discovery.failures:
            click.echo(f"provider {failure.provider} failed: {failure.message}", err=True)
    if not found.places:
        click.echo("no exact place at the target", err=True)
        for step in found.steps:
            if "run `pincite build`" in step:
                note(f"  note: {step}")
