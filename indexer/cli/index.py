"""`pincite build` and `pincite search`: the index commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from indexer import api
from indexer.cli.common import emit_json, index_option, json_option, note, repo_option, stage_progress
from indexer.errors import PinciteError

if TYPE_CHECKING:
    from indexer.api import BuildSummary  # the build's record: `pincite search` does not load the build


@click.command("build")
@repo_option
@click.option("--rev", default="HEAD", show_default=True, help="The commit to index (any git revision).")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Site output folder (default: _site).")
@index_option
@click.option("--no-site", is_flag=True, help="Build the index only, skip the static site.")
@click.option(
    "--strict", is_flag=True, help="Exit non-zero when any document was skipped or a document's link is broken."
)
@click.option(
    "--retry-skipped",
    is_flag=True,
    help="Extract again the versions that failed before (e.g. after installing a library).",
)
@json_option
def build_command(
    repo: Path,
    rev: str,
    out: Path | None,
    index_path: Path | None,
    no_site: bool,
    strict: bool,
    retry_skipped: bool,
    as_json: bool,
) -> None:
    """Index commit REV of the corpus (read from git objects, never the working tree).

    Every distinct file version (blob, extractor identity and the form its path gives:
    the same bytes at a .md and a .txt path are two) is extracted once, and the summary
    counts versions: a rebuild after a commit only extracts the blobs that commit
    changed. A version that failed (corrupt, encrypted, over a limit) is remembered too,
    and tried again only when the extractor's identity or the limits change, or with
    --retry-skipped. Prints a summary; --json for scripts.
    A build that indexes no document exits with status 3.

    \b
    Examples:
      pincite build                          index HEAD and render the site into _site/
      pincite build --no-site --json         the index only, a summary for scripts
      pincite build --rev v1.2 --out /tmp/site
    """
    progress = stage_progress(as_json)
    summary = api.build(
        repo, rev, out=out, index_path=index_path, site=not no_site, progress=progress, retry_skipped=retry_skipped
    )
    if as_json:
        emit_json(summary.to_json())
    else:
        _print_summary(summary)
    failure = api.nothing_indexed(summary)
    if failure is not None:
        raise failure
    if strict and (summary.skipped or _broken_links(summary)):
        sys.exit(PinciteError.exit_code)  # the skipped documents and broken links are printed above


def _broken_links(summary: BuildSummary) -> list[Any]:
    """The site's broken links between documents (each is also a warning in the summary)."""
    return list(summary.site["broken_links"]) if summary.site else []


def _print_summary(summary: BuildSummary) -> None:
    # Skipped files first: the warnings (a whole file type skipped, ...) must not scroll away above them.
    for skipped in summary.skipped:
        hint = f" ({skipped.hint})" if skipped.hint else ""
        click.echo(f"skipped: {skipped.path}: {skipped.reason}{hint}", err=True)
    for warning in summary.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(
        f"built {summary.commit[:12]}: {summary.commits} commits, {summary.documents} documents, "
        f"{summary.versions} versions, {summary.passages} passages; "
        f"extracted {summary.extracted}, reused {summary.reused}{_remembered(summary)}; "
        f"{len(summary.skipped)} skipped; "
        f"{summary.seconds:.2f} s"
    )
    click.echo(f"index: {summary.index_path}")
    if summary.site_dir:
        site = summary.site
        broken = len(_broken_links(summary))
        counts = f" ({site['pages_rendered']} pages rendered, {site['pages_reused']} reused" if site else ""
        counts += f"; {broken} broken link{'s' if broken != 1 else ''})" if broken else ")"
        click.echo(f"site:  {summary.site_dir}{counts if site else ''}")


def _remembered(summary: BuildSummary) -> str:
    if not summary.failures_reused:
        return ""
    return f" ({summary.failures_reused} known to fail: not retried, --retry-skipped retries them)"


@click.command("search")
@click.argument("query")
@repo_option
@click.option("--rev", default=None, help="Search the index at this built commit (default: the newest).")
@click.option("--limit", default=10, show_default=True, type=int, help="Most hits to show.")
@click.option("--path", "path_prefix", default=None, help="Only documents whose path starts with this.")
@click.option("--fts", is_flag=True, help="Treat QUERY as raw FTS5 syntax (AND, OR, NEAR, prefix*).")
@index_option
@json_option
def search_command(
    query: str,
    repo: Path,
    rev: str | None,
    limit: int,
    path_prefix: str | None,
    fts: bool,
    index_path: Path | None,
    as_json: bool,
) -> None:
    """Find passages matching QUERY, ranked by bm25, each with its citation.

    Words are matched as typed (all of them, stemmed); punctuation is ignored, so
    `don't` or `C++` just work. Use --fts for FTS5 operators.

    \b
    Examples:
      pincite search "retention period"
      pincite search laptop --path corpus/policies/ --limit 3
      pincite search 'retent* NEAR(logs, 5)' --fts --json
    """
    hits = api.search(query, repo, rev=rev, limit=limit, path_prefix=path_prefix, fts_syntax=fts, index_path=index_path)
    if as_json:
        emit_json([hit.to_json() for hit in hits])
        return
    if not hits:
        note("no matches")
    for hit in hits:
        click.echo(click.style(hit.citation.text_form(), bold=True))
        if hit.passage.heading:
            click.echo(f"  {hit.passage.heading}")
        click.echo("  " + _styled_snippet(hit.snippet, hit.highlights).replace("\n", " "))
        click.echo()


def _styled_snippet(snippet: str, highlights: tuple[tuple[int, int], ...]) -> str:
    out, last = [], 0
    for start, end in highlights:
        out.append(snippet[last:start])
        out.append(click.style(snippet[start:end], fg="yellow", bold=True))
        last = end
    out.append(snippet[last:])
    return "".join(out)
