"""Run the pull-request workflow's steps, in order, on a real repository with a base and a PR branch.

The base branch's index comes from the site workflow's own run on `main` (test_ci_workflow.py's
harness, which saves it in a local stand-in for the Actions cache); then each `run:` step of
`.github/workflows/impact.yml` runs as written on a fresh clone checked out at the pull request's
head, and each `uses:` step is replaced by its local equivalent:

    actions/checkout        a fresh `git clone` (full history), the PR's head checked out detached
    actions/setup-python    nothing: this interpreter runs pincite
    actions/cache/restore   the exact key, else the newest entry a restore-keys prefix matches
                            (workflow_steps.LocalCache); actions/cache saves after the job too
    actions/upload-artifact the folder must hold the built site

The install step is skipped: pincite is installed in this environment already.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from conftest import CorpusRepo
from test_ci_workflow import HANDBOOK_V1, make_corpus, run_site_workflow
from workflow_steps import LocalCache, expand, read_outputs, run_step

from indexer.site.render import doc_page_path

ROOT = Path(__file__).resolve().parent.parent
IMPACT_WORKFLOW = ROOT / ".github" / "workflows" / "impact.yml"
SITE_WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"


@dataclass
class Run:
    impact_status: int
    annotations: str
    summary: str
    build: dict[str, Any]
    restored: dict[str, str | None]  # by cached path: the key restored, or None
    artifact: Path


def run_impact_workflow(source: Path, pr_head: str, workdir: Path, cache: Path) -> Run:
    workflow = yaml.safe_load(IMPACT_WORKFLOW.read_text(encoding="utf-8"))
    clone = workdir / "repo"
    base_sha = subprocess.run(
        ["git", "rev-parse", "main"], cwd=source, check=True, capture_output=True, text=True
    ).stdout.strip()
    event = {"pull_request": {"number": 1, "head": {"sha": pr_head}, "base": {"sha": base_sha}}}
    contexts: dict[str, Any] = {"steps": {}, "github": {"event": event, "base_ref": "main", "sha": pr_head}}
    impact_status, annotations, build, artifact = -1, "", {}, None
    actions_cache, restored = LocalCache(cache), {}
    for step in workflow["jobs"]["impact"]["steps"]:
        action = str(step.get("uses", "")).split("@")[0]
        if action == "actions/checkout":
            assert step["with"]["fetch-depth"] == 0
            subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True, capture_output=True)
            ref = expand(step["with"]["ref"], contexts)
            subprocess.run(["git", "checkout", "-q", "--detach", ref], cwd=clone, check=True, capture_output=True)
        elif action == "actions/setup-python":
            pass
        elif action in ("actions/cache", "actions/cache/restore"):
            restored[step["with"]["path"]] = actions_cache.restore(step, contexts, clone)
        elif action == "actions/upload-artifact":
            artifact = clone / step["with"]["path"]
        elif action:
            raise AssertionError(f"no local equivalent for {action}: teach this test about it")
        elif step.get("id") == "install":
            assert "pip install" in step["run"]
        else:
            command, result = run_step(step, contexts, clone, workdir)
            if command.startswith("pincite impact"):
                impact_status, annotations = result.returncode, result.stdout
                continue
            assert result.returncode == 0, f"step {step.get('name', command)!r} failed:\n{result.stderr}"
            if "id" in step:
                contexts["steps"][step["id"]] = {"outputs": read_outputs(workdir)}
            if command.startswith("pincite build"):
                build = json.loads(result.stdout)
    assert artifact is not None, "the workflow uploads no site"
    actions_cache.save_pending(clone)
    summary_file = workdir / "step-summary.md"
    summary = summary_file.read_text(encoding="utf-8") if summary_file.exists() else ""
    return Run(impact_status, annotations, summary, build, restored, artifact)


def test_the_workflow_runs_on_pull_requests_and_reads_the_site_workflows_cache() -> None:
    workflow = yaml.safe_load(IMPACT_WORKFLOW.read_text(encoding="utf-8"))
    site = yaml.safe_load(SITE_WORKFLOW.read_text(encoding="utf-8"))
    assert "pull_request" in workflow.get("on", workflow.get(True))
    steps = workflow["jobs"]["impact"]["steps"]
    restore = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache/restore@"))
    saved = next(s for s in site["jobs"]["build"]["steps"] if str(s.get("uses", "")).startswith("actions/cache@"))
    assert restore["with"]["path"] == saved["with"]["path"] == ".pincite"
    # The site workflow saves under the pushed commit; the base branch's tip is that commit.
    assert restore["with"]["key"] == saved["with"]["key"].replace("github.sha", "github.event.pull_request.base.sha")
    # The review site: saved in the pull request's scope, restored by the same prefix as the site workflow's.
    review = next(s for s in steps if str(s.get("uses", "")).startswith("actions/cache@"))
    site_cache = [s for s in site["jobs"]["build"]["steps"] if str(s.get("uses", "")).startswith("actions/cache@")][1]
    assert review["with"]["path"] == site_cache["with"]["path"] == "_site"
    assert review["with"]["restore-keys"] == site_cache["with"]["restore-keys"]
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@"))
    assert upload["if"] == "${{ !cancelled() }}", "the site is uploaded for review even when impact fails"
    assert workflow["permissions"] == {"contents": "read"}


def test_a_pull_request_that_edits_a_cited_line_is_annotated_on_both_ends(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    make_corpus(corpus_repo)
    cache = tmp_path / "actions-cache"
    run_site_workflow(corpus_repo.root, tmp_path / "main", cache)
    corpus_repo.git("checkout", "-q", "-b", "pr")
    edited = HANDBOOK_V1.replace("Records are kept for seven years.", "Records are kept for ten years.")
    pr_head = corpus_repo.commit({"corpus/handbook.md": edited}, message="handbook: ten years")

    run = run_impact_workflow(corpus_repo.root, pr_head, tmp_path / "pr", cache)
    assert run.restored[".pincite"] is not None, "the base branch's index was not restored"
    assert run.build["extracted"] == 1  # only the blob the pull request added
    assert run.impact_status == 7
    assert (
        "::error file=corpus/handbook.md,line=3,title=pincite impact%3A drifted::"
        "this edit drifts 2 citations: README.md:3, docs/retention.md:3"
    ) in run.annotations
    assert "::error file=README.md,line=3,title=citation verified → drifted::" in run.annotations
    assert "::error file=docs/retention.md,line=3,title=citation verified → drifted::" in run.annotations
    assert f"changed by {pr_head[:12]} (handbook: ten years)" in run.annotations
    assert run.summary.startswith("## pincite impact") and "**2 broken**" in run.summary
    assert (run.artifact / "index.html").is_file()


def test_a_pull_request_that_breaks_nothing_passes(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    make_corpus(corpus_repo)
    corpus_repo.git("checkout", "-q", "-b", "pr")
    pr_head = corpus_repo.commit({"corpus/handbook.md": HANDBOOK_V1 + "\nA new closing line.\n"})
    run = run_impact_workflow(corpus_repo.root, pr_head, tmp_path / "pr", tmp_path / "empty-cache")
    assert set(run.restored.values()) == {None}  # no cache yet: a cold build
    assert run.impact_status == 0, run.annotations
    assert "::error" not in run.annotations and "**0 broken**" in run.summary


def test_the_guide_holds_the_workflow_as_it_is() -> None:
    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    assert "```yaml\n" + IMPACT_WORKFLOW.read_text(encoding="utf-8") + "```" in guide


def test_a_second_push_to_a_pull_request_reuses_its_review_site(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    make_corpus(corpus_repo)
    cache = tmp_path / "actions-cache"
    run_site_workflow(corpus_repo.root, tmp_path / "main", cache)
    corpus_repo.git("checkout", "-q", "-b", "pr")
    first_push = corpus_repo.commit({"corpus/handbook.md": HANDBOOK_V1 + "\nA first addition.\n"})
    first = run_impact_workflow(corpus_repo.root, first_push, tmp_path / "pr1", cache)
    # The site workflow's site was built for the published URL: not this review site's settings.
    assert first.restored["_site"] is None and first.build["site"]["previous_site"] == "none"
    second_push = corpus_repo.commit({"corpus/handbook.md": HANDBOOK_V1 + "\nA second addition.\n"})
    second = run_impact_workflow(corpus_repo.root, second_push, tmp_path / "pr2", cache)
    assert second.restored["_site"] is not None
    assert second.build["site"]["previous_site"] == "reused" and second.build["site"]["pages_reused"] > 0
    handbook = second.artifact / doc_page_path("corpus/handbook.md")
    assert "A second addition." in handbook.read_text(encoding="utf-8")
