"""The benchmark runner's promises, without running a measurement: every scenario is listed and
imports, BENCHMARKS.md holds only sections of scenarios that exist (each with its command), and
writing a section replaces that one and no other.

The tests never import `bench` (the runner is a tool beside the package, not something tests
depend on): they run it in a child process, as a person does.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted(
    p.stem.replace("_", "-") for p in (ROOT / "bench" / "scenarios").glob("*.py") if p.name != "__init__.py"
)
HEADING = re.compile(r"^## (?P<scenario>[a-z][a-z0-9-]*)(?: — (?P<subject>.+))?$")


def _python(code: str, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _sections() -> list[tuple[str, str]]:
    """(heading, body) of each `## ` section of BENCHMARKS.md."""
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    parts = re.split(r"^(## .*)$", text, flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 15


def test_the_list_names_every_scenario_with_its_summary() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench", "--list"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    listed = {line.split()[0]: line.split(None, 1)[1] for line in proc.stdout.splitlines() if line.strip()}
    assert sorted(listed) == SCENARIOS
    assert all(summary.strip() for summary in listed.values())


def test_an_unknown_scenario_is_refused_with_a_hint() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench", "no-such"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--list" in proc.stderr and "Traceback" not in proc.stderr


def test_every_scenario_module_imports_and_its_options_parse() -> None:
    code = """
import importlib, sys
from bench.__main__ import parser_for
for name in sys.argv[1:]:
    module = importlib.import_module("bench.scenarios." + name.replace("-", "_"))
    assert parser_for(name, module).format_help(), name  # its options beside the runner's, without a clash
    assert callable(module.run), name
    assert (module.__doc__ or "").strip(), name
# A scenario's steps may run with another checkout's pincite: no module imports it at the top.
assert "indexer" not in sys.modules, sorted(m for m in sys.modules if m.startswith("indexer"))
print("ok")
"""
    assert _python(code, *SCENARIOS).strip() == "ok"


def test_no_test_imports_bench() -> None:
    """What tests share with the benchmarks (the synthetic corpus, the MCP client) lives in tests/."""
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "bench" or n.startswith("bench.") for n in names), f"{path.name} imports {names}"


def test_no_scenario_edits_the_import_path() -> None:
    for path in (ROOT / "bench").rglob("*.py"):
        assert "sys.path.insert" not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize(("heading", "body"), _sections(), ids=[h for h, _ in _sections()])
def test_every_section_of_benchmarks_md_is_a_scenario_with_its_command(heading: str, body: str) -> None:
    found = HEADING.match(heading)
    assert found, f"{heading!r}: a section is `## <scenario>` or `## <scenario> — <subject>`"
    assert found["scenario"] in SCENARIOS, f"{heading!r} names no scenario in bench/scenarios/"
    assert f"`python -m bench {found['scenario']}" in body, f"{heading!r} does not show its command"
    assert re.search(r"[Mm]easured \d{4}-\d\d-\d\d", body), f"{heading!r} does not say when it was measured"


def test_benchmarks_md_has_one_section_per_heading() -> None:
    headings = [h for h, _ in _sections()]
    assert len(headings) == len(set(headings))


def test_writing_a_section_replaces_that_one_and_no_other(tmp_path: Path) -> None:
    target = tmp_path / "BENCHMARKS.md"
    target.write_text("# Benchmarks\n\nIntro.\n\n## check\n\nold\n\n## chunk\n\nkept\n", encoding="utf-8")
    code = """
import sys
from pathlib import Path
from bench.report import write_section
write_section(Path(sys.argv[1]), "check", None, "new figures")
write_section(Path(sys.argv[1]), "real-repo", "rust-lang/rfcs", "a repository")
"""
    _python(code, str(target))
    assert target.read_text(encoding="utf-8") == (
        "# Benchmarks\n\nIntro.\n\n## check\n\nnew figures\n\n## chunk\n\nkept\n"
        "\n## real-repo — rust-lang/rfcs\n\na repository\n"
    )


def test_render_fidelity_counts_no_word_of_a_rest_comment_as_prose() -> None:
    code = """
from bench.scenarios.render_fidelity import prose_words
source = (
    "Kept words.\\n\\n.. Small features may be\\n   added until planned.\\n\\n"
    "* item\\n\\n    .. NOTE: hidden remark\\n       encompass\\n\\n.. note::\\n\\n   Shown admonition.\\n\\nAfter.\\n"
)
print(sorted(prose_words(source)))
"""
    assert _python(code).strip() == str(sorted({"Kept", "words", "item", "Shown", "admonition", "After"}))


@pytest.mark.parametrize("kind", ["peps", "vitepress"])
def test_render_fidelity_reads_the_rendered_view_of_every_page(kind: str, tmp_path: Path) -> None:
    """The scenario finds each page's rendered view in the page as the site writes it (a page whose
    view it cannot find is left out of the words-missing count, which would then say nothing)."""
    code = """
import sys
from pathlib import Path
from bench.scenarios.render_fidelity import measure, synthetic_repo
found = measure(synthetic_repo(sys.argv[1], Path(sys.argv[2]), 4), (".",))
print(found["documents"], found["rendered"], found["internal_links_resolved"])
"""
    documents, rendered, links = map(int, _python(code, kind, str(tmp_path)).split())
    assert documents >= rendered >= 4  # the generated markup documents (a corpus may hold plain files too)
    assert links > 0
