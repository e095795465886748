"""GitHub workflow commands and job summaries for what `check` and `impact` report.

An annotation is one line GitHub reads from a step's output (`::error file=F,line=N,title=T::message`);
its data and properties are escaped as the runner expects. `impact` annotates both ends of a broken
citation: the source lines the change edited ("this edit drifts 3 citations: docs/memo.md:12, …")
and the citing line. The job summary is Markdown for `$GITHUB_STEP_SUMMARY`.
"""

from __future__ import annotations

from collections import defaultdict

from indexer.citations.impact import ImpactRecord, ImpactReport
from indexer.citations.verdicts import ImpactKind

LISTED_PLACES = 5  # citing places a source annotation names before "and N more"
# What the edit did, per kind of record ({edit} is "edit", "deletion" or "rename", {count} "3 citations").
_MESSAGES = {
    ImpactKind.DRIFTED: "this {edit} drifts {count}",
    ImpactKind.UNRESOLVABLE: "this {edit} leaves {count} unresolvable",
    ImpactKind.MOVED: "this {edit} moves {count}",
}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, file: str, message: str, *, title: str, lines: tuple[int, int] | None = None) -> str:
    """One workflow command: `level` is error, warning or notice; `lines` first and last, when known."""
    where = f"file={escape_property(file)}"
    if lines is not None:
        where += f",line={lines[0]}" + (f",endLine={lines[1]}" if lines[1] != lines[0] else "")
    return f"::{level} {where},title={escape_property(title)}::{escape_data(message)}"


def impact_annotations(report: ImpactReport, *, strict: bool = False) -> list[str]:
    """Annotations on both ends: one per edited source range naming the citations it breaks, one per citing line."""
    lines: list[str] = []
    by_source: dict[tuple[str, tuple[int, int] | None, ImpactKind], list[ImpactRecord]] = defaultdict(list)
    for record in report.records:
        if record.kind in _MESSAGES:  # a quote the change rewrote was edited where it is cited, not at the source
            by_source[(record.source_path, record.source_lines(), record.kind)].append(record)
    for (path, span, kind), records in by_source.items():
        places = [r.place for r in records]
        listed = ", ".join(places[:LISTED_PLACES]) + (
            f" and {len(places) - LISTED_PLACES} more" if len(places) > LISTED_PLACES else ""
        )
        edit = "deletion" if records[0].head.path is None and kind == ImpactKind.DRIFTED else "edit"
        if kind == ImpactKind.MOVED:
            edit = "rename"
        count = f"{len(records)} citation{'s' if len(records) != 1 else ''}"
        message = _MESSAGES[kind].format(edit=edit, count=count) + f": {listed}"
        lines.append(annotation(impact_level(kind, strict), path, message, title=f"pincite impact: {kind}", lines=span))
    for record in report.records:
        message = f"{record.raw}: {describe(record)}"
        title = f"citation {record.base.status} → {record.head.status}"
        if record.kind in (ImpactKind.QUOTE, ImpactKind.MOVED, ImpactKind.MENDED):
            title = f"citation {record.kind}"
        lines.append(
            annotation(
                impact_level(record.kind, strict), record.file, message, title=title, lines=(record.line, record.line)
            )
        )
    return lines


def impact_level(kind: str, strict: bool) -> str:
    """The workflow command an impact record is reported with: error, warning or notice."""
    if kind == ImpactKind.MENDED:
        return "notice"
    if kind == ImpactKind.MOVED:
        return "warning" if strict else "notice"
    return "error"


def describe(record: ImpactRecord) -> str:
    """One sentence: what the change did to the citation, and which commit did it."""
    base, head = record.base, record.head
    verdicts = f"{base.status} at {base.commit[:12]}, {head.status} at {head.commit[:12]}"
    if record.kind == "quote" or base.quote_status != head.quote_status:
        verdicts += f" (quote {base.quote_status or 'none'} → {head.quote_status or 'none'})"
    if record.kind == ImpactKind.MOVED:
        verdicts += f"; the cited lines now stand in {head.path}"
    by = record.changed_by
    changed = f"; changed by {by.sha[:12]} ({by.subject})" if by and by.sha[:12] not in head.reason else ""
    return f"{verdicts}{changed}: {head.reason}"


def impact_summary(report: ImpactReport) -> str:
    """The Markdown job summary: the range and counts, a row per affected citation, then git's hunks."""
    s = report.summary()
    start = report.start[:12]
    moved = f" (merge base `{start}`)" if report.start != report.base else ""
    lines = [
        "## pincite impact",
        "",
        f"`{report.base[:12]}`{moved} → `{report.head[:12]}`: {s['commits']} commit(s), "
        f"{s['touched_paths']} path(s) touched; {s['citations']} citation(s) in {s['files']} document(s), "
        f"{s['reverified']} verified again.",
        "",
        f"**{s['breaks']} broken** ({s['drifted']} drifted, {s['unresolvable']} unresolvable, "
        f"{s['quote']} quote), {s['moved']} moved, {s['mended']} mended.",
        "",
    ]
    if report.records:
        lines += ["| citing place | cites | change | changed by | details |", "|---|---|---|---|---|"]
        lines += [_row(r) for r in report.records]
        lines.append("")
    for record in report.records:
        if not record.hunks:
            continue
        lines += [f"<details><summary>{record.place}: git's diff of {record.source_path}</summary>", "", "```diff"]
        for hunk in record.hunks:
            lines += [hunk.header, *hunk.lines]
        lines += ["```", "", "</details>", ""]
    return "\n".join(lines) + "\n"


def _row(record: ImpactRecord) -> str:
    cited = record.citation.path
    if record.cited_lines:
        first, last = record.cited_lines
        cited += f" L{first}" + (f"-L{last}" if last != first else "")
    by = record.changed_by
    changer = f"`{by.sha[:12]}` {_cell(by.subject)}" if by else ""
    change = f"{record.base.status} → {record.head.status}"
    if record.kind in (ImpactKind.QUOTE, ImpactKind.MOVED, ImpactKind.MENDED):
        change = f"{record.kind}: {change}"
    return f"| `{record.place}` | `{_cell(cited)}` | {change} | {changer} | {_cell(record.head.reason)} |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
