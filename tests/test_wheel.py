"""The package as a user installs it by name: the built wheel in a fresh virtualenv, not this checkout.

The sdist and the wheel are built as the release workflow builds them and checked with
`twine check --strict`; the wheel is installed into a new virtualenv (its dependencies resolved
from its own metadata, so a dependency missing there fails here) and its `pincite` builds,
searches, checks and serves a repository of its own, from a folder with no `indexer/` in it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest
from conftest import CorpusRepo

import indexer
from indexer.integrations.json_schemas import OUTPUTS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], check=True, capture_output=True, timeout=600
    )
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin/` folder of a fresh virtualenv holding only the wheel and what its metadata asks for."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    wheel = next(dist.glob("pincite-*.whl"))
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=900,
    )
    return venv / "bin"


def test_the_distributions_carry_one_version_and_pass_twine_check(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"pincite-{indexer.__version__}-py3-none-any.whl", f"pincite-{indexer.__version__}.tar.gz"]
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_wheel_holds_the_package_and_the_site_templates(dist: Path) -> None:
    wheel = next(dist.glob("pincite-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "indexer/py.typed" in names and "indexer/site_templates/document.html" in names
    assert {f"indexer/schemas/{one.name}.schema.json" for one in OUTPUTS} <= names  # the --json schemas
    assert not any(name.startswith(("tests/", "bench/", "corpus/")) for name in names)
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert f"Version: {indexer.__version__}" in text
    assert "Classifier: Operating System :: POSIX" in text and "Keywords:" in text
    # The package page is read away from the repository: no image, no link that is not absolute.
    description = text.split("\n\n", 1)[1]
    assert "pincite init" in description and "![" not in description
    assert all(re.match(r"https?://", target) for target in re.findall(r"\]\(([^)]*)\)", description))


def test_the_installed_wheel_builds_searches_checks_and_serves(installed: Path, corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/policy.md": "# Policy\n\nBackups are kept for seven years.\n"})
    sha = corpus_repo.head()
    corpus_repo.commit({"memo.md": f'"Backups are kept for seven years."\ncorpus/policy.md@{sha}#L3\n'})

    def pincite(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(installed / "pincite"), *args], cwd=corpus_repo.root, capture_output=True, text=True, timeout=600
        )

    version = pincite("--version")
    assert version.returncode == 0 and indexer.__version__ in version.stdout
    built = pincite("build")
    assert built.returncode == 0, built.stderr
    found = pincite("search", "backups")
    assert found.returncode == 0 and "corpus/policy.md" in found.stdout
    checked = pincite("check", "memo.md")
    assert checked.returncode == 0 and "verified" in checked.stdout, checked.stdout + checked.stderr
    server = subprocess.Popen(
        [str(installed / "pincite"), "serve", "--port", "0"],
        cwd=corpus_repo.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        address = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline())
        assert address, "pincite serve printed no address"
        page = httpx.get(address.group(0), timeout=30)
        assert page.status_code == 200 and "corpus/policy.md" in page.text
    finally:
        server.terminate()
        server.wait(timeout=30)
