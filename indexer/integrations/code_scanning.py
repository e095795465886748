"""What `pincite check` and `pincite impact` tell CI: workflow annotations and SARIF 2.1.0 for code scanning.

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
from indexer.citations.impact import ImpactReport
from indexer.citations.verdicts import ImpactKind, QuoteStatus, Severity
from indexer.integrations.annotations import annotation, describe, impact_level
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


@dataclass(frozen=True)
class Location:
    """A place in a file of the repository, named from its root."""

    uri: str
    start_line: int
    end_line: int | None = None

    def to_sarif(self) -> dict[str, Any]:
        region: dict[str, int] = {"startLine": self.start_line}
        if self.end_line is not None and self.end_line != self.start_line:
            region["endLine"] = self.end_line
        return {"physicalLocation": {"artifactLocation": {"uri": self.uri, "uriBaseId": "%SRCROOT%"}, "region": region}}


@dataclass(frozen=True)
class Finding:
    """One SARIF result: what is wrong (`problem`), how badly, where, and the places it concerns."""

    problem: Problem
    level: str  # SARIF's: error, warning or note
    message: str
    location: Location
    related: tuple[Location, ...] = ()


def sarif(findings: list[Finding], rules: list[Problem], repo_root: Path) -> dict[str, Any]:
    """The one SARIF 2.1.0 writer: a log with one run of pincite, its `rules`, a result per finding."""
    ids = [rule.rule_id for rule in rules]
    results = []
    for found in findings:
        result: dict[str, Any] = {
            "ruleId": found.problem.rule_id,
            "ruleIndex": ids.index(found.problem.rule_id),
            "level": found.level,
            "message": {"text": found.message},
            "locations": [found.location.to_sarif()],
        }
        if found.related:
            result["relatedLocations"] = [{"id": n, **place.to_sarif()} for n, place in enumerate(found.related, 1)]
        results.append(result)
    described = [{"id": p.rule_id, "name": p.title, "shortDescription": {"text": p.description}} for p in rules]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "pincite", "version": __version__, "rules": described}},
                "originalUriBaseIds": {"%SRCROOT%": {"uri": repo_root.resolve().as_uri() + "/"}},
                "results": results,
            }
        ],
    }


def sarif_log(report: CheckReport, repo_root: Path) -> dict[str, Any]:
    """`check`'s report as SARIF: a result per record that needs attention."""
    findings = []
    for record in report.records:
        found = problem(record)
        if found is None:
            continue
        where = Location(repo_relative(record.file, repo_root), record.line)
        # error or warning: SARIF's words too
        findings.append(Finding(found, str(record.severity), f"{record.found.raw}: {record.details}", where))
    return sarif(findings, list(PROBLEMS.values()), repo_root)


IMPACT_PROBLEMS = {
    kind: Problem(f"impact-{kind}", f"pincite impact: {kind}", description)
    for kind, description in (
        (ImpactKind.DRIFTED, "The change edits or removes lines a citation in the documents cites."),
        (ImpactKind.UNRESOLVABLE, "After the change, a citation in the documents can no longer be checked."),
        (ImpactKind.QUOTE, "After the change, a citation's quoted words no longer stand where it cites."),
        (ImpactKind.MOVED, "The change moves the cited lines to another file (a rename)."),
        (ImpactKind.MENDED, "The change puts right a citation that was broken before it."),
    )
}
SARIF_LEVEL = {"error": "error", "warning": "warning", "notice": "note"}  # workflow command → SARIF


def impact_sarif(report: ImpactReport, repo_root: Path, *, strict: bool = False) -> dict[str, Any]:
    """`impact`'s records as SARIF: a result on each citing line, with the edited source lines related to it."""
    findings = []
    for record in report.records:
        related: tuple[Location, ...] = ()
        span = record.source_lines()
        if span is not None:
            related = (Location(record.source_path, span[0], span[1]),)
        message = f"{record.raw}: {describe(record)}"
        if related:
            message += f" (the [edited lines](1) in {record.source_path})"
        level = SARIF_LEVEL[impact_level(record.kind, strict)]
        findings.append(
            Finding(IMPACT_PROBLEMS[record.kind], level, message, Location(record.file, record.line), related)
        )
    return sarif(findings, list(IMPACT_PROBLEMS.values()), repo_root)
