"""The verdict vocabulary is typed and written once: `indexer/citations/verdicts.py`.

A word of a verdict, a quote check, a check record or a recovery written as a string literal
elsewhere in the package (`status == "drifted"`, `"needs_human"`) is a typo mypy cannot catch:
the test below reads every module's string constants (docstrings and the keys of dict literals,
which name JSON fields, aside) and fails on one.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from indexer.citations.verdicts import (
    AppliedBy,
    ChangeKind,
    CheckStatus,
    Detail,
    Outcome,
    QuoteStatus,
    VerdictStatus,
)

PACKAGE = Path(__file__).resolve().parent.parent / "indexer"
VOCABULARY = PACKAGE / "citations" / "verdicts.py"
# Where the words are values. Below the citations layer, vcs/ holds git's own status words as git
# reports them (`ChangeKind` compares equal to them); the snapshot store's results have their own
# words (new / changed / unchanged / failed), which are not a verdict's.
SCANNED = ("citations", "api.py", "site", "integrations", "cli")
OTHER_VOCABULARIES = {PACKAGE / "cli" / "snapshot.py"}
WORDS: dict[str, str] = {}  # word -> the enumeration that holds it (the first, for a shared word)
for _enum in (VerdictStatus, QuoteStatus, CheckStatus, Outcome, Detail, AppliedBy, ChangeKind):
    for _member in _enum:
        WORDS.setdefault(str(_member), _enum.__name__)


def _modules() -> list[Path]:
    found: list[Path] = []
    for name in SCANNED:
        path = PACKAGE / name
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return [p for p in found if p != VOCABULARY and p not in OTHER_VOCABULARIES]


def _not_values(tree: ast.AST) -> set[int]:
    """ids of the string constants that are no value: docstrings, pieces of f-strings (prose), and
    JSON field names (keys of dict literals, subscripts, `.get`'s key)."""
    found = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found |= {id(key) for key in node.keys if key is not None}
        elif isinstance(node, ast.JoinedStr):
            found |= {id(part) for part in node.values}
        elif isinstance(node, ast.Subscript):
            found.add(id(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            found |= {id(arg) for arg in node.args[:1]}
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the constant nodes that are docstrings (a module's, a class's, a function's)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def raw_words(source: str) -> list[tuple[int, str]]:
    """(line, word) of every string constant in `source` that is a vocabulary word used as a value."""
    tree = ast.parse(source)
    skipped = _not_values(tree)
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in WORDS
        and id(node) not in skipped
    )


def test_no_module_writes_a_verdict_word_as_a_string() -> None:
    modules = _modules()
    assert len(modules) > 40, "the scan found the package's modules"
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {word!r} (use {WORDS[word]})"
        for path in modules
        for line, word in raw_words(path.read_text(encoding="utf-8"))
    ]
    assert not found, "raw vocabulary words outside indexer/citations/verdicts.py:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('if verdict.status == "drifted":\n    pass\n', [(1, "drifted")]),
        ('outcome = "needs_human"\n', [(1, "needs_human")]),
        (
            'def f() -> str:\n    return {"moved": x}.get(key, "re-added") or "shifted"\n',
            [(2, "re-added"), (2, "shifted")],
        ),
        ('"""verified, drifted."""\nfield = {"relocated": None}\nreason = f"unchanged{moved}"\n', []),
        ('count = summary["verified"] + summary.get("drifted", 0)\n', []),
    ],
)
def test_the_scan_finds_words_used_as_values_and_passes_docstrings_and_json_keys(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert raw_words(source) == expected


def test_a_check_record_status_is_a_verdict_status_or_malformed() -> None:
    assert {str(s) for s in CheckStatus} == {str(s) for s in VerdictStatus} | {"malformed", "unpinned"}
    for status in VerdictStatus:
        assert CheckStatus(status) == status


def test_members_are_their_words_in_json_and_text() -> None:
    record = {"status": VerdictStatus.DRIFTED, "outcome": Outcome.NEEDS_HUMAN, VerdictStatus.VERIFIED: 1}
    assert json.dumps(record) == '{"status": "drifted", "outcome": "needs_human", "verified": 1}'
    assert f"{QuoteStatus.WRONG_REF}: {ChangeKind.READDED}" == "wrong_ref: re-added"
    assert VerdictStatus("unresolvable") is VerdictStatus.UNRESOLVABLE
