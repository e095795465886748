"""`pincite impact`: the citations a change breaks, for a pull request before it lands."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from indexer import api
from indexer.api import ImpactRecord, ImpactReport
from indexer.cli.common import emit_json, json_option, output_format, repo_option, report_option, write_json
from indexer.errors import CheckFailed
from indexer.integrations.annotations import describe, impact_annotations, impact_summary
from indexer.integrations.code_scanning import impact_sarif, repository_root


@click.command("impact")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--base", required=True, help="The commit the change starts from (a branch: origin/main).")
@click.option("--head", default="HEAD", show_default=True, help="The commit the change ends at.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "github", "markdown", "sarif"]),
    default="text",
    show_default=True,
    help="github: annotations on the edited source lines and the citing lines, and a job summary; "
    "markdown: the summary alone; sarif: a SARIF 2.1.0 log for code scanning (a result on each citing "
    "line, the edited source lines related to it).",
)
@click.option("--strict", is_flag=True, help="Fail on citations the change moves to another file too.")
@repo_option
@json_option
@report_option
def impact_command(
    paths: tuple[Path, ...],
    base: str,
    head: str,
    fmt: str,
    strict: bool,
    repo: Path,
    as_json: bool,
    report_file: Path | None,
) -> None:
    """Report every citation whose verdict the change --base...--head alters.

    \b
    Examples:
      pincite impact --base origin/main
      pincite impact --base origin/main --format github docs/
      pincite impact --base v1.2 --head my-branch --json
      pincite impact --base origin/main --format github --report impact.json
      pincite impact --base origin/main --format sarif > impact.sarif

    Reads the citations of the documents committed at --head (PATHS, files or folders, default:
    the whole tree) and judges each at the start of the change (the merge base of --base and
    --head) and at --head: drifted, unresolvable, a quote that no longer matches, moved (the cited
    file was renamed), mended. Only citations of paths the change touched are verified again.
    Exit status 7 when the change breaks a citation (--strict: or moves one).
    """
    fmt = output_format(fmt, as_json)
    root = repository_root(repo)
    report = api.impact(base, repo, head=head, paths=[_repo_path(p, root) for p in paths])
    if report_file is not None:
        write_json(report_file, report.to_json())
    if fmt == "json":
        emit_json(report.to_json())
    elif fmt == "github":
        for line in impact_annotations(report, strict=strict):
            click.echo(line)
        _write_summary(impact_summary(report))
    elif fmt == "markdown":
        click.echo(impact_summary(report), nl=False)
    elif fmt == "sarif":
        emit_json(impact_sarif(report, root, strict=strict))
    else:
        _print_text(report)
    if report.failed(strict):
        sys.exit(CheckFailed.exit_code)


def _repo_path(path: Path, root: Path) -> str:
    """A PATH as the repository names it: relative to its root (a path that exists here is made so)."""
    if path.exists():
        try:
            return path.resolve().relative_to(root.resolve()).as_posix() or "."
        except ValueError:
            pass
    return path.as_posix()


def _write_summary(summary: str) -> None:
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(summary)
    else:
        click.echo(summary, nl=False)


def _print_text(report: ImpactReport) -> None:
    for record in report.records:
        _print_record(record)
    s = report.summary()
    click.echo(
        f"{report.base[:12]}...{report.head[:12]}: {s['commits']} commit(s), {s['touched_paths']} path(s) touched; "
        f"{s['citations']} citation(s) in {s['files']} file(s), {s['reverified']} verified again; "
        f"{s['breaks']} broken ({s['drifted']} drifted, {s['unresolvable']} unresolvable, {s['quote']} quote), "
        f"{s['moved']} moved, {s['mended']} mended"
    )
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    for skipped in report.skipped:
        click.echo(f"not read: {skipped}", err=True)


def _print_record(record: ImpactRecord) -> None:
    click.echo(f"{record.place}: {record.kind}: {record.raw}")
    click.echo(f"  {describe(record)}")
    for hunk in record.hunks:
        click.echo(f"  {hunk.header}")
        for line in hunk.lines:
            click.echo(f"  {line}")


__all__ = ["impact_command"]
