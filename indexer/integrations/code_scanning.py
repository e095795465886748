"""What `pincite check` tells CI: GitHub workflow annotations and SARIF 2.1.0 for code scanning.

Both speak of a record by what happened to it (`problem`): a failed quote is "quote failed"
whatever its citation's verdict, a drifted citation is "citation drifted". Files are named
relative to the repository root, as GitHub resolves them, wherever `check` was run from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer import __version__
from indexer.citations.check import CheckRecord, CheckReport
from indexer.citations.verdicts import QuoteStatus, Severity
from indexer.integrations.annotations import annotation
from indexer.vcs.repo import GitRepo

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


@dataclass(frozen=True)
class Problem:
    """One kind of thing that can be wrong with a citation: a SARIF rule, an annotation title."""

    rule_id: str
    title: str
    description: str


PROBLEMS = {
    problem.rule_id: problem
    for problem in (
        Problem("quote-failed", "quote failed", "The quoted words stand nowhere in the corpus at the target commit."),
        Problem("quote-wrong-ref", "quote wrong_ref", "The quoted words stand elsewhere than the cited span."),
        Problem("citation-unresolvable", "citation unresolvable", "The citation cannot be checked (see the reason)."),
        Problem("citation-drifted", "citation drifted", "A later commit changed or removed the cited lines."),
        Problem("citation-malformed", "citation malformed", "It looks like a citation, but its selector is not one."),
        Problem("citation-unpinned", "citation unpinned", "A GitHub link at a branch, not a commit: pin it."),
    )
}


def problem(record: CheckRecord) -> Problem | None:
    """What is wrong with a record, the quote first (a false quote is the worst answer); None when nothing is."""
    if record.severity == Severity.OK:
        return None
    quote = record.quote_verdict.status if record.quote_verdict else None
    if quote in (QuoteStatus.FAILED, QuoteStatus.WRONG_REF):
        return PROBLEMS[f"quote-{quote.replace('_', '-')}"]
    return PROBLEMS[f"citation-{record.status}"]


def repository_root(path: Path | str) -> Path:
    """The root of the git repository holding `path` (what annotation and SARIF paths are relative to)."""
    repo = GitRepo(path)
    try:
        return repo.root
    finally:
        repo.close()


def repo_relative(file: str, repo_root: Path) -> str:
    """`file` (as given on the command line) relative to the repository root, with `/` separators."""
    path = Path(file)
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        return absolute.resolve().relative_to(repo_root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()  # outside the repository: as given


def github_annotations(report: CheckReport, repo_root: Path) -> list[str]:
    """One `::error`/`::warning` workflow command per record that needs attention."""
    lines: list[str] = []
    for record in report.records:
        found = problem(record)
        if found is None:
            continue
        file = repo_relative(record.file, repo_root)
        message = f"{record.found.raw}: {record.details}"
        lines.append(annotation(record.severity, file, message, title=found.title, lines=(record.line, record.line)))
    for file in report.changed_meanwhile:
        message = "changed while check ran; nothing written, run `pincite check --fix` again"
        lines.append(annotation("warning", repo_relative(file, repo_root), message, title="not fixed"))
    return lines


def sarif_log(report: CheckReport, repo_root: Path) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log with one run: a result per record that needs attention."""
    results = []
    for record in report.records:
        found = problem(record)
        if found is None:
            continue
        results.append(
            {
                "ruleId": found.rule_id,
                "ruleIndex": list(PROBLEMS).index(found.rule_id),
                "level": str(record.severity),  # error or warning: SARIF's words too
                "message": {"text": f"{record.found.raw}: {record.details}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {
                                "uri": repo_relative(record.file, repo_root),
                                "uriBaseId": "%SRCROOT%",
                            },
                            "region": {"startLine": record.line},
                        }
                    }
                ],
            }
        )
    rules = [{"id": p.rule_id, "name": p.title, "shortDescription": {"text": p.description}} for p in PROBLEMS.values()]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "pincite", "version": __version__, "rules": rules}},
                "originalUriBaseIds": {"%SRCROOT%": {"uri": repo_root.resolve().as_uri() + "/"}},
                "results": results,
            }
        ],
    }
