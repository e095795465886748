"""A newcomer's first session, as docs/guide.md tells it, on a fresh clone of this repository.

Build the sample corpus, open the site, search, cite, paste the citation into a Markdown
file and check it: every step is the `pincite` command a person would type.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
GUIDE = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")


def pincite(*args: str, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["pincite", *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    if ok:
        assert result.returncode == 0, f"pincite {' '.join(args)}: {result.stderr}"
    return result


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("newcomer") / "pincite"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True, capture_output=True)
    pincite("build", cwd=target)
    return target


@pytest.fixture
def server(clone: Path) -> Iterator[str]:
    process = subprocess.Popen(
        ["pincite", "serve", "--port", "0"], cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, f"pincite serve said: {line!r}"
        yield match.group(0)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_guide_shows_these_steps() -> None:
    for command in ("pincite build", "pincite search", "pincite cite", "--format markdown", "pincite check"):
        assert command in GUIDE


def test_build_gives_a_site_that_serves(clone: Path, server: str) -> None:
    assert (clone / "_site" / "index.html").is_file()
    home = httpx.get(server, timeout=30)
    assert home.status_code == 200 and "<html" in home.text.lower()


def test_search_cite_paste_check(clone: Path, server: str) -> None:
    hits = json.loads(pincite("search", "retention period", "--json", cwd=clone).stdout)
    assert hits, "the sample corpus has no passage about retention periods"
    first = hits[0]
    first_line = first["lines"][0]
    block = pincite(
        "cite", first["path"], "--lines", str(first_line), "--format", "markdown", "--site-url", server, cwd=clone
    ).stdout
    assert block.startswith("> ") and first["commit"] in block

    permalink = re.search(r"\((http://127\.0\.0\.1:\d+/v/[^)\s]+)\)", block)
    assert permalink, block
    page = httpx.get(permalink.group(1), timeout=30)
    assert page.status_code == 200

    notes = clone / "notes"
    notes.mkdir()
    (notes / "memo.md").write_text(f"# Memo\n\n{block}\n", encoding="utf-8")
    report = pincite("check", "notes", "--site-url", server, cwd=clone)
    assert "1 verified" in report.stdout and "1 matched" in report.stdout, report.stdout


def test_a_fabricated_quote_fails_the_check(clone: Path) -> None:
    hit = json.loads(pincite("search", "retention period", "--json", cwd=clone).stdout)[0]
    notes = clone / "fabricated"
    notes.mkdir()
    (notes / "memo.md").write_text(
        f'The policy says "records are burned every Friday" ({hit["citation"]}).\n', encoding="utf-8"
    )
    report = pincite("check", "fabricated", cwd=clone, ok=False)
    assert report.returncode == 7
    assert "failed" in report.stdout


def test_doctor_in_the_clone_names_what_is_left(clone: Path) -> None:
    data = json.loads(pincite("doctor", "--json", cwd=clone).stdout)
    checks = {check["name"]: check for check in data["checks"]}
    assert checks["index"]["status"] == "ok"
    assert checks["history"]["status"] == "ok"
    assert all(check["hint"] for check in data["checks"] if check["status"] == "warn")


def test_this_repositorys_documents_pass_the_site_workflows_check(clone: Path) -> None:
    """The site workflow deploys only when this check passes: an example citation in the
    docs that does not resolve would stop the site from being published."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text(encoding="utf-8"))
    runs = [str(step.get("run", "")) for step in workflow["jobs"]["build"]["steps"]]
    command = next(run for run in runs if run.startswith("pincite check"))
    result = subprocess.run(command, shell=True, cwd=clone, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
