"""`pincite snapshot`: fetch web pages into the corpus as commits, or refresh them."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from indexer import api
from indexer.cli.common import emit_json, json_option, note, repo_option
from indexer.errors import FetchError, UsageError


@click.command("snapshot")
@click.argument("urls", nargs=-1, metavar="URL...")
@repo_option
@click.option("--message", "-m", default=None, help="Subject of the commit (the URL and digest are always added).")
@click.option("--no-commit", is_flag=True, help="Write the files under snapshots/ but do not commit them.")
@click.option("--refresh", "refresh_", is_flag=True, help="Re-fetch URLs already snapshotted; commit only changes.")
@click.option("--all", "all_snapshots", is_flag=True, help="With --refresh: every snapshot committed at HEAD.")
@click.option(
    "--allow-private",
    is_flag=True,
    help="UNSAFE: allow loopback, private and link-local addresses (intranet pages). See docs/security.md.",
)
@click.option(
    "--export-warc",
    "warc_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Fetch nothing: write the snapshots committed at HEAD (or those of URL...) to this WARC file "
    "(.warc.gz compresses). Needs pincite[warc].",
)
@json_option
def snapshot_command(
    urls: tuple[str, ...],
    repo: Path,
    message: str | None,
    no_commit: bool,
    refresh_: bool,
    all_snapshots: bool,
    allow_private: bool,
    warc_file: Path | None,
    as_json: bool,
) -> None:
    """Fetch each URL and commit the page under snapshots/ with its metadata.

    The body is stored exactly as received at snapshots/<host>/<slug>-<hash8>.<ext>,
    with <file>.meta.json beside it (URL, fetch time, status, type, sha256, ...).
    Citations into it are verified against the commit; nothing is ever re-fetched.

    \b
    Examples:
      pincite snapshot https://example.org/policy.html
      pincite snapshot --refresh https://example.org/policy.html
      pincite snapshot --refresh --all --json
      pincite snapshot --export-warc archive.warc.gz

    Only public http(s) pages of type HTML, plain text, Markdown or PDF are fetched;
    redirects are refused (snapshot the target explicitly). Exit status 6 when a
    fetch fails or is refused; with --refresh, when any URL failed.
    """
    if warc_file is not None:
        if refresh_ or all_snapshots or no_commit or message:
            raise UsageError("--export-warc fetches nothing: it takes no --refresh, --all, --no-commit or --message")
        _export(repo, warc_file, urls, as_json)
        return
    if all_snapshots and not refresh_:
        raise UsageError("--all only works with --refresh", hint="pincite snapshot --refresh --all")
    if not urls and not all_snapshots:
        raise UsageError("no URL given", hint="pincite snapshot URL..., or pincite snapshot --refresh --all")
    results = api.snapshot(
        urls,
        repo,
        message=message,
        commit=not no_commit,
        allow_private=allow_private,
        refresh=refresh_,
        all_snapshots=all_snapshots,
    )
    if as_json:
        emit_json([r.to_json() for r in results])
    elif not results:
        note("no snapshots to refresh")
    else:
        for result in results:
            for warning in result.warnings:
                click.echo(f"warning: {warning}", err=True)
            click.echo(result.summary())
    if any(r.status == "failed" for r in results):
        sys.exit(FetchError.exit_code)  # each failure is printed above


def _export(repo: Path, warc_file: Path, urls: tuple[str, ...], as_json: bool) -> None:
    done = api.export_warc(warc_file, repo, urls=urls)
    if as_json:
        emit_json(done.to_json())
    else:
        click.echo(
            f"wrote {done.path}: {done.snapshots} snapshot(s), {done.records} records, commit {done.commit[:12]}"
        )
