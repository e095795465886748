"""`pincite init`: start using pincite in a repository, as `mkdocs new` or `sphinx-quickstart` start a site.

`start_project(repo)` looks at the files the repository holds (tracked, and new ones git does
not ignore), picks the folders of documents as the index's roots, and writes what a first build
needs — never over a file the user already has:

- `pincite.toml` with those roots and every other setting commented out at its default;
- `.gitignore` lines for the site folder and the index folder, when git does not ignore them yet;
- the `.gitattributes` lines and git config that make `git diff` show PDF and HTML as text
  (extract/textconv.py);
- with `ci=True`, `.github/workflows/pincite.yml`: build, check and publish on every push.

It returns what it did, and the command to run next.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path

from indexer.config import SETTINGS_HELP, Config
from indexer.extract.textconv import DEFAULT_COMMAND, InitResult, init_repo
from indexer.shapes import InitJson
from indexer.text.kinds import EXTRACTED_EXTENSIONS, PROSE_EXTENSIONS, SNAPSHOT_ROOT
from indexer.vcs.repo import GitRepo

SETTINGS_FILE = "pincite.toml"
WORKFLOW_FILE = ".github/workflows/pincite.yml"
DOCUMENT_EXTENSIONS = (*PROSE_EXTENSIONS, *EXTRACTED_EXTENSIONS)
# Folders that hold documents by convention in the tools pincite's users come from.
CONVENTIONAL_ROOTS = ("docs", "doc", "documentation", "corpus", "content", "text", "pages", "rfcs", "peps", "spec")
# Folders whose documents are rarely the corpus (dependencies, build output, repository chrome).
NEVER_ROOTS = (".github", "node_modules", "_site", "site", "build", "dist", "vendor", "tests", "test")
# A top-level folder becomes a root on its own when documents are at least this share of its files.
DOCUMENT_SHARE = 0.5


@dataclass(frozen=True)
class StartResult:
    """What `pincite init` found and wrote."""

    roots: tuple[str, ...]
    documents: int  # document files under those roots
    written: tuple[str, ...]  # files created
    kept: tuple[str, ...]  # files that were there already and were left as they are
    ignored: tuple[str, ...]  # lines added to .gitignore
    textconv: InitResult
    next_command: str

    def to_json(self) -> InitJson:
        return {
            "roots": list(self.roots),
            "documents": self.documents,
            "written": list(self.written),
            "kept": list(self.kept),
            "ignored": list(self.ignored),
            **self.textconv.to_json(),  # the keys `pincite init --json` has always printed
            "next_command": self.next_command,
        }


def start_project(repo_path: Path | str, *, ci: bool = False, textconv_command: str = DEFAULT_COMMAND) -> StartResult:
    """Set up pincite in the repository at `repo_path` (see the module docstring); idempotent."""
    repo = GitRepo(repo_path)
    try:
        textconv = init_repo(repo, textconv_command)  # first: it refuses a bare repository
        root = repo.root
        paths = _candidate_files(repo)
        roots = detect_roots(paths)
        written: list[str] = []
        kept: list[str] = []
        _write_new(root / SETTINGS_FILE, settings_text(roots), written, kept, root)
        if ci:
            _write_new(root / WORKFLOW_FILE, workflow_text(), written, kept, root)
        ignored = _ignore(repo, (Config.site_dir, str(Path(Config.index_path).parent)))
    finally:
        repo.close()
    documents = sum(1 for p in paths if _is_document(p) and _under(p, roots))
    return StartResult(
        roots=roots,
        documents=documents,
        written=tuple(written),
        kept=tuple(kept),
        ignored=tuple(ignored),
        textconv=textconv,
        next_command="git add -A && git commit -m 'Set up pincite' && pincite build && pincite serve",
    )


def detect_roots(paths: list[str]) -> tuple[str, ...]:
    """The folders to index, from the repository's file paths (POSIX, relative to its root).

    First the conventional document folders that hold documents (`docs/`, `corpus/`, …, and
    `snapshots/`); else every top-level folder whose files are mostly documents; else the whole
    repository (`.`) when it holds any document at all, and `docs` (to be created) when it holds none.
    """
    documents = [p for p in paths if _is_document(p)]
    per_folder = Counter(p.split("/", 1)[0] for p in documents if "/" in p)
    conventional = [name for name in (*CONVENTIONAL_ROOTS, SNAPSHOT_ROOT) if per_folder[name]]
    if conventional:
        return tuple(conventional)
    files_per_folder = Counter(p.split("/", 1)[0] for p in paths if "/" in p)
    mostly_documents = sorted(
        folder
        for folder, count in per_folder.items()
        if folder not in NEVER_ROOTS
        and not folder.startswith(".")
        and count >= DOCUMENT_SHARE * files_per_folder[folder]
    )
    if mostly_documents:
        return tuple(mostly_documents)
    return (".",) if documents else ("docs",)


def settings_text(roots: tuple[str, ...]) -> str:
    """A `pincite.toml` that sets `roots` and lists every other setting, commented out, at its default."""
    lines = [
        "# pincite's settings for this repository (written by `pincite init`; docs/configuration.md lists them).",
        "# A setting left commented out keeps its default; PINCITE_<NAME> environment variables override this file.",
        "",
        f"# {SETTINGS_HELP['roots']}",
        f"roots = {_toml(list(roots))}",
    ]
    for field in fields(Config):
        if field.name == "roots":
            continue
        lines += ["", f"# {SETTINGS_HELP[field.name]}", f"# {field.name} = {_toml(getattr(Config, field.name))}"]
    return "\n".join(lines) + "\n"


def workflow_text() -> str:
    """A GitHub Actions workflow that builds, checks and publishes the site on every push to main.

    The same steps as pincite's own `.github/workflows/site.yml`, with pincite installed by name.
    """
    return _WORKFLOW


def _toml(value: object) -> str:
    if value is None:
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    return repr(value)


def _candidate_files(repo: GitRepo) -> list[str]:
    """Tracked files and new files git does not ignore: what a first commit would hold."""
    out = repo.run_text("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted({p for p in out.split("\0") if p})


def _is_document(path: str) -> bool:
    return path.lower().endswith(DOCUMENT_EXTENSIONS)


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(root == "." or path.startswith(root + "/") for root in roots)


def _write_new(target: Path, text: str, written: list[str], kept: list[str], root: Path) -> None:
    name = target.relative_to(root).as_posix()
    if target.exists():
        kept.append(name)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "x", encoding="utf-8") as handle:  # "x": never replace a file made meanwhile
        handle.write(text)
    written.append(name)


def _ignore(repo: GitRepo, folders: tuple[str, ...]) -> list[str]:
    """Add `folder/` lines to .gitignore for each folder git does not ignore yet; the lines added."""
    missing = [f"{folder}/" for folder in folders if not _is_ignored(repo, f"{folder}/")]
    if missing:
        gitignore = repo.root / ".gitignore"
        existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
        separator = "" if not existing or existing.endswith("\n") else "\n"
        with open(gitignore, "a", encoding="utf-8") as handle:
            handle.write(separator + "# pincite's output (written by `pincite init`)\n" + "\n".join(missing) + "\n")
    return missing


def _is_ignored(repo: GitRepo, path: str) -> bool:
    # check-ignore prints the paths a rule ignores (nothing, and exit 1, otherwise); --no-index also
    # judges paths git tracks.
    return bool(repo.run("check-ignore", "--no-index", path, check=False).strip())


_WORKFLOW = """\
# Build the pincite index and site on every push to main, check every citation, publish with Pages
# (written by `pincite init --ci`). In the repository's settings, under Pages, choose GitHub Actions.
name: pincite

on:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read

concurrency:
  group: pages
  cancel-in-progress: false

jobs:
  build:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683  # v4.2.2
        with:
          # pincite indexes the first-parent history: a shallow clone cannot be built.
          fetch-depth: 0
          persist-credentials: false
      - uses: actions/setup-python@0b93645e9fea7318ecaed2b359559ac225c90a2b  # v5.3.0
        with:
          python-version: "3.12"
      - name: Install pincite
        run: python -m pip install 'pincite[all]'
      - id: pages
        uses: actions/configure-pages@983d7736d9b0ae728b81ab479565c72886d7745b  # v5
      # Cache keys that change with pincite and with the site's settings and templates.
      - name: Name the caches
        id: keys
        env:
          PINCITE_SITE_URL: ${{ steps.pages.outputs.base_url }}
        run: python -m indexer.integrations.github keys >> "$GITHUB_OUTPUT"
      - name: Restore the previous index
        uses: actions/cache@5a3ec84eff668545956fd18022155c47e93e2684  # v4.2.3
        with:
          path: .pincite
          key: ${{ steps.keys.outputs.index }}${{ github.sha }}
          restore-keys: |
            ${{ steps.keys.outputs.index }}
      - name: Restore the previous site
        uses: actions/cache@5a3ec84eff668545956fd18022155c47e93e2684  # v4.2.3
        with:
          path: _site
          key: ${{ steps.keys.outputs.site }}${{ github.sha }}
          restore-keys: |
            ${{ steps.keys.outputs.site }}
      - name: Show what pincite finds
        run: pincite doctor
      - name: Build the index and the site
        env:
          PINCITE_SITE_URL: ${{ steps.pages.outputs.base_url }}
        run: pincite build
      - name: Check every citation in the documents
        run: pincite check --format github .
      - uses: actions/upload-pages-artifact@56afc609e74202658d3ffba0e8f6dda462b719fa  # v3
        with:
          path: _site

  deploy:
    needs: build
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e  # v4
"""
