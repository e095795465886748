"""Every reference to the design record resolves: `docs/design.md#<anchor>` names an anchor it has.

docs/design.md states the one form (its "How to refer to it"): in code, comments, tests and
benchmarks `docs/design.md#d16`; in a Markdown page a link to the same anchor, `design.md#d16`
(or `docs/design.md#d16` from the repository's root). The older forms named a file that is not in
the repository — an upper-case "design" word followed by a decision number or a section sign — and
could not be followed; they must not come back.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "design.md"
SCANNED = ("indexer", "site_templates", "docs", "tests", "bench", "tools", "README.md", "BENCHMARKS.md", "action.yml")
SUFFIXES = {".py", ".md", ".js", ".mjs", ".html", ".css", ".txt", ".toml", ".yml", ".yaml", ".sh", ".json"}
THIS_FILE = Path(__file__).resolve()  # it spells the old forms out, to say what it looks for

ANCHOR = re.compile(r'<a id="([\w-]+)"></a>')
REFERENCE = re.compile(r"(?<![\w/.-])(?:docs/)?design\.md#([\w-]*)")
LOCAL_LINK = re.compile(r"\]\(#([\w-]*)\)")  # a link inside design.md itself
OLD_FORMS = (
    re.compile(r"\bDESIGN\b"),  # "DESIGN decision 4", "DESIGN §3", "DESIGN 12"
    re.compile(r"\bdecisions?\s+\d", re.IGNORECASE),  # "decision 4" without the file
    re.compile(r"§\s*\d"),  # "§3"
)


def anchors() -> set[str]:
    return set(ANCHOR.findall(DESIGN.read_text(encoding="utf-8")))


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        top = ROOT / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*"))
        files += [p for p in candidates if p.is_file() and p.suffix in SUFFIXES and p.resolve() != THIS_FILE]
    return files


def broken_references(text: str, known: set[str]) -> list[str]:
    """The anchors `text` names in design.md that design.md does not have."""
    return [anchor or "(empty)" for anchor in REFERENCE.findall(text) if anchor not in known]


def old_forms(text: str) -> list[str]:
    """The references in `text` written in a form that names no file of the repository."""
    return [m.group(0) for pattern in OLD_FORMS for m in pattern.finditer(text)]


def test_the_design_record_has_every_decision_in_order() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    numbers = [int(n) for n in re.findall(r'<a id="d(\d+)"></a>\n### D\1\. ', text)]
    assert numbers == list(range(1, len(numbers) + 1)), "decisions must be d1, d2, ... in order"
    assert len(numbers) >= 19
    assert len(re.findall(r"^### D\d+\.", text, re.M)) == len(numbers), "a decision heading without its anchor"
    assert {"users", "glossary", "verdicts", "quote-verdicts", "decisions"} <= anchors()


def test_every_reference_to_the_design_resolves() -> None:
    known = anchors()
    broken = {
        str(path.relative_to(ROOT)): found
        for path in scanned_files()
        if (found := broken_references(path.read_text(encoding="utf-8", errors="replace"), known))
    }
    assert broken == {}, f"references to anchors docs/design.md does not have: {broken}"


def test_the_design_record_links_only_to_its_own_anchors() -> None:
    known = anchors()
    missing = [a for a in LOCAL_LINK.findall(DESIGN.read_text(encoding="utf-8")) if a not in known]
    assert missing == []


def test_no_reference_uses_an_old_form() -> None:
    found = {
        str(path.relative_to(ROOT)): hits
        for path in scanned_files()
        if (hits := old_forms(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert found == {}, f"write these as docs/design.md#<anchor>: {found}"


def test_the_scan_covers_code_templates_and_docs() -> None:
    names = {str(p.relative_to(ROOT)) for p in scanned_files()}
    assert {"indexer/api.py", "docs/architecture.md", "README.md", "site_templates/base.html"} <= names


@pytest.mark.parametrize(
    ("text", "broken"),
    [
        ("see docs/design.md#d4 and docs/design.md#verdicts", []),
        ("see docs/design.md#d99", ["d99"]),
        ("([D4](design.md#d4)), [D0](design.md#d0)", ["d0"]),
        ("(docs/design.md#)", ["(empty)"]),
        ("not a reference: mydesign.md#d99", []),
    ],
)
def test_a_broken_reference_is_reported(text: str, broken: list[str]) -> None:
    assert broken_references(text, anchors()) == broken


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("the layers (DESIGN decision 16)", ["DESIGN", "decision 1"]),
        ("Verdicts (DESIGN §3)", ["DESIGN", "§3"]),
        ("it is larger (DESIGN 12)", ["DESIGN"]),
        ("as decided (decision 4)", ["decision 4"]),
        ("the layers (docs/design.md#d16); a design choice", []),
    ],
)
def test_an_old_form_is_reported(text: str, old: list[str]) -> None:
    assert old_forms(text) == old
