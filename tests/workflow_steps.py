"""Run GitHub Actions `run:` steps locally, for the tests that execute our workflow and action.

Only the expressions our files use are filled in (`steps.<id>.outputs.<name>`,
`inputs.<name>`, `github.<name>`); any other expression fails the test, so the files stay
runnable outside GitHub Actions.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def expand(text: str, contexts: dict[str, Any]) -> str:
    """Fill in `${{ ... }}` from nested dicts: {"steps": {id: {"outputs": {...}}}, "inputs": {...}}."""

    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        node: Any = contexts
        for part in expression.split("."):
            if not isinstance(node, dict) or part not in node:
                raise AssertionError(f"expression {expression!r} has no local value: keep steps locally runnable")
            node = node[part]
        return str(node)

    return EXPRESSION.sub(value, text)


CONDITION = re.compile(r"^inputs\.([\w-]+) (==|!=) '([^']*)'$")


def condition_holds(step: dict[str, Any], contexts: dict[str, Any]) -> bool:
    """Whether a step's `if:` holds; only `inputs.NAME == 'value'` (or `!=`) is known here."""
    condition = str(step.get("if", "")).strip()
    if not condition:
        return True
    found = CONDITION.match(condition)
    if not found:
        raise AssertionError(f"condition {condition!r} has no local meaning: keep steps locally runnable")
    name, operator, value = found.groups()
    return (str(contexts["inputs"][name]) == value) == (operator == "==")


def run_bash(command: str, cwd: Path, env: dict[str, str], workdir: Path) -> subprocess.CompletedProcess[str]:
    """Run a step the way GitHub's Linux runners do, with the runner's files in `workdir`."""
    runner_temp = workdir / "runner-temp"
    runner_temp.mkdir(parents=True, exist_ok=True)
    # What actions/setup-python provides: `python` is the interpreter that runs pincite.
    tool_bin = workdir / "setup-python-bin"
    tool_bin.mkdir(exist_ok=True)
    write_python_wrapper(tool_bin / "python")
    search_path = os.pathsep.join([str(tool_bin), str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    runner_files = {
        "PATH": search_path,
        "GITHUB_STEP_SUMMARY": str(workdir / "step-summary.md"),
        "GITHUB_OUTPUT": str(workdir / "step-output.txt"),
        "RUNNER_TEMP": str(runner_temp),
        "CI": "true",
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
        cwd=cwd,
        env={**os.environ, **runner_files, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def run_step(
    step: dict[str, Any], contexts: dict[str, Any], cwd: Path, workdir: Path
) -> tuple[str, subprocess.CompletedProcess[str]]:
    """A workflow's `run:` step, its expressions and env expanded; `pincite build` asked for --json."""
    command = expand(step["run"], contexts)
    env = {key: expand(str(value), contexts) for key, value in step.get("env", {}).items()}
    if command.startswith("pincite build"):
        command += " --json"
    return command, run_bash(command, cwd, env, workdir)


def write_python_wrapper(target: Path) -> None:
    """Make `target` run this interpreter, virtualenv included.

    A symlink would not do: Python finds a virtualenv by the `pyvenv.cfg` beside the path it was
    started as, so a link to a venv's interpreter placed elsewhere runs the base Python without the
    venv's packages. A script that execs the interpreter by its own path keeps the venv.
    """
    if target.exists():
        return
    target.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n', encoding="utf-8")
    target.chmod(0o755)


def read_outputs(workdir: Path) -> dict[str, str]:
    """What the steps wrote to $GITHUB_OUTPUT (name=value lines), then clear it for the next step."""
    target = workdir / "step-output.txt"
    if not target.exists():
        return {}
    lines = target.read_text(encoding="utf-8").splitlines()
    target.unlink()
    return dict(line.split("=", 1) for line in lines if "=" in line)


class LocalCache:
    """A stand-in for the Actions cache (actions/cache, actions/cache/restore) in a folder.

    An entry is saved once under its key, holding each of the step's paths (files or folders,
    one a line) as the job left them; a restore takes the exact key, else the newest entry whose
    key starts with a restore-keys prefix, and puts its paths back in the clone.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pending: list[tuple[str, list[str]]] = []  # what actions/cache saves after the job

    def _saved(self) -> list[str]:
        """The entries' keys, newest first."""
        order = self.folder / "order.txt"
        return order.read_text(encoding="utf-8").splitlines()[::-1] if order.exists() else []

    def restore(self, step: dict[str, Any], contexts: dict[str, Any], clone: Path) -> str | None:
        """Run a cache step's restore half; the key restored, or None. actions/cache also saves later."""
        spec = step["with"]
        paths = [expand(line.strip(), contexts) for line in str(spec["path"]).splitlines() if line.strip()]
        key = expand(spec["key"], contexts)
        prefixes = [expand(line.strip(), contexts) for line in str(spec.get("restore-keys", "")).splitlines()]
        if str(step["uses"]).split("@")[0] == "actions/cache":
            self.pending.append((key, paths))
        saved = self._saved()
        hit = key if key in saved else next((k for p in prefixes if p for k in saved if k.startswith(p)), None)
        if hit is None:
            return None
        entry = self.folder / "entries" / hit
        for path in paths:
            source, target = entry / path, clone / path
            if source.is_dir():
                shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
            elif source.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        return hit

    def save_pending(self, clone: Path) -> None:
        """What actions/cache does after the job: save each key not saved before."""
        for key, paths in self.pending:
            if key in self._saved():
                continue
            entry = self.folder / "entries" / key
            for path in paths:
                source = clone / path
                assert source.exists(), f"the job left no {path} for the cache to save"
                if source.is_dir():
                    shutil.copytree(source, entry / path, symlinks=True)
                else:
                    (entry / path).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, entry / path)
            with (self.folder / "order.txt").open("a", encoding="utf-8") as order:
                order.write(key + "\n")
        self.pending = []
