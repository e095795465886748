"""The git boundary: every git process pincite starts carries the pinned options and ends with its owner.

A user's git configuration must not reach a git process pincite starts (it could change what
a diff reports), and no git process may outlive the handle that started it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer import api
from indexer.errors import RepositoryError
from indexer.text.citation import Citation
from indexer.vcs.repo import PINNED_CONFIG, GitRepo, _tree_path
from tests.conftest import CorpusRepo

PINNED_ARGS = [arg for setting in PINNED_CONFIG for arg in ("-c", setting)]

# Settings a user may well have; each is one PINNED_CONFIG overrides.
HOSTILE_CONFIG = """\
[core]
    quotepath = true
    bigFileThreshold = 1
    autocrlf = true
[diff]
    algorithm = patience
    noprefix = true
    renames = false
    interHunkContext = 50
[color]
    ui = always
"""


def _corpus(repo: CorpusRepo) -> tuple[str, str]:
    first = repo.commit({"corpus/a.md": "# A\n\none\ntwo\nthree\nfour\n", "corpus/b.md": "# B\n\nkept\n"})
    repo.commit({"corpus/a.md": "# A\n\none\nTWO\nthree\nfour\n"})
    return first, repo.head()


def _git_shim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a `git` first on PATH that logs its arguments (one invocation per line) and runs the real git."""
    real = shutil.which("git")
    assert real is not None
    log = tmp_path / "git-calls.log"
    shim = tmp_path / "shim"
    shim.mkdir()
    script = shim / "git"
    # \037 between arguments, a newline after the last: arguments hold neither here.
    script.write_text(f"#!/bin/sh\nprintf '%s\\037' \"$@\" >> '{log}'\nprintf '\\n' >> '{log}'\nexec '{real}' \"$@\"\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    return log


def _calls(log: Path) -> list[list[str]]:
    return [line.split("\037")[:-1] for line in log.read_text().splitlines()]


def test_every_git_process_carries_the_pinned_options_under_a_hostile_user_config(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, head = _corpus(corpus_repo)
    hostile = tmp_path / "gitconfig"
    hostile.write_text(HOSTILE_CONFIG)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(hostile))
    log = _git_shim(tmp_path, monkeypatch)

    api.build(corpus_repo.root, out=tmp_path / "site", index_path=tmp_path / "index.sqlite")
    held = Citation(first, "corpus/a.md", lines=(5, 6)).text_form()
    changed = Citation(first, "corpus/a.md", lines=(4, 4)).text_form()
    assert [c.verdict.status for c in api.verify([held, changed], corpus_repo.root)] == ["verified", "drifted"]
    assert api.resolve(changed, corpus_repo.root).resolved.text == "two"
    assert api.cite("corpus/b.md", corpus_repo.root, quote="kept").resolved.text == "kept"
    with GitRepo(corpus_repo.root) as repo:
        blob = repo.blob_at(head, "corpus/b.md")
        assert blob is not None
        assert repo.read_blob(blob.sha) == b"# B\n\nkept\n"

    calls = _calls(log)
    assert calls, "the shim saw no git process: the test would prove nothing"
    unpinned = [" ".join(args) for args in calls if args[: len(PINNED_ARGS)] != PINNED_ARGS]
    assert unpinned == []
    # Objects are read through one persistent reader per handle, not a process per read.
    readers = [args for args in calls if args[len(PINNED_ARGS) :] == ["cat-file", "--batch"]]
    assert 1 <= len(readers) <= 4


def _git_children() -> list[str]:
    """The git processes below this test process (from /proc: pid, parent pid and command)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if rest[0] == "Z":
            continue  # ended, waiting to be reaped
        parents[int(entry.name)], names[int(entry.name)] = int(rest[1]), name
    below, found = {os.getpid()}, True
    while found:
        found = False
        for pid, parent in parents.items():
            if parent in below and pid not in below:
                below.add(pid)
                found = True
    return sorted(f"{pid} {names[pid]}" for pid in below - {os.getpid()} if names[pid].startswith("git"))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_no_git_process_outlives_its_handle(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    first, head = _corpus(corpus_repo)
    before = _git_children()
    repo = GitRepo(corpus_repo.root)
    entry = repo.blob_at(head, "corpus/a.md")
    assert entry is not None
    repo.read_blob(entry.sha)
    assert len(_git_children()) > len(before), "the reader runs while the handle is open"
    repo.close()
    assert _git_children() == before

    with GitRepo(corpus_repo.root) as scoped:
        scoped.read_blob(entry.sha)
    assert _git_children() == before

    api.build(corpus_repo.root, out=tmp_path / "site", index_path=tmp_path / "index.sqlite")
    api.verify([Citation(first, "corpus/a.md", lines=(4, 4)).text_form()], corpus_repo.root)
    api.resolve(Citation(first, "corpus/a.md", lines=(3, 3)).text_form(), corpus_repo.root)
    api.locate("three", corpus_repo.root)
    assert _git_children() == before


def test_a_dropped_handle_ends_its_reader(corpus_repo: CorpusRepo) -> None:
    _first, head = _corpus(corpus_repo)
    before = _git_children()
    repo = GitRepo(corpus_repo.root)
    entry = repo.blob_at(head, "corpus/a.md")
    assert entry is not None
    repo.read_blob(entry.sha)
    del repo  # never closed: collecting the handle ends its process
    assert _git_children() == before


def test_a_closed_handle_reads_again_and_a_bad_object_id_is_refused(corpus_repo: CorpusRepo) -> None:
    _first, head = _corpus(corpus_repo)
    with GitRepo(corpus_repo.root) as repo:
        entry = repo.blob_at(head, "corpus/b.md")
        assert entry is not None
        repo.read_blob(entry.sha)
        repo.close()
        assert repo.read_blob(entry.sha) == b"# B\n\nkept\n"
        with pytest.raises(RepositoryError, match="cannot read object"):
            repo.read_blob("0" * 40)
        assert repo.read_blob(entry.sha) == b"# B\n\nkept\n"  # the reader is still in step
        with pytest.raises(RepositoryError, match="not a full object id"):
            repo.read_blob(f"{entry.sha}\n{entry.sha}")


def test_git_finds_the_repository_from_a_subfolder_its_git_folder_and_a_bare_clone(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    _corpus(corpus_repo)
    root = corpus_repo.root.resolve()
    for inside in (corpus_repo.root, corpus_repo.root / "corpus", corpus_repo.root / ".git"):
        with GitRepo(inside) as repo:
            assert (repo.root, repo.bare) == (root, False), inside
            assert repo.head() == corpus_repo.head()
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(corpus_repo.root), str(bare)], check=True)
    with GitRepo(bare) as repo:
        assert (repo.root, repo.bare) == (bare.resolve(), True)
        assert repo.head() == corpus_repo.head()
        assert repo.dirty_paths(("corpus",)) == []


def test_a_folder_outside_any_repository_or_a_file_is_refused_by_name(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "notes.md").write_text("not in git\n")
    for where in (outside, outside / "notes.md"):
        with pytest.raises(RepositoryError, match="not a git repository") as caught:
            GitRepo(where)
        assert str(where) in str(caught.value)


@pytest.mark.skipif(getattr(os, "geteuid", lambda: -1)() != 0, reason="giving a folder to another owner needs root")
def test_a_repository_git_refuses_is_named_with_gits_reason(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    subprocess.run(["git", "init", "-q", str(foreign)], check=True)
    os.chown(foreign, 12345, 12345)  # git refuses a repository another user owns ("dubious ownership")
    with pytest.raises(RepositoryError, match=r"git refuses the repository: .*dubious ownership") as caught:
        GitRepo(foreign)
    assert "\n" not in caught.value.args[0] and "safe.directory" in (caught.value.hint or "")


@given(st.text(alphabet="./aGgiItT", max_size=12))
def test_a_tree_path_is_refused_exactly_when_a_part_is_empty_a_dot_a_dotdot_or_git(path: str) -> None:
    unsafe = any(part in ("", ".", "..") or part.lower() == ".git" for part in path.split("/"))
    try:
        assert _tree_path(path.encode(), "0" * 40) == path and not unsafe
    except RepositoryError:
        assert unsafe
