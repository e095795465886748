"""Run the site workflow's steps, in order, on a fresh clone of a temporary corpus repository.

Each `run:` step of `.github/workflows/site.yml` runs as written (bash -e, with the
expressions it uses filled in); each `uses:` step is replaced by its local equivalent:

    actions/checkout              a fresh `git clone` of the corpus repository (full history)
    actions/setup-python          nothing: this interpreter runs pincite
    actions/configure-pages       the base URL output, https://docs.example.org/corpus/
    actions/cache                 a folder of saved entries by key (workflow_steps.LocalCache):
                                  restore the exact key, else the newest entry matching a
                                  restore-keys prefix; save this run's paths under the key after
                                  the job (never overwriting)
    actions/upload-pages-artifact pack the folder with the action's own tar command; Pages
                                  accepts only files and folders

The install step is skipped: pincite is installed in this environment already. The build
step runs with `--json` appended so the test can read how many blobs were extracted.
"""

from __future__ import annotations

import json
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from conftest import CorpusRepo
from workflow_steps import LocalCache, read_outputs, run_step

from indexer.site.render import doc_page_path

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
    restored: dict[str, str | None]  # by cached path: the key restored, or None


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
    actions_cache = LocalCache(cache)
    restored: dict[str, str | None] = {}
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
            restored[step["with"]["path"]] = actions_cache.restore(step, contexts, clone)
        elif action == "actions/upload-pages-artifact":
            upload_path = clone / step["with"]["path"]
        elif action:
            raise AssertionError(f"no local equivalent for {action}: teach this test about it")
        elif step.get("id") == "install":
            assert "pip install" in step["run"]
        else:
            command, result = run_step(step, contexts, clone, workdir)
            assert result.returncode == 0, f"step {step.get('name', command)!r} failed:\n{result.stderr}"
            if "id" in step:
                contexts["steps"][step["id"]] = {"outputs": read_outputs(workdir)}
            if command.startswith("pincite build"):
                build_json = json.loads(result.stdout)
            if command.startswith("pincite check"):
                check_output = result.stdout
    actions_cache.save_pending(clone)
    assert upload_path is not None, "the workflow uploads no Pages artifact"
    assert build_json and check_output is not None
    summary = summary_file.read_text(encoding="utf-8") if summary_file.exists() else ""
    return Run(upload_path, build_json, check_output, summary, clone / ".pincite" / "index.sqlite", restored)


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
    # The site came back too: only what the new handbook version touches is rendered again.
    assert first.restored == {".pincite": None, "_site": None}
    assert second.restored[".pincite"] is not None and second.restored["_site"] is not None
    assert second.build["site"]["previous_site"] == "reused"
    # The notes' version page and document page (the handbook's first version page is written
    # again: it now links the handbook's history page).
    assert second.build["site"]["pages_reused"] == 2
    handbook = (second.site_dir / doc_page_path("corpus/handbook.md")).read_text(encoding="utf-8")
    assert "Laptops are returned on the last day." in handbook
