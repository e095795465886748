"""docs/architecture.md names every module of `indexer/` in the paragraph of its layer.

The rule the page states: a module is named by its path under `indexer/` in backticks
(`vcs/repo.py`, `errors.py`, `__init__.py` for the package's own), inside the paragraph of
"The layers" whose bold title is its layer's name in tests/test_architecture.py. An empty
`__init__.py` of a subpackage is no module to name.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_architecture import LAYERS, PACKAGE, layer_of, module_name

PAGE = PACKAGE.parent / "docs" / "architecture.md"
TITLE = re.compile(r"^\*\*([^*]+)\*\*")


def layer_paragraphs(page: str) -> dict[str, str]:
    """The paragraphs of "The layers", by their bold title, lowercased."""
    section = re.split(r"^## The layers\n", page, maxsplit=1, flags=re.M)[1].split("\n## ", 1)[0]
    found: dict[str, str] = {}
    for paragraph in re.split(r"\n\s*\n", section):
        title = TITLE.match(paragraph.strip())
        if title:
            found[title.group(1).strip().lower()] = paragraph
    return found


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if not (p.name == "__init__.py" and not p.read_text().strip()))


def unnamed(page: str, files: list[Path]) -> list[str]:
    """The modules not named in their layer's paragraph, each with the layer it belongs to."""
    paragraphs = layer_paragraphs(page)
    missing = []
    for path in files:
        layer = LAYERS[layer_of(module_name(path))][0].lower()
        named = f"`{path.relative_to(PACKAGE).as_posix()}`"
        if named not in paragraphs.get(layer, ""):
            missing.append(f"{named} (layer: {layer})")
    return missing


def test_every_layer_has_its_paragraph() -> None:
    paragraphs = layer_paragraphs(PAGE.read_text(encoding="utf-8"))
    assert [name for name, _ in LAYERS if name.lower() not in paragraphs] == []


def test_every_module_is_named_in_its_layers_paragraph() -> None:
    assert unnamed(PAGE.read_text(encoding="utf-8"), modules()) == []


def test_a_module_left_out_is_reported(tmp_path: Path) -> None:
    page = PAGE.read_text(encoding="utf-8").replace("`vcs/pins.py`", "the pins module")
    assert unnamed(page, [PACKAGE / "vcs" / "pins.py"]) == ["`vcs/pins.py` (layer: git boundary)"]


def test_a_module_named_in_another_layers_paragraph_is_reported() -> None:
    page = "## The layers\n\n**Foundation** (`indexer/`) — `vcs/repo.py`\n\n**Git boundary** (`vcs/`) — nothing\n"
    assert unnamed(page, [PACKAGE / "vcs" / "repo.py"]) == ["`vcs/repo.py` (layer: git boundary)"]


def test_the_module_list_holds_every_layer() -> None:
    names = {p.relative_to(PACKAGE).as_posix() for p in modules()}
    assert {"__init__.py", "errors.py", "vcs/repo.py", "cli/main.py", "integrations/mcp_server.py"} <= names
    assert "vcs/__init__.py" not in names
