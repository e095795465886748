"""The layers of docs/design.md#d16, checked on the source: no upward import, no cycle.

Every import statement counts, at module level or inside a function, so a lazy import
cannot hide a dependency that points the wrong way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "indexer"

# Lowest first. A module may import its own layer and the layers before it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundation",
        (
            "indexer.errors",
            "indexer.config",
            "indexer.locks",
            "indexer.files",
            "indexer.state",
            "indexer.machine",
            "indexer.progress",
            "indexer.shapes",
        ),
    ),
    ("git boundary", ("indexer.vcs",)),
    ("text model", ("indexer.text",)),
    ("extraction", ("indexer.extract",)),
    ("index", ("indexer.index",)),
    ("citations", ("indexer.citations",)),
    ("snapshots", ("indexer.snapshots",)),
    ("site", ("indexer.site",)),
    ("library API", ("indexer.api", "indexer")),
    ("integrations", ("indexer.integrations",)),
    ("cli", ("indexer.cli",)),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    """The layer of a module: the longest matching prefix decides (`indexer` alone is the API facade)."""
    best, best_len = -1, -1
    for rank, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    assert best >= 0, f"{module} belongs to no layer: add it to LAYERS"
    return best


def imported_modules(path: Path, all_modules: set[str]) -> set[str]:
    """The pincite modules `path` imports, resolving `from pkg import module` to the module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("indexer")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("indexer"):
            assert node.level == 0, f"{path}: relative import; pincite imports by absolute name"
            names = [alias.name for alias in node.names]
            if node.module == "indexer" and names == ["__version__"]:
                continue  # the version string, not the API facade
            submodules = {f"{node.module}.{n}" for n in names} & all_modules
            found |= submodules or {node.module}
    return found


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(files)
    return {name: imported_modules(path, modules) & modules for name, path in files.items()}


def test_no_layer_imports_a_higher_one() -> None:
    upward = [
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for module, targets in import_graph().items()
        for target in sorted(targets)
        if layer_of(target) > layer_of(module) and module != "indexer"  # the facade re-exports the API lazily
    ]
    assert upward == []


def test_there_are_no_import_cycles() -> None:
    graph = {m: {t for t in ts if t != m} for m, ts in import_graph().items() if m != "indexer"}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from indexer.site.builder import render_site\n", "indexer.site.builder"),
        ("def f():\n    from indexer.api import build\n", "indexer.api"),
        ("from indexer.extract import registry\n", "indexer.extract.registry"),
    ],
)
def test_the_walk_sees_every_kind_of_import(tmp_path: Path, source: str, expected: str) -> None:
    module = tmp_path / "m.py"
    module.write_text(source)
    known = {"indexer.site.builder", "indexer.api", "indexer.extract.registry", "indexer.extract"}
    assert imported_modules(module, known) == {expected}


def test_an_upward_import_is_reported() -> None:
    # The checker itself can fail: an index module importing the site ranks above its own layer.
    assert layer_of("indexer.site.builder") > layer_of("indexer.index.build")
    assert layer_of("indexer") == layer_of("indexer.api")
