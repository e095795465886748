"""Shared fixtures: real git repositories in tmp_path."""

from __future__ import annotations

import copy
import gc
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import CHROMIUM, CHROMIUM_ARGS  # the same chromium as the benchmarks

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.org",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
}


class CorpusRepo:
    """A real git repository for a test, with helpers to commit files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tick = 0
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, input_bytes: bytes | None = None) -> str:
        env = {**os.environ, **GIT_ENV}
        date = f"2026-01-01T00:{self._tick // 60:02d}:{self._tick % 60:02d}Z"
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
        proc = subprocess.run(["git", *args], cwd=self.root, env=env, input=input_bytes, capture_output=True)
        if proc.returncode != 0:
            raise RuntimeError(f"git {args}: {proc.stderr.decode()}")
        return proc.stdout.decode()

    def write(self, path: str, content: str | bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_bytes(content.encode("utf-8"))
        else:
            target.write_bytes(content)

    def commit(self, files: dict[str, str | bytes | None] | None = None, message: str = "change") -> str:
        """Write (or, for None, delete) files, commit everything, return the commit SHA."""
        for path, content in (files or {}).items():
            if content is None:
                (self.root / path).unlink()
            else:
                self.write(path, content)
        self._tick += 1
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def move(self, old: str, new: str, message: str = "move") -> str:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)
        return self.commit(message=message)

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture(scope="module", autouse=True)
def _git_handles_end_with_their_module() -> Iterator[None]:
    """Collect what a module's tests dropped, so an unclosed `GitRepo` in a reference cycle ends its git process now.

    (A handle dropped outside a cycle ends it at once; at exit every one does.)
    """
    yield
    gc.collect()


@pytest.fixture
def corpus_repo(tmp_path: Path) -> Iterator[CorpusRepo]:
    yield CorpusRepo(tmp_path / "repo")


@pytest.fixture
def make_repo(tmp_path: Path) -> Iterator[object]:
    def factory(name: str = "repo") -> CorpusRepo:
        return CorpusRepo(tmp_path / name)

    yield factory


@pytest.fixture
def web() -> Iterator[object]:
    """A real HTTP server on 127.0.0.1 whose routes a test sets (tests/webserver.py)."""
    from webserver import serve

    yield from serve()


@pytest.fixture
def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commits made by pincite itself (snapshots) get a fixed author and date."""
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)


REPO_ROOT = Path(__file__).resolve().parent.parent


class SampleClone:
    """A private clone of this repository (the sample corpus and its history) with a built index."""

    def __init__(self, root: Path, index: Path) -> None:
        from indexer.vcs.repo import GitRepo

        self.root = root
        self.index = index
        self.history: dict[str, Any] = json.loads((REPO_ROOT / "tests" / "sample_corpus_history.json").read_text())
        repo = GitRepo(root)
        self.by_subject = {c.subject: c.sha for c in repo.first_parent_line(repo.resolve_commit("HEAD"))}
        self.first = self.by_subject[self.history["commits"][0]["message"]]
        self.head = repo.resolve_commit("HEAD")
        repo.close()

    def passages(self, fate: str) -> list[dict[str, Any]]:
        return [p for p in self.history["passages"] if p["fate"] == fate]

    def first_citation(self, passage: dict[str, Any]) -> str:
        """The passage's lines, cited at the commit they are recorded at (`recorded_at`, else the first)."""
        from indexer.text.citation import Citation

        commit = self.by_subject[passage["recorded_at"]] if "recorded_at" in passage else self.first
        return Citation(commit, passage["path"], lines=tuple(passage["lines_at_first"])).text_form()


@pytest.fixture(scope="session")
def sample_clone(tmp_path_factory: pytest.TempPathFactory) -> SampleClone:
    """One clone of the sample corpus for the whole run, indexed at HEAD (the index lives outside it)."""
    from indexer import build
    from tests.mcp_client import clone_sample

    base = tmp_path_factory.mktemp("sample")
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=REPO_ROOT, capture_output=True)
    if shallow.stdout.strip() == b"true":
        pytest.fail("this clone is shallow: the sample corpus history is missing (run `git fetch --unshallow`)")
    root = clone_sample(base / "repo")
    index = base / "index.sqlite"
    build(root, site=False, index_path=index)
    return SampleClone(root, index)


# -- the browser: Debian's chromium, driven by Playwright --------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium per test module (a launch costs about a second)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def index_of_texts(index: Path, texts: list[str], max_chars: int) -> Path:
    """A real index of `texts` as `doc<n>.txt`, all at one commit: what quote narrowing searches."""
    from indexer.extract.base import ExtractedText
    from indexer.index.documents import version_form
    from indexer.index.store import IndexWriter, PathVersion
    from indexer.text.chunk import chunk
    from indexer.vcs.repo import CommitInfo

    writer = IndexWriter(index)
    history = []
    for number, body in enumerate(texts):
        passages = chunk(body, markdown=False, max_chars=max_chars)
        extracted = ExtractedText(body, "text", "text@1")
        path = f"doc{number}.txt"
        form = version_form(path, "text@1", max_chars)
        version = writer.add_version(
            blob=f"{number:040x}", identity="text@1", form=form, size=len(body), extracted=extracted, passages=passages
        )
        history.append(PathVersion(path, version, 0, 0))
    writer.replace_history([CommitInfo("f" * 40, 0, "one commit")], history)
    writer.commit(optimize=True)
    return index


def expanded_lines(entry: dict[str, Any]) -> dict[str, Any]:
    """A history file's entry with its hunks' lines written out, as the version page reads it
    (history-files.js `withLines`; `banner_data._shared_lines` writes each line once)."""
    expanded = copy.deepcopy(entry)
    lines = expanded.pop("lines", None)
    for version in expanded["versions"].values() if lines is not None else ():
        for hunk in (version["target"] or {}).get("hunks") or ():
            hunk[4] = [lines[i] for i in hunk[4]]
    return expanded


def arguments_of(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, position: int = 0) -> list[Any]:
    """The argument at `position` (1: the first after a method's `self`) of every call of
    `owner.name` from now on, each call still made: what a test counts of the work a check does."""
    real = getattr(owner, name)
    seen: list[Any] = []

    def recorded(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[position])
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return seen


def count_pools(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make a build's extraction use a pool of two workers even for a few files; the list of the
    pools it starts (their worker counts) fills as it runs."""
    from indexer.index import prepare

    pools: list[int] = []
    real_pool = prepare.ProcessPoolExecutor

    def counting_pool(workers: int, **kwargs: object) -> object:
        pools.append(workers)
        return real_pool(workers, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(prepare, "usable_cores", lambda: 2)
    monkeypatch.setattr(prepare, "POOL_MIN_VERSIONS", 1)
    monkeypatch.setattr(prepare, "ProcessPoolExecutor", counting_pool)
    return pools
