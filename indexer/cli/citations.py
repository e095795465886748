"""Citation commands: `pincite cite`, `resolve`, `verify`, `check`, `pin`."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from indexer import api
from indexer.api import CheckRecord, CheckReport, Detail, Severity
from indexer.cli.common import (
    JsonRecordStream,
    emit_json,
    json_option,
    note,
    output_format,
    repo_option,
    report_option,
    write_json,
)
from indexer.errors import CheckFailed, UsageError
from indexer.integrations.code_scanning import github_annotations, repository_root, sarif_log

site_url_option = click.option(
    "--site-url", default=None, help="Base URL of the published site, for permalinks (default: `site_url`)."
)
against_option = click.option(
    "--against", default="HEAD", show_default=True, help="The commit to verify against (any git revision)."
)


@click.command("cite")
@click.argument("path")
@click.option("--lines", "lines", default=None, help="Lines A-B (1-based, inclusive), e.g. --lines 12-18.")
@click.option("--chars", "chars", default=None, help="Code points A-B (0-based, end exclusive), e.g. --chars 120-340.")
@click.option("--quote", "quote", default=None, help="Cite the one place these words stand (normalized match).")
@click.option("--rev", default="HEAD", show_default=True, help="The commit to pin the citation to.")
@click.option(
    "--unit",
    type=click.Choice(["lines", "chars", "linecol"]),
    default=None,
    help="Write the span as lines, chars or line:column (default: as given; chars for --quote).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text: every form; markdown: a quote block with its link; json: what --json prints (kept as its alias).",
)
@site_url_option
@repo_option
@json_option
def cite_command(
    path: str,
    lines: str | None,
    chars: str | None,
    quote: str | None,
    rev: str,
    unit: str | None,
    fmt: str,
    site_url: str | None,
    repo: Path,
    as_json: bool,
) -> None:
    """Make a citation of PATH at REV: by lines, by characters, or by the words it quotes.

    \b
    Examples:
      pincite cite corpus/handbook.md --lines 12-18
      pincite cite corpus/handbook.md --quote "kept for seven years" --format markdown
      pincite cite corpus/report.pdf --chars 120-340 --rev v1.2
      pincite cite corpus/handbook.md --quote "kept for seven years" --json

    Prints the text form (PATH@SHA#L12-L18), the permalink into the site (when
    `site_url` or --site-url is set), a GitHub URL (when the origin is on GitHub) and
    a Software Heritage id.
    """
    fmt = output_format(fmt, as_json)
    line_range, char_range = api.parse_range(lines, "--lines"), api.parse_range(chars, "--chars")
    cited = api.cite(path, repo, lines=line_range, chars=char_range, quote=quote, rev=rev, unit=unit, site_url=site_url)
    if fmt == "json":
        emit_json(cited.to_json())
    elif fmt == "markdown":
        click.echo(cited.markdown(), nl=False)
    else:
        click.echo(cited.citation.text_form())
        if cited.permalink:
            click.echo(f"permalink: {cited.permalink}")
        else:
            note("permalink: (set `site_url` in pincite.toml or pass --site-url to get one)")
        if cited.github_url:
            click.echo(f"github:    {cited.github_url}")
        click.echo(f"swhid:     {cited.swhid}")


@click.command("resolve")
@click.argument("citation")
@click.option("--context", "context", default=0, type=click.IntRange(min=0), help="Also show N lines around.")
@repo_option
@json_option
def resolve_command(citation: str, context: int, repo: Path, as_json: bool) -> None:
    """Print exactly the text CITATION pins, read from git objects (never the working tree).

    \b
    Examples:
      pincite resolve corpus/handbook.md@3f2a9c1#L12-L18
      pincite resolve 'https://docs.example.org/v/<blob>.html?commit=<sha>&path=corpus/a.md#L3' --context 2
    """
    found = api.resolve(citation, repo, context=context)
    resolved, before, after, provenance = found.resolved, found.before, found.after, found.snapshot
    if as_json:
        emit_json(found.to_json())
        return
    if provenance:
        # stderr, so stdout stays exactly the pinned text
        click.echo(f"snapshot of {provenance.url} fetched {provenance.fetched_at}", err=True)
    if before:
        click.echo(click.style(before, dim=True), nl=False)
    click.echo(resolved.text, nl=not resolved.text.endswith("\n") and not after)
    if after:
        click.echo(click.style(after, dim=True))


@click.command("verify")
@click.argument("citations", nargs=-1, required=True)
@against_option
@click.option("--strict", is_flag=True, help="Exit non-zero for drifted citations too.")
@repo_option
@json_option
def verify_command(citations: tuple[str, ...], against: str, strict: bool, repo: Path, as_json: bool) -> None:
    """Say whether each CITATION still holds at --against: verified, drifted or unresolvable.

    \b
    Examples:
      pincite verify corpus/handbook.md@3f2a9c1#L12-L18
      pincite verify --against origin/main --json corpus/a.md@3f2a9c1#c10-80

    Exit status: 0 when none is unresolvable (drifted is a warning unless --strict),
    7 otherwise; 2 for a malformed citation.
    """
    checked = api.verify(list(citations), repo, against=against)
    if as_json:
        emit_json([c.to_json() for c in checked])
    else:
        for raw, one in zip(citations, checked, strict=True):
            verdict, attempt, snapshot = one.verdict, one.recovery, one.snapshot
            click.echo(f"{verdict.status}: {raw}: {verdict.reason}")
            if snapshot:
                click.echo(f"  snapshot of {snapshot.url} fetched {snapshot.fetched_at}")
            if verdict.hint:
                click.echo(f"  hint: {verdict.hint}")
            if verdict.note:
                click.echo(f"  note: {verdict.note}")
            if verdict.relocated and verdict.relocated.text_form() != raw:
                click.echo(f"  at target: {verdict.relocated.text_form()}")
            for hunk in verdict.hunks:
                click.echo(f"  {hunk.header}")
                for line in hunk.lines:
                    click.echo(f"  {line}")
            if attempt is not None and attempt.detail != Detail.SHIFTED:
                click.echo(f"  {attempt.summary()}")
    if any(one.fails(strict) for one in checked):
        sys.exit(CheckFailed.exit_code)


@click.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@against_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "github", "sarif"]),
    default="text",
    show_default=True,
    help="github: workflow annotations and a Markdown job summary; sarif: a SARIF 2.1.0 log for code scanning "
    "(upload it with github/codeql-action/upload-sarif). --json is a format of its own.",
)
@click.option(
    "--strict", is_flag=True, help="Fail on drifted, malformed and unpinned citations and unreachable commits too."
)
@click.option("--fix", is_flag=True, help="Rewrite verified citations to point at the target commit.")
@click.option(
    "--accept-moved",
    is_flag=True,
    help="With --fix: also re-pin citations whose quote moved, exactly, to one other place "
    "(in another document only when the cited one is gone).",
)
@click.option(
    "--recovery-log",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Append every recovery attempt to this JSON-lines file (an audit trail).",
)
@click.option("--pin", is_flag=True, help="Keep every cited commit alive under refs/pincite/pins/<sha>.")
@site_url_option
@repo_option
@json_option
@report_option
def check_command(
    paths: tuple[Path, ...],
    against: str,
    fmt: str,
    strict: bool,
    fix: bool,
    accept_moved: bool,
    recovery_log: Path | None,
    pin: bool,
    site_url: str | None,
    repo: Path,
    as_json: bool,
    report_file: Path | None,
) -> None:
    """Check every citation in the Markdown and text documents at PATHS.

    \b
    Examples:
      pincite check docs/ README.md
      pincite check --format github docs/        (in CI)
      pincite check --format sarif docs/ > pincite.sarif
      pincite check --format github --report check.json docs/
      pincite check --fix docs/report.md         (re-pin verified citations to HEAD)
      pincite check --fix --accept-moved --recovery-log audit.jsonl docs/

    Finds permalinks, text forms and GitHub blob URLs, verifies each against
    --against (default HEAD) and checks its quote. Exit status 7 when a citation is
    unresolvable or its quote failed or is wrong_ref (drifted, malformed and unpinned too with --strict).
    A broken citation gets a recovery attempt: where its words went (moved, changed,
    removed). --fix applies only exact relocations; --accept-moved adds exact moves;
    fuzzy suggestions are never applied.
    """
    if accept_moved and not fix:
        raise UsageError("--accept-moved only works with --fix", hint="run `pincite check --fix --accept-moved PATHS`")
    fmt = output_format(fmt, as_json)
    # Records are printed as each file is checked, not held until the end (the GitHub job
    # summary, written last, needs them all).
    stream = JsonRecordStream() if fmt == "json" else None
    on_record = (lambda r: stream(r.to_json())) if stream else (_print_record if fmt == "text" else None)
    kept: list[Any] = []
    if report_file is not None and on_record is not None:
        on_record = _also_kept(on_record, kept)
    report = api.check(
        list(paths),
        repo,
        against=against,
        fix=fix,
        accept_moved=accept_moved,
        recovery_log=recovery_log,
        site_url=site_url,
        on_record=on_record,
    )
    pinned = list(api.pin(repo=repo, commits=sorted(report.cited_commits)).created) if pin else []
    if report_file is not None:
        records = kept or [r.to_json() for r in report.records]
        write_json(
            report_file,
            {"records": records, "target_commit": report.target_commit, **report.tail_json(), "pinned": pinned},
        )
    if stream:
        stream.close({"target_commit": report.target_commit, **report.tail_json(), "pinned": pinned})
    elif fmt == "github":
        _print_github(report, repository_root(repo))
    elif fmt == "sarif":
        emit_json(sarif_log(report, repository_root(repo)))
    else:
        _print_report(report, pinned)
    if report.failed(strict):
        sys.exit(CheckFailed.exit_code)


def _also_kept(sink: Callable[[CheckRecord], None], kept: list[Any]) -> Callable[[CheckRecord], None]:
    """`sink`, which also keeps each record's JSON (for --report while the records stream)."""

    def both(record: CheckRecord) -> None:
        kept.append(record.to_json())
        sink(record)

    return both


def _print_record(record: CheckRecord) -> None:
    quote = f" quote:{record.quote_verdict.status}" if record.quote_verdict else ""
    click.echo(f"{record.file}:{record.line}: {record.status}{quote}: {_short(record.found.raw)}")
    click.echo(f"  {record.details}")


def _print_report(report: CheckReport, pinned: list[str]) -> None:
    """What follows the records (printed as they came): unreachable commits, fixes, pins, the summary."""
    for sha in report.unreachable:
        click.echo(f"commit {sha[:12]} is {report.reachability[sha]}: no branch or tag reaches it", err=True)
        if report.reachability[sha] == "unreachable":
            click.echo("  hint: keep it with `pincite pin` (refs/pincite/pins/<sha>)", err=True)
    for record in report.fixed:
        click.echo(f"fixed: {record.file}:{record.line}")
    for file in report.changed_meanwhile:
        click.echo(f"not fixed: {file} changed while check ran; nothing written, run `pincite check --fix` again")
    for ref in pinned:
        click.echo(f"pinned: {ref}")
    click.echo(_summary_line(report))
    further = report.not_searched_further()
    if further:
        click.echo(further)


def _summary_line(report: CheckReport) -> str:
    s = report.summary()
    return (
        f"{s['citations']} citation(s) in {s['files']} file(s): {s['verified']} verified, {s['drifted']} drifted, "
        f"{s['unresolvable']} unresolvable, {s['malformed']} malformed, {s['unpinned']} unpinned; "
        f"quotes: {s['quote_matched']} matched, "
        f"{s['quote_wrong_ref']} wrong_ref, {s['quote_failed']} failed; "
        f"{s['errors']} error(s), {s['warnings']} warning(s)"
    )


def _short(raw: str, width: int = 100) -> str:
    return raw if len(raw) <= width else raw[: width - 1] + "…"


def _print_github(report: CheckReport, repo_root: Path) -> None:
    for line in github_annotations(report, repo_root):
        click.echo(line)
    summary = github_summary(report)
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(summary)
    else:
        click.echo(summary)


def github_summary(report: CheckReport) -> str:
    """The Markdown job summary: counts, then one table row per citation that needs attention."""
    further = report.not_searched_further()
    lines = ["## pincite check", "", _summary_line(report), "", *([further, ""] if further else [])]
    rows = [r for r in report.records if r.severity != Severity.OK]
    if rows:
        lines += ["| file | verdict | quote | details |", "|---|---|---|---|"]
        lines += [_row(r) for r in rows]
    for sha in report.unreachable:
        lines.append(f"- commit `{sha[:12]}` is {report.reachability[sha]} (no branch or tag reaches it)")
    return "\n".join(lines) + "\n"


def _row(record: CheckRecord) -> str:
    cell = record.details.replace("|", "\\|").replace("\n", " ")
    quote = record.quote_verdict.status if record.quote_verdict else ""
    return f"| `{record.file}:{record.line}` | {record.status} | {quote} | {cell} |"


@click.command("pin")
@click.argument("items", nargs=-1, required=True)
@repo_option
@json_option
def pin_command(items: tuple[str, ...], repo: Path, as_json: bool) -> None:
    """Keep cited commits alive: create refs/pincite/pins/<sha> for each.

    ITEMS are citations, or documents/folders whose citations are pinned. Push the
    refs with `git push origin 'refs/pincite/pins/*'` so the server keeps them too.

    \b
    Examples:
      pincite pin docs/
      pincite pin corpus/handbook.md@3f2a9c1#L12-L18
    """
    pinned = api.pin(items, repo)
    if as_json:
        emit_json(pinned.to_json())
        return
    for ref in pinned.created:
        click.echo(f"pinned: {ref}")
    click.echo(f"{len(pinned.commits)} cited commit(s), {len(pinned.created)} new pin ref(s)")


__all__ = ["check_command", "cite_command", "pin_command", "resolve_command", "verify_command"]
