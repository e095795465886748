"""A citation by lines covers every line it names, empty lines included, and keeps that range."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.citations.check import check_paths
from indexer.citations.drift import verify
from indexer.citations.resolve import Resolver, cite_span
from indexer.citations.verdicts import VerdictStatus
from indexer.cli.main import main
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

PATH = "corpus/doc.md"


def git_lines(repo: CorpusRepo, rev: str, path: str) -> list[str]:
    """The file's lines as `git show` splits them (without their "\n"; no empty tail)."""
    shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo.root, capture_output=True, check=True)
    lines = shown.stdout.decode("utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


texts = st.lists(st.sampled_from(["", "", "alpha", "beta gamma", "x\r", " "]), min_size=1, max_size=12).map(
    lambda lines: "\n".join(lines) + "\n"
)


@settings(max_examples=40, deadline=None)
@given(text=texts, shift=st.integers(0, 3), data=st.data())
def test_cite_resolve_and_verify_keep_exactly_the_named_lines(text: str, shift: int, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = CorpusRepo(Path(tmp) / "repo")
        pinned = repo.commit({PATH: text})
        moved = repo.commit({PATH: "new\n" * shift + text}) if shift else pinned
        lines = git_lines(repo, pinned, PATH)
        first = data.draw(st.integers(1, len(lines)))
        last = data.draw(st.integers(first, len(lines)))
        resolver = Resolver(GitRepo(repo.root))

        resolved = cite_span(resolver, PATH, pinned, (first, last), None)
        assert resolved.citation.lines == resolved.lines == (first, last)
        assert resolved.text == "\n".join(lines[first - 1 : last])
        again = resolver.resolve(Citation(pinned, PATH, lines=(first, last)))
        assert again.lines == (first, last) and again.text == resolved.text

        unchanged = verify(resolved.citation, resolver.repo, pinned, resolver=resolver)
        assert unchanged.status == VerdictStatus.VERIFIED and unchanged.relocated is not None
        assert unchanged.relocated.lines == (first, last)

        relocated = verify(resolved.citation, resolver.repo, moved, resolver=resolver)
        assert relocated.status == VerdictStatus.VERIFIED and relocated.relocated is not None
        assert relocated.relocated.lines == (first + shift, last + shift)
        assert resolver.resolve(relocated.relocated).text == resolved.text


def test_cli_cite_of_a_range_ending_in_an_empty_line(corpus_repo: CorpusRepo) -> None:
    head = corpus_repo.commit({PATH: "one\ntwo\n\nthree\n"})
    result = CliRunner().invoke(
        main, ["cite", PATH, "--lines", "2-3", "--format", "json", "--repo", str(corpus_repo.root)]
    )
    assert result.exit_code == 0, result.output
    assert f"{PATH}@{head}#L2-L3" in result.stdout
    assert '"lines": [\n    2,\n    3\n  ]' in result.stdout
    verdict = CliRunner().invoke(main, ["verify", f"{PATH}@{head}#L2-L3", "--repo", str(corpus_repo.root)])
    assert verdict.exit_code == 0 and "unchanged" in verdict.stdout and "moved" not in verdict.stdout


def test_fix_never_narrows_a_line_range(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    body = "title\n\nfirst line\nsecond line\n\nlast\n"
    pinned = corpus_repo.commit({PATH: body})
    head = corpus_repo.commit({PATH: "preface\n\n" + body})
    doc = tmp_path / "notes.md"
    doc.write_text(f"See {PATH}@{pinned}#L3-L5 and {PATH}@{pinned}#L1-L2.\n")
    report = check_paths([doc], GitRepo(corpus_repo.root), fix=True)
    assert len(report.fixed) == 2
    assert doc.read_text() == f"See {PATH}@{head}#L5-L7 and {PATH}@{head}#L3-L4.\n"
