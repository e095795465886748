"""Run the composite action's steps (action.yml) on fresh clones of a temporary corpus.

`run:` steps run as written, with `GITHUB_OUTPUT` read back into the step outputs the action
declares; `uses:` steps have no work to do here (this interpreter already runs pincite, and
the cache is covered by test_ci_workflow.py). The install step is skipped for the same reason.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from conftest import CorpusRepo
from workflow_steps import condition_holds, expand, read_outputs, run_bash

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
HANDBOOK = "# Handbook\n\nRecords are kept for seven years.\n\nTrains are booked two weeks ahead.\n"


@dataclass
class ActionRun:
    ok: bool
    outputs: dict[str, str]
    log: str


def run_action(clone: Path, workdir: Path, inputs: dict[str, str], base_ref: str = "") -> ActionRun:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    given = {name: inputs.get(name, str(spec.get("default", ""))) for name, spec in action["inputs"].items()}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True, text=True)
    github = {"sha": head.stdout.strip(), "base_ref": base_ref}
    contexts: dict[str, Any] = {"inputs": given, "steps": {}, "github": github}
    log = []
    for step in action["runs"]["steps"]:
        if "uses" in step or step.get("name") == "Install pincite" or not condition_holds(step, contexts):
            continue
        env = {key: expand(str(value), contexts) for key, value in step.get("env", {}).items()}
        env["GITHUB_ACTION_PATH"] = str(ROOT)
        result = run_bash(expand(step["run"], contexts), clone, env, workdir)
        log.append(result.stdout + result.stderr)
        if "id" in step:
            contexts["steps"][step["id"]] = {"outputs": read_outputs(workdir)}
        if result.returncode != 0:
            return ActionRun(False, {}, "\n".join(log))
    outputs = {
        name: expand(spec["value"], contexts)
        for name, spec in action["outputs"].items()
        if spec["value"].split(".")[1] in contexts["steps"]  # a skipped step's outputs are empty
    }
    return ActionRun(True, outputs, "\n".join(log))


def corpus_with_citations(corpus_repo: CorpusRepo, quote: str) -> None:
    pinned = corpus_repo.commit({"notes/handbook.md": HANDBOOK}, message="handbook")
    corpus_repo.commit(
        {
            "pages/memo.md": (
                f'# Memo\n\nThe handbook says "{quote}" (notes/handbook.md@{pinned}#L3).\n\n'
                f'Travel: "booked two weeks ahead" (notes/handbook.md@{pinned}#L5).\n'
            )
        },
        message="memo",
    )


def clone_of(corpus_repo: CorpusRepo, target: Path, *flags: str) -> Path:
    source = f"file://{corpus_repo.root}"
    subprocess.run(["git", "clone", "-q", *flags, source, str(target)], check=True, capture_output=True)
    return target


def test_action_builds_checks_and_reports_counts(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_with_citations(corpus_repo, "kept for seven years")
    clone = clone_of(corpus_repo, tmp_path / "clone")
    inputs = {"roots": "notes", "documents": "pages", "site-url": "https://docs.example.org/notes/"}
    run = run_action(clone, tmp_path / "runner", inputs)
    assert run.ok, run.log
    assert Path(run.outputs["site-path"]).is_dir() and (Path(run.outputs["site-path"]) / "index.html").is_file()
    assert Path(run.outputs["index-path"]).is_file()
    counts = {name: run.outputs[name] for name in ("citations", "verified", "drifted", "unresolvable", "matched")}
    assert counts == {"citations": "2", "verified": "2", "drifted": "0", "unresolvable": "0", "matched": "2"}
    assert run.outputs["failed"] == run.outputs["wrong-ref"] == "0"
    pages = "\n".join(p.read_text(encoding="utf-8") for p in Path(run.outputs["site-path"]).rglob("*.html"))
    assert "seven years" in pages


def test_fabricated_quote_fails_the_step_unless_strictness_is_report(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_with_citations(corpus_repo, "kept for ten years")
    clone = clone_of(corpus_repo, tmp_path / "clone")
    inputs = {"roots": "notes", "documents": "pages"}
    failing = run_action(clone, tmp_path / "runner1", inputs)
    assert not failing.ok
    assert "::error file=" in failing.log
    reporting = run_action(clone, tmp_path / "runner2", {**inputs, "strictness": "report"})
    assert reporting.ok, reporting.log
    assert reporting.outputs["failed"] == "1" and reporting.outputs["matched"] == "1"


def test_action_refuses_a_shallow_clone_with_the_fix(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_with_citations(corpus_repo, "kept for seven years")
    clone = clone_of(corpus_repo, tmp_path / "clone", "--depth=1")
    run = run_action(clone, tmp_path / "runner", {"roots": "notes", "documents": "pages"})
    assert not run.ok
    assert "fetch-depth: 0" in run.log


def test_impact_mode_reports_what_a_pull_request_breaks(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_with_citations(corpus_repo, "kept for seven years")
    corpus_repo.git("checkout", "-q", "-b", "pr")
    corpus_repo.commit({"notes/handbook.md": HANDBOOK.replace("seven", "ten")}, message="ten years")
    clone = clone_of(corpus_repo, tmp_path / "clone")
    subprocess.run(["git", "checkout", "-q", "pr"], cwd=clone, check=True, capture_output=True)
    inputs = {"mode": "impact", "roots": "notes"}
    failing = run_action(clone, tmp_path / "runner1", inputs, base_ref="main")
    assert not failing.ok
    assert "::error file=notes/handbook.md,line=3,title=pincite impact%3A drifted::" in failing.log
    assert "::error file=pages/memo.md,line=3," in failing.log
    assert "pincite check" not in failing.log and "citation(s) in" not in failing.log  # check did not run
    reporting = run_action(clone, tmp_path / "runner2", {**inputs, "strictness": "report"}, base_ref="main")
    assert reporting.ok, reporting.log
    assert (reporting.outputs["broken"], reporting.outputs["moved"], reporting.outputs["mended"]) == ("1", "0", "0")
    assert "citations" not in reporting.outputs  # the check step's outputs: it was skipped
    explicit = run_action(clone, tmp_path / "runner3", {**inputs, "base": "origin/main", "strictness": "report"})
    assert explicit.ok and explicit.outputs["broken"] == "1", explicit.log
    wrong = run_action(clone, tmp_path / "runner4", {**inputs, "base": "no-such-branch", "strictness": "report"})
    assert not wrong.ok and "'no-such-branch' is not a commit" in wrong.log


def test_impact_mode_without_a_base_says_what_to_set(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_with_citations(corpus_repo, "kept for seven years")
    clone = clone_of(corpus_repo, tmp_path / "clone")
    run = run_action(clone, tmp_path / "runner", {"mode": "impact", "roots": "notes"})
    assert not run.ok and "set the 'base' input" in run.log
