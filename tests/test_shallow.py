"""Shallow clones: every command that needs missing history says so and gives the fix.

Each test makes a real `git clone --depth 1 file://...` of a corpus with history.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CorpusRepo

from indexer.api import build
from indexer.citations.drift import verify
from indexer.citations.verdicts import VerdictStatus
from indexer.cli.main import main
from indexer.errors import SHALLOW_HINT, ShallowHistoryError
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo

FIX = ("git fetch --unshallow", "fetch-depth: 0")


def history(corpus_repo: CorpusRepo) -> list[str]:
    first = corpus_repo.commit({"corpus/policy.md": "# Policy\n\nKeep records for seven years.\n"})
    second = corpus_repo.commit({"corpus/policy.md": "# Policy\n\nKeep records for ten years.\n"})
    third = corpus_repo.commit({"corpus/other.md": "# Other\n\nUnrelated.\n"})
    return [first, second, third]


def shallow_clone(source: Path, target: Path, depth: int = 1) -> Path:
    subprocess.run(
        ["git", "clone", "-q", f"--depth={depth}", f"file://{source}", str(target)], check=True, capture_output=True
    )
    return target


def test_build_on_a_shallow_clone_names_the_fix(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    history(corpus_repo)
    clone = shallow_clone(corpus_repo.root, tmp_path / "clone", depth=2)
    with pytest.raises(ShallowHistoryError) as caught:
        build(clone)
    assert caught.value.hint == SHALLOW_HINT
    assert not (clone / ".pincite" / "index.sqlite").exists()


def test_build_cli_on_a_shallow_clone_is_one_clear_error(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    history(corpus_repo)
    clone = shallow_clone(corpus_repo.root, tmp_path / "clone")
    result = CliRunner().invoke(main, ["build", "--repo", str(clone), "--no-site"])
    assert result.exit_code == ShallowHistoryError.exit_code
    assert "Traceback" not in result.output
    assert all(fix in result.output for fix in FIX), result.output


def test_build_after_unshallow_succeeds(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    commits = history(corpus_repo)
    clone = shallow_clone(corpus_repo.root, tmp_path / "clone")
    subprocess.run(["git", "fetch", "-q", "--unshallow"], cwd=clone, check=True, capture_output=True)
    assert build(clone).commits == len(commits)


def test_resolving_a_commit_missing_from_a_shallow_clone(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    first, _second, _third = history(corpus_repo)
    clone = shallow_clone(corpus_repo.root, tmp_path / "clone")
    with pytest.raises(ShallowHistoryError):
        GitRepo(clone).resolve_commit(first)


def test_verify_a_citation_to_a_missing_commit_is_unresolvable_with_the_fix(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    first, _second, _third = history(corpus_repo)
    clone = shallow_clone(corpus_repo.root, tmp_path / "clone")
    verdict = verify(Citation(first, "corpus/policy.md", lines=(3, 3)), GitRepo(clone))
    assert verdict.status == VerdictStatus.UNRESOLVABLE
    assert verdict.hint is not None and all(fix in verdict.hint for fix in FIX)


def test_check_reports_the_shallow_clone(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    first, _second, _third = history(corpus_repo)
    clone = shallow_clone(corpus_repo.root, tmp_path / "clone")
    document = clone / "notes.md"
    document.write_text(f"Records are kept long (corpus/policy.md@{first}#L3).\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--repo", str(clone), str(document)])
    assert result.exit_code == 7, result.output
    assert VerdictStatus.UNRESOLVABLE in result.output
    assert "git fetch --unshallow" in result.output, result.output


def test_history_start_inside_the_clone_builds_the_recent_history(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commits = history(corpus_repo)
    clone = shallow_clone(corpus_repo.root, tmp_path / "clone", depth=2)
    monkeypatch.setenv("PINCITE_HISTORY_START", commits[1])
    summary = build(clone)
    assert summary.commits == 2 and summary.commit == commits[2]
