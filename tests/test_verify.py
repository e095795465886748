"""verify: drift is git's diff; untouched spans are verified and relocated, touched spans drifted."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.citations.drift import relocate_lines, verify
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import VerdictStatus
from indexer.cli.main import main
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo, Hunk
from tests.conftest import CorpusRepo

PATH = "corpus/doc.md"


# -- the property: random texts, random edits, ground truth from tracked lines ---------------
@dataclass(frozen=True)
class Line:
    origin: int | None  # index in the first version, None for a line an edit wrote
    text: str


@st.composite
def edit_scripts(draw: st.DrawFn) -> tuple[list[str], list[list[tuple[str, int, int]]]]:
    words = st.text(alphabet="abcdefgh xyz", max_size=12)
    first = [f"{i}: {draw(words)}" for i in range(draw(st.integers(1, 30)))]
    commits = []
    for _ in range(draw(st.integers(1, 3))):
        ops = draw(
            st.lists(
                st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 40), st.integers(1, 4)),
                max_size=4,
            )
        )
        commits.append(ops)
    return first, commits


def apply_edits(lines: list[Line], ops: list[tuple[str, int, int]], counter: list[int]) -> list[Line]:
    result = list(lines)
    for op, at, count in ops:
        at = min(at, len(result))
        fresh = []
        for _ in range(count):
            counter[0] += 1
            fresh.append(Line(None, f"new line {counter[0]}"))
        if op == "insert":
            result[at:at] = fresh
        elif op == "delete":
            del result[at : at + count]
        else:
            result[at : at + count] = fresh[: len(result[at : at + count])]
    return result


def render(lines: list[Line]) -> str:
    return "".join(line.text + "\n" for line in lines)


def expected(final: list[Line], first: int, last: int) -> tuple[str, int]:
    """Ground truth from the tracked lines: untouched iff lines first..last survive, adjacent and in order."""
    where = {line.origin: i for i, line in enumerate(final) if line.origin is not None}
    wanted = list(range(first - 1, last))
    if all(o in where for o in wanted) and all(where[o] == where[wanted[0]] + k for k, o in enumerate(wanted)):
        return VerdictStatus.VERIFIED, where[wanted[0]] + 1
    return VerdictStatus.DRIFTED, 0


@settings(max_examples=40, deadline=None)
@given(script=edit_scripts(), data=st.data())
def test_untouched_spans_verify_with_identical_text_and_touched_spans_drift(
    script: tuple[list[str], list[list[tuple[str, int, int]]]], data: st.DataObject
) -> None:
    first_texts, commits = script
    with tempfile.TemporaryDirectory() as tmp:
        repo = CorpusRepo(Path(tmp) / "repo")
        lines = [Line(i, text) for i, text in enumerate(first_texts)]
        pinned = repo.commit({PATH: render(lines)})
        counter = [0]
        for ops in commits:
            lines = apply_edits(lines, ops, counter)
            repo.commit({PATH: render(lines)})
        resolver = Resolver(GitRepo(repo.root))
        n = len(first_texts)
        spans = data.draw(st.lists(st.tuples(st.integers(1, n), st.integers(0, 3)), min_size=1, max_size=6))
        for a, extra in spans:
            b = min(n, a + extra)
            status, new_first = expected(lines, a, b)
            for citation in (
                Citation(pinned, PATH, lines=(a, b)),
                Citation(pinned, PATH, linecol=(a, 2, b, 3)),
            ):
                verdict = verify(citation, resolver.repo, resolver=resolver)
                assert verdict.status == status, (citation, verdict.reason, render(lines))
                if status == VerdictStatus.VERIFIED:
                    assert verdict.relocated is not None
                    moved = resolver.resolve(verdict.relocated)
                    assert moved.text == resolver.resolve(citation).text
                    assert moved.lines == (new_first, new_first + b - a)
                else:
                    assert verdict.hunks and verdict.relocated is None


# -- relocate_lines, the pure function the site reimplements ---------------------------------
def test_relocate_lines_by_hand() -> None:
    insert_before = Hunk(2, 0, 3, 2)  # two lines inserted after old line 2
    assert relocate_lines(5, 6, [insert_before]) == (VerdictStatus.VERIFIED, 7, 8)
    assert relocate_lines(3, 4, [insert_before]) == (VerdictStatus.VERIFIED, 5, 6)  # insertion right before the span
    assert relocate_lines(1, 2, [insert_before]) == (VerdictStatus.VERIFIED, 1, 2)  # insertion right after the span
    assert relocate_lines(2, 3, [insert_before])[0] == VerdictStatus.DRIFTED  # insertion between cited lines
    delete_inside = Hunk(4, 2, 3, 0)
    assert relocate_lines(1, 3, [delete_inside]) == (VerdictStatus.VERIFIED, 1, 3)
    assert relocate_lines(6, 6, [delete_inside]) == (VerdictStatus.VERIFIED, 4, 4)
    assert relocate_lines(4, 5, [delete_inside]) == (
        VerdictStatus.DRIFTED,
        4,
        3,
    )  # all cited lines removed: empty range
    assert relocate_lines(3, 7, [Hunk(5, 1, 5, 3)]) == (VerdictStatus.DRIFTED, 3, 9)


# -- renames, deletions, unknown commits, git config ------------------------------------------
@pytest.fixture
def history(corpus_repo: CorpusRepo) -> tuple[CorpusRepo, str]:
    text = "".join(f"line {i}\n" for i in range(1, 21))
    pinned = corpus_repo.commit({PATH: text, "corpus/gone.md": "doomed\n"})
    corpus_repo.commit({PATH: "preface\n" + text.replace("line 15\n", "line fifteen\n"), "corpus/gone.md": None})
    corpus_repo.move(PATH, "corpus/renamed.md")
    return corpus_repo, pinned


def test_rename_is_followed_and_the_new_path_reported(history: tuple[CorpusRepo, str]) -> None:
    repo, pinned = history
    verdict = verify(Citation(pinned, PATH, lines=(3, 4)), GitRepo(repo.root))
    assert verdict.status == VerdictStatus.VERIFIED and verdict.new_path == "corpus/renamed.md"
    assert verdict.relocated == Citation(
        repo.head(), "corpus/renamed.md", lines=(4, 5), blob=repo.git("rev-parse", "HEAD:corpus/renamed.md").strip()
    )
    drifted = verify(Citation(pinned, PATH, lines=(14, 16)), GitRepo(repo.root))
    assert drifted.status == VerdictStatus.DRIFTED and drifted.hunks[0].lines == ("-line 15", "+line fifteen")
    assert drifted.nearest == "line 14\nline fifteen\nline 16"


def test_deleted_file_is_drifted_and_unknown_commit_unresolvable(history: tuple[CorpusRepo, str]) -> None:
    repo, pinned = history
    gone = verify(Citation(pinned, "corpus/gone.md", lines=(1, 1)), GitRepo(repo.root))
    assert gone.status == VerdictStatus.DRIFTED and "deleted" in gone.reason
    unknown = verify(Citation("ab" * 20, PATH, lines=(1, 1)), GitRepo(repo.root))
    assert unknown.status == VerdictStatus.UNRESOLVABLE and "fetch-depth: 0" in (unknown.hint or "")
    past_end = verify(Citation(pinned, PATH, lines=(30, 31)), GitRepo(repo.root))
    assert past_end.status == VerdictStatus.UNRESOLVABLE and "past the end" in past_end.reason


def test_users_git_config_cannot_change_a_verdict(history: tuple[CorpusRepo, str]) -> None:
    repo, pinned = history
    citations = [Citation(pinned, PATH, lines=(a, a + 2)) for a in range(1, 19)]

    def verdicts() -> list[dict[str, object]]:
        git = GitRepo(repo.root)
        return [verify(c, git).to_json() for c in citations]

    before = verdicts()
    for key, value in [
        ("diff.algorithm", "patience"),
        ("diff.noprefix", "true"),
        ("diff.mnemonicPrefix", "true"),
        ("diff.external", "sh -c 'echo external diff >&2; exit 1'"),
        ("diff.renames", "false"),
        ("diff.context", "9"),
        ("diff.interHunkContext", "20"),
        ("diff.relative", "true"),
        ("color.ui", "always"),
        ("color.diff", "always"),
        ("core.quotePath", "true"),
        ("diff.weird.textconv", "tr a-z A-Z"),
    ]:
        repo.git("config", key, value)
    (repo.root / ".git/info/attributes").write_text("*.md diff=weird\n")
    assert verdicts() == before
    assert {v["status"] for v in before} == {VerdictStatus.VERIFIED, VerdictStatus.DRIFTED}


def test_cli_verify_exit_codes_and_json(history: tuple[CorpusRepo, str]) -> None:
    repo, pinned = history
    root = ["--repo", str(repo.root)]
    runner = CliRunner()
    ok = runner.invoke(main, ["verify", f"{PATH}@{pinned[:8]}#L3-L4", *root])
    assert ok.exit_code == 0 and ok.stdout.startswith("verified:") and "corpus/renamed.md@" in ok.stdout
    drifted = runner.invoke(main, ["verify", f"{PATH}@{pinned}#L15", "--json", *root])
    data = json.loads(drifted.stdout)
    assert drifted.exit_code == 0 and data[0]["status"] == VerdictStatus.DRIFTED and data[0]["hunks"]
    strict = runner.invoke(main, ["verify", f"{PATH}@{pinned}#L15", "--strict", *root])
    assert strict.exit_code == 7
    bad = runner.invoke(main, ["verify", f"{PATH}@{'0' * 40}#L1", *root])
    assert bad.exit_code == 7 and "unresolvable" in bad.stdout and "fetch-depth: 0" in bad.stdout
    against = runner.invoke(main, ["verify", f"{PATH}@{pinned}#L1", "--against", "no-such-rev", *root])
    assert against.exit_code == 3 and "no-such-rev" in against.stderr and "Traceback" not in against.stderr


def test_batched_commit_diff_gives_the_same_hunks_as_blob_diffs(corpus_repo: CorpusRepo) -> None:
    files = {f"corpus/d{i}.md": "".join(f"doc {i} line {n}\n" for n in range(30)) for i in range(6)}
    pinned = corpus_repo.commit({**files, "corpus/weird [x]*.md": "a\nb\nc\n"})
    edited = {p: t.replace("line 7\n", "line seven\n").replace("line 20\n", "") for p, t in files.items()}
    corpus_repo.commit({**edited, "corpus/weird [x]*.md": "a\nB\nc\n"})
    corpus_repo.move("corpus/d0.md", "corpus/moved.md")
    git = GitRepo(corpus_repo.root)
    head = corpus_repo.head()
    paths = [*files, "corpus/moved.md", "corpus/weird [x]*.md"]
    batched = git.diff_commit_paths(pinned, head, paths)
    changes = git.changes_between(pinned, head)
    pairs = {(c.old_blob, c.new_blob) for c in changes.values() if c.old_blob and c.new_blob}
    assert set(batched) == pairs and len(pairs) == 7
    for old_blob, new_blob in pairs:
        assert batched[(old_blob, new_blob)] == git.diff_blobs(old_blob, new_blob)
    # A diff attribute (binary, a driver) could change the commit diff: those paths are left to blob diffs.
    (corpus_repo.root / ".git/info/attributes").write_text("d1.md -diff\nd2.md diff=weird\n")
    left = git.diff_commit_paths(pinned, head, paths)
    assert len(left) == 5 and all(left[k] == batched[k] for k in left)


@pytest.mark.parametrize("indexed", [True, False])
def test_verify_of_many_citations_runs_a_few_git_processes_as_check_does(
    corpus_repo: CorpusRepo, indexed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    from indexer import api

    docs = {f"corpus/d{n}.md": "".join(f"line {k} of doc {n}\n" for k in range(40)) for n in range(12)}
    first = corpus_repo.commit(docs)
    for step in range(3):
        docs = {p: t.replace(f"line {5 + step} ", f"LINE {5 + step} ") for p, t in docs.items()}
        corpus_repo.commit(docs)
    if indexed:
        api.build(corpus_repo.root, site=False)
    cited = [Citation(first, f"corpus/d{n}.md", lines=(k, k + 1)) for n in range(12) for k in (2, 5, 6, 20)]
    started: list[str] = []
    real_popen = subprocess.Popen

    def popen(args: object, *rest: object, **kwargs: object) -> object:  # subprocess.run starts through Popen
        words = [a for a in args if isinstance(a, str) and "=" not in a and not a.startswith("-")]  # type: ignore[attr-defined]
        started.append(words[1] if len(words) > 1 else "?")
        return real_popen(args, *rest, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "Popen", popen)
    checked = api.verify(cited, corpus_repo.root)
    assert sorted({c.verdict.status for c in checked}) == ["drifted", "verified"]
    # One diff per drifted citation (where its words were last seen) and two processes per cited path
    # (its declared encoding) made 52 processes with an index and 99 without, for these 48 citations.
    # Without an index, naming the commit that changed each drifted citation walks git's first-parent
    # line instead of the index's: one log of the line, one of the cited paths, one diff of the steps.
    assert started.count("diff") <= (2 if indexed else 3), started
    assert started.count("check-attr") + started.count("read-tree") <= (6 if indexed else 7), started
    assert len(started) <= 12 if indexed else len(started) <= 31, started
