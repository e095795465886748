"""BENCHMARKS.md: one section per scenario (or per scenario and subject), rewritten whole by its run.

A section starts at its heading, `## <scenario>` or `## <scenario> — <subject>` (a subject names
what a scenario measured when it can measure several things, such as a real repository), and runs
to the next `## ` heading. Writing a section replaces exactly that one; every other section stays
as it is. A new section goes at the end.
"""

from __future__ import annotations

import re
from pathlib import Path

HEADING = re.compile(r"^## (?P<scenario>[a-z][a-z0-9-]*)(?: — (?P<subject>.+))?$", re.MULTILINE)
TITLE = "# Benchmarks\n"


def heading(scenario: str, subject: str | None = None) -> str:
    return f"## {scenario}" + (f" — {subject}" if subject else "")


def write_section(target: Path, scenario: str, subject: str | None, body: str) -> None:
    """Put `body` under the scenario's heading in `target`, replacing that section if it is there."""
    text = target.read_text(encoding="utf-8") if target.exists() else TITLE
    title = heading(scenario, subject)
    section = f"{title}\n\n{body.strip()}\n"
    found = re.search(rf"^{re.escape(title)}$", text, flags=re.MULTILINE)
    if found is None:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        following = re.compile(r"^## ", re.MULTILINE).search(text, found.end())
        tail = text[following.start() :] if following else ""
        text = text[: found.start()] + section + ("\n" + tail if tail else "")
    target.write_text(text, encoding="utf-8")


def sections(text: str) -> list[tuple[str, str | None, str]]:
    """(scenario, subject, body) of every section of a BENCHMARKS.md text."""
    found = list(HEADING.finditer(text))
    out = []
    for n, match in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(text)
        out.append((match["scenario"], match["subject"], text[match.end() : end]))
    return out
