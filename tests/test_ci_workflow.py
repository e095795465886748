"""Run the site workflow's steps, in order, on a fresh clone of a temporary corpus repository.

Each `run:` step of `.github/workflows/site.yml` runs as written (bash -e, with the
expressions it uses filled in); each `uses:` step is replaced by its local equivalent:

    actions/checkout              a fresh `git clone` of the corpus repository (full history)
    actions/setup-python          nothing: this interpreter runs pincite
    actions/configure-pages       the base URL output, https://docs.example.org/corpus/
    actions/cache                 a folder of saved entries by key: restore the exact key, else
                                  the newest entry matching a restore-keys prefix; save this
                                  run's file under the key after the job (never overwriting)
    actions/upload-pages-artifact pack the folder with the action's own tar command; Pages
                                  accepts only files and folders

The install step is skipped: pincite is installed in this environment already. The build
step runs with `--json` appended so the test can read how many blobs were extracted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from conftest import CorpusRepo
from workflow_steps import expand, run_step

ROOT = Path(__file__).resolve().parent.parent
SITE_WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"
BASE_URL = "https://docs.example.org/corpus/"

HANDBOOK_V1 = "# Handbook\n\nRecords are kept for seven years.\n\n## Travel\n\nBook trains two weeks ahead.\n"
HANDBOOK_V2 = HANDBOOK_V1 + "\n## Equipment\n\nLaptops are returned on the last day.\n"


@dataclass
class Run:
    site_dir: Path
    build: dict[str, Any]
    check_output: str
    check_summary: str
    index: Path


def make_corpus(corpus_repo: CorpusRepo) -> str:
    pinned = corpus_repo.commit({"corpus/handbook.md": HANDBOOK_V1, "corpus/notes.txt": "Plain text notes.\n"})
    citation = f"corpus/handbook.md@{pinned}#L3"
    corpus_repo.commit(
        {
            "README.md": f'# Our corpus\n\nWe keep records "for seven years" ({citation}).\n',
            "docs/retention.md": f'# Retention\n\nThe handbook says "Records are kept for seven years." ({citation})\n',
        }
    )
    return pinned


def run_site_workflow(source: Path, workdir: Path, cache: Path) -> Run:
    workflow = yaml.safe_load(SITE_WORKFLOW.read_text(encoding="utf-8"))
    job = workflow["jobs"]["build"]
    clone = workdir / "repo"
    contexts: dict[str, Any] = {"steps": {}, "github": {}}
    cache_entries: list[tuple[str, str]] = []
    build_json: dict[str, Any] = {}
    check_output = ""
    summary_file = workdir / "step-summary.md"
    upload_path: Path | None = None
    for step in job["steps"]:
        action = str(step.get("uses", "")).split("@")[0]
        if action == "actions/checkout":
            assert step["with"]["fetch-depth"] == 0
            subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True, capture_output=True)
            head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True, text=True)
            contexts["github"]["sha"] = head.stdout.strip()
        elif action == "actions/setup-python":
            pass
        elif action == "actions/configure-pages":
            contexts["steps"][step["id"]] = {"outputs": {"base_url": BASE_URL}}
        elif action == "actions/cache":
            key = expand(step["with"]["key"], contexts)
            prefixes = [expand(line.strip(), contexts) for line in step["with"]["restore-keys"].splitlines()]
            cache_entries.append((key, step["with"]["path"]))
            restore_cache(cache, clone, step["with"]["path"], key, [p for p in prefixes if p])
        elif action == "actions/upload-pages-artifact":
            upload_path = clone / step["with"]["path"]
        elif action:
            raise AssertionError(f"no local equivalent for {action}: teach this test about it")
        elif step.get("id") == "install":
            assert "pip install" in step["run"]
        else:
            command, result = run_step(step, contexts, clone, workdir)
            assert result.returncode == 0, f"step {step.get('name', command)!r} failed:\n{result.stderr}"
            if command.startswith("pincite build"):
                build_json = json.loads(result.stdout)
            if command.startswith("pincite check"):
                check_output = result.stdout
    for key, path in cache_entries:
        save_cache(cache, clone, path, key)
    assert upload_path is not None, "the workflow uploads no Pages artifact"
    assert build_json and check_output is not None
    summary = summary_file.read_text(encoding="utf-8") if summary_file.exists() else ""
    return Run(upload_path, build_json, check_output, summary, clone / cache_entries[0][1])


def restore_cache(cache: Path, clone: Path, path: str, key: str, prefixes: list[str]) -> None:
    saved = sorted(cache.glob("*"), key=lambda entry: entry.stat().st_mtime, reverse=True) if cache.is_dir() else []
    hit = next((entry for entry in saved if entry.name == key), None)
    for prefix in prefixes:
        hit = hit or next((entry for entry in saved if entry.name.startswith(prefix)), None)
    if hit is not None:
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(hit, clone / path)


def save_cache(cache: Path, clone: Path, path: str, key: str) -> None:
    assert (clone / path).is_file(), f"the build left no {path} for the cache to save"
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / key).exists():
        shutil.copy2(clone / path, cache / key)


def assert_deployable(site: Path, workdir: Path) -> None:
    """Pack the folder as actions/upload-pages-artifact does; Pages takes only files and folders."""
    assert site.is_dir(), f"{site} was not built"
    artifact = workdir / "artifact.tar"
    pack = ["tar", "--dereference", "--hard-dereference", "--directory", str(site), "-cf", str(artifact)]
    subprocess.run([*pack, "--exclude=.git", "--exclude=.github", "."], check=True, capture_output=True)
    with tarfile.open(artifact) as packed:
        members = packed.getmembers()
    names = {m.name for m in members}
    assert "./index.html" in names
    assert all(m.isfile() or m.isdir() for m in members), [m.name for m in members if not (m.isfile() or m.isdir())]
    assert artifact.stat().st_size < 1 << 30


def test_site_workflow_runs_on_a_fresh_clone_and_reuses_the_cached_index(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    make_corpus(corpus_repo)
    cache = tmp_path / "actions-cache"

    first = run_site_workflow(corpus_repo.root, tmp_path / "run1", cache)
    assert_deployable(first.site_dir, tmp_path / "run1")
    assert first.build["extracted"] == first.build["versions"] == 2
    assert first.build["reused"] == 0
    assert first.check_summary.startswith("## pincite check")
    assert "2 citation(s) in 2 file(s): 2 verified" in first.check_summary
    assert "::error" not in first.check_output
    site_text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in first.site_dir.rglob("*.html"))
    assert "seven years" in site_text

    corpus_repo.commit({"corpus/handbook.md": HANDBOOK_V2}, message="handbook: equipment")
    second = run_site_workflow(corpus_repo.root, tmp_path / "run2", cache)
    assert_deployable(second.site_dir, tmp_path / "run2")
    # Only the new handbook blob is extracted; the restored index had every other version.
    assert second.build["extracted"] == 1
    assert second.build["reused"] == 2
    assert "2 verified" in second.check_summary
