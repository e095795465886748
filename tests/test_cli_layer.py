"""The CLI is a thin shell over the library API, checked on the source of `indexer/cli/`.

A command parses its options, makes library calls through `indexer.api` and prints; what it
does lives in the library, so the MCP server and Python callers get the same behaviour. Two
rules, each read from every import and call (lazy and type-only ones included):

- cli/ imports only `indexer.api`, `indexer.errors`, the integrations (doctor, the MCP server:
  front ends built on the API, a layer the API cannot import) and its own helper modules;
- an exit status always comes from the error hierarchy (`SomeError.exit_code`, or raising the
  error), never a literal number in `sys.exit(...)`, `ctx.exit(...)` or `SystemExit(...)`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_architecture import PACKAGE, imported_modules, module_name

CLI = PACKAGE / "cli"
ALLOWED = ("indexer.api", "indexer.errors", "indexer.cli", "indexer.integrations")
# Each exception names why the API cannot serve the command.
EXCEPTIONS = {
    ("indexer.cli.extract", "indexer.extract.textconv"): (
        "git runs `pincite textconv` once per diffed file: it loads the extractors alone, not the API's layers"
    ),
}


def _allowed(target: str) -> bool:
    return any(target == prefix or target.startswith(prefix + ".") for prefix in ALLOWED)


def _all_modules() -> set[str]:
    return {module_name(p) for p in PACKAGE.rglob("*.py")}


def test_cli_modules_import_only_the_api_errors_integrations_and_their_helpers() -> None:
    known = _all_modules()
    below = [
        f"{module_name(path)} imports {target}"
        for path in sorted(CLI.glob("*.py"))
        for target in sorted(imported_modules(path, known))
        if not _allowed(target) and (module_name(path), target) not in EXCEPTIONS
    ]
    assert below == []


def test_every_documented_exception_is_still_needed() -> None:
    known = _all_modules()
    for module, target in EXCEPTIONS:
        path = PACKAGE.parent / (module.replace(".", "/") + ".py")
        assert target in imported_modules(path, known), f"{module} no longer imports {target}: drop the exception"


def _literal_exits(source: str) -> list[str]:
    """Calls that end the process (`*.exit(...)`, `SystemExit(...)`, `Exit(...)`) with a number written out."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in ("exit", "_exit", "SystemExit", "Exit"):
            continue
        numbers = [
            n
            for arg in [*node.args, *(k.value for k in node.keywords)]
            for n in ast.walk(arg)
            if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool)
        ]
        if numbers:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_cli_module_exits_with_a_literal_status() -> None:
    literal = {
        path.name: exits for path in sorted(CLI.glob("*.py")) if (exits := _literal_exits(path.read_text("utf-8")))
    }
    assert literal == {}


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nsys.exit(6)\n",
        "import sys\nsys.exit(0 if found else 1)\n",
        "raise SystemExit(2)\n",
        "def f(ctx):\n    ctx.exit(code=3)\n",
        "import os\nos._exit(1)\n",
    ],
)
def test_the_exit_scan_sees_a_literal_status(source: str) -> None:
    assert _literal_exits(source) != []


def test_the_exit_scan_accepts_a_status_from_the_hierarchy() -> None:
    source = "import sys\nfrom indexer.errors import CheckFailed\nsys.exit(CheckFailed.exit_code)\n"
    assert _literal_exits(source) == []


def test_the_import_rule_sees_a_module_below_the_api(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from indexer.vcs.repo import GitRepo\n")
    (target,) = imported_modules(module, _all_modules())
    assert not _allowed(target)
