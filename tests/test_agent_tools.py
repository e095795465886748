"""The agent tools in-process: read-only, offline, bounded, warm, and fresh when HEAD moves."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from indexer import api, build
from indexer.citations.drift import verify
from indexer.citations.quote import AmbiguousQuote
from indexer.citations.resolve import Resolver
from indexer.errors import RepositoryError, UsageError
from indexer.extract.cache import CACHE_DIR
from indexer.integrations import agent_shapes as shapes
from indexer.integrations.agent_tools import MAX_CITATIONS, MAX_QUOTE_CHARS, AgentTools
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo, SampleClone

RETENTION = "corpus/policies/data-retention.md"
QUOTE = "Application logs are personal data"


def every_tool(tools: AgentTools, clone: SampleClone) -> None:
    """One call of each tool, drifted and extracted citations included (git diffs of extracted text)."""
    cited = tools.cite(RETENTION, quote=QUOTE)["cited"]
    assert cited is not None
    tools.search("retention", limit=3)
    tools.cite(RETENTION, quote="logs")
    tools.resolve(cited["citation"], context=2)
    html = tools.cite("corpus/web/travel-policy.html", lines="5-12", commit=_first_with(clone, "corpus/web"))["cited"]
    assert html is not None
    edited = [clone.first_citation(p) for p in clone.passages("edited")]
    verified = tools.verify([cited["citation"], html["citation"], *edited])
    assert verified["results"][1]["status"] == "drifted"  # a git diff of extracted text
    tools.check_answer(
        f'"{QUOTE}" {cited["citation"]}\n\n"made-up words here" {cited["citation"]}\n\n' + cited["markdown"]
    )
    tools.locate(clone.passages("edited")[0]["quote"], path=RETENTION, since=clone.first)
    commit, paths = tools.documents()
    tools.read(commit, paths[0], lines="1-2")


def _first_with(clone: SampleClone, folder: str) -> str:
    out = subprocess.run(
        ["git", "log", "--reverse", "--format=%H", "--", folder], cwd=clone.root, capture_output=True, text=True
    )
    return out.stdout.split()[0]


def listing(root: Path) -> dict[str, tuple[int, int]]:
    found = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            stat = path.lstat()
            found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return found


def test_the_tools_write_nothing_into_the_repository_or_the_index(sample_clone: SampleClone) -> None:
    before, index_before = listing(sample_clone.root), sample_clone.index.stat().st_mtime_ns
    tools = AgentTools(sample_clone.root, index_path=sample_clone.index)
    every_tool(tools, sample_clone)
    tools.close()
    assert listing(sample_clone.root) == before
    assert sample_clone.index.stat().st_mtime_ns == index_before


def test_the_tools_never_touch_the_network(sample_clone: SampleClone, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network use: {args!r}")

    for name in ("connect", "connect_ex", "sendto"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    tools = AgentTools(sample_clone.root, index_path=sample_clone.index)
    every_tool(tools, sample_clone)
    tools.close()


def test_recovery_in_the_tools_runs_no_installed_plugin(sample_clone: SampleClone) -> None:
    tools = AgentTools(sample_clone.root, index_path=sample_clone.index)
    with tools._warm() as warm:
        assert warm.recoverer.providers == [] and warm.recoverer.failures == ()
    tools.close()


def test_a_warm_check_answer_of_twenty_citations_starts_few_git_processes(
    sample_clone: SampleClone, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = AgentTools(sample_clone.root, index_path=sample_clone.index)
    hits = tools.search("the", limit=20)["hits"]
    assert len(hits) == 20
    draft = "\n\n".join(f'"{" ".join(hit["text"].split()[:8])}" {hit["citation"]}' for hit in hits)
    first = tools.check_answer(draft)
    assert first["ok"], [c for c in first["citations"] if c["severity"] != "ok"]
    started: list[list[str]] = []
    real_popen = subprocess.Popen

    def popen(args: Any, *rest: Any, **kwargs: Any) -> Any:  # subprocess.run starts its process through Popen
        started.append([a for a in args if "=" not in a and a != "-c"])
        return real_popen(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", popen)
    again = tools.check_answer(draft)
    tools.close()
    assert again["ok"] and len(again["citations"]) == 20
    # HEAD (is it still the same?), the origin URL, and reachability of the one cited commit.
    assert len(started) <= 3, started


def test_the_caches_follow_head(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    first = corpus_repo.commit({"corpus/a.md": "# A\n\nThe first wording of the rule.\n"})
    index = tmp_path / "index.sqlite"
    build(corpus_repo.root, site=False, index_path=index)
    tools = AgentTools(corpus_repo.root, index_path=index)
    assert tools.cite("corpus/a.md", quote="first wording")["cited"]["commit"] == first  # type: ignore[index]
    second = corpus_repo.commit({"corpus/a.md": "# A\n\nThe second wording of the rule.\n"})
    assert tools.cite("corpus/a.md", quote="second wording")["cited"]["commit"] == second  # type: ignore[index]
    assert tools.search("wording")["commit"] == first  # the index still holds the first commit
    build(corpus_repo.root, site=False, index_path=index)
    assert tools.search("wording")["commit"] == second
    checked = tools.check_answer(f'"first wording" corpus/a.md@{first}#L3')
    assert checked["citations"][0]["verdict"] == "drifted"
    assert checked["citations"][0]["changed_by"]["commit"] == second  # type: ignore[index]
    tools.close()


def test_an_unexpected_failure_drops_the_caches_and_the_next_call_starts_clean(sample_clone: SampleClone) -> None:
    tools = AgentTools(sample_clone.root, index_path=sample_clone.index)
    cited = tools.cite(RETENTION, quote=QUOTE)["cited"]
    assert cited is not None
    with tools._warm() as warm:
        broken = warm

    def crash(*args: Any) -> Any:
        raise RuntimeError("a bug")

    broken.resolver.resolve = crash  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        tools.resolve(cited["citation"])
    assert tools.resolve(cited["citation"])["text"] == QUOTE
    with tools._warm() as warm:
        assert warm is not broken
    tools.close()


def test_build_is_refused_unless_allowed(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nText.\n"})
    with pytest.raises(UsageError, match="--allow-build"):
        AgentTools(corpus_repo.root, index_path=tmp_path / "i.sqlite").build()
    built = AgentTools(corpus_repo.root, index_path=tmp_path / "i.sqlite", allow_build=True).build()
    assert built["documents"] == 1 and Path(built["index_path"]) == tmp_path / "i.sqlite"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: t.cite(RETENTION, quote="x" * (MAX_QUOTE_CHARS + 1)), "the most this tool takes is 2,000"),
        (lambda t: t.locate("x" * (MAX_QUOTE_CHARS + 1)), "the most this tool takes is 2,000"),
        (lambda t: t.search("x " * 600), "the query is 1,200 characters"),
        (lambda t: t.resolve(f"{RETENTION}@HEAD#L1", context=-1), "--context must be at least 0"),
        (lambda t: t.verify(["x"] * (MAX_CITATIONS + 1)), "verify takes at most 500 citations"),
        (lambda t: t.check_answer(f"{RETENTION}@abcd#L1\n" * (MAX_CITATIONS + 1)), "check_answer checks at most 500"),
        (
            lambda t: t.check_answer('"' + "y" * 2500 + f'" {RETENTION}@abcd#L1'),
            "citation on line 1 is 2,500 characters",
        ),
    ],
)
def test_arguments_are_bounded(sample_clone: SampleClone, call: Any, message: str) -> None:
    tools = AgentTools(sample_clone.root, index_path=sample_clone.index)
    with pytest.raises(UsageError, match=message):
        call(tools)
    tools.close()


def test_an_ambiguous_quote_raises_with_every_candidate(sample_clone: SampleClone) -> None:
    with pytest.raises(AmbiguousQuote) as raised:
        api.cite(RETENTION, sample_clone.root, quote="logs")
    candidates = raised.value.candidates
    assert len(candidates) > 1 and len({c.chars for c in candidates}) == len(candidates)
    resolver = Resolver(GitRepo(sample_clone.root))
    assert {resolver.resolve(c).text.lower() for c in candidates} == {"logs"}


# -- the read-only repository handle ---------------------------------------------------------
def test_a_read_only_repository_keeps_written_blobs_out_of_the_repository(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "one\n"})
    repo = GitRepo(corpus_repo.root, read_only=True)
    old, new = repo.hash_object(b"one\ntwo\n"), repo.hash_object(b"one\nthree\n")
    assert [h.header for h in repo.diff_blobs(old, new)] == ["@@ -2,1 +2,1 @@"]
    missing = subprocess.run(["git", "cat-file", "-e", new], cwd=corpus_repo.root, capture_output=True)
    assert missing.returncode != 0  # the repository's own object store never saw it
    with pytest.raises(RepositoryError, match="read-only"):
        repo.commit_files({"corpus/b.md": b"b\n"}, "no")
    with pytest.raises(RepositoryError, match="read-only"):
        repo.update_ref("refs/pincite/pins/x", corpus_repo.head())
    scratch = Path(repo._scratch.name)  # type: ignore[union-attr]
    repo.close()
    assert not scratch.exists()


def test_a_read_only_repository_reads_the_extract_cache_but_does_not_add_to_it(corpus_repo: CorpusRepo) -> None:
    html = "<html><head><title>T</title></head><body><main><p>Some words of a page.</p></main></body></html>"
    corpus_repo.commit({"corpus/page.html": html})
    resolver = Resolver(GitRepo(corpus_repo.root, read_only=True))
    assert "Some words" in resolver.text_at(corpus_repo.head(), "corpus/page.html").text
    assert not (corpus_repo.root / CACHE_DIR).exists()
    Resolver(GitRepo(corpus_repo.root)).text_at(corpus_repo.head(), "corpus/page.html")
    assert (corpus_repo.root / CACHE_DIR).exists()


# -- the commit that changed the cited text ------------------------------------------------------
def test_changed_by_walks_renames_and_shifts_to_the_commit_that_edited_the_lines(corpus_repo: CorpusRepo) -> None:
    lines = [f"line {n} of the document" for n in range(1, 11)]
    pinned = corpus_repo.commit({"corpus/a.md": "\n".join(lines) + "\n", "corpus/gone.md": "bye\n"})
    corpus_repo.commit({"corpus/a.md": "\n".join([*lines[:8], "line 9 edited", "line 10 of the document"]) + "\n"})
    corpus_repo.move("corpus/a.md", "corpus/moved/a.md")
    corpus_repo.commit(
        {"corpus/moved/a.md": "a new first line\n" + (corpus_repo.root / "corpus/moved/a.md").read_text()}
    )
    edited_text = (corpus_repo.root / "corpus/moved/a.md").read_text().replace("line 4 of", "line four of")
    editing = corpus_repo.commit({"corpus/moved/a.md": edited_text}, message="reword line four")
    deleting = corpus_repo.commit({"corpus/gone.md": None}, message="drop gone.md")
    corpus_repo.commit({"corpus/other.md": "unrelated\n"})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))

    def change_of(citation: Citation, against: str = "HEAD") -> shapes.ChangedBy | None:
        return shapes.changed_by(verify(citation, resolver.repo, against, resolver=resolver))

    change = change_of(Citation(pinned, "corpus/a.md", lines=(3, 4)))
    assert change is not None
    assert (change["commit"], change["subject"], change["status"], change["path"]) == (
        editing,
        "reword line four",
        "drifted",
        "corpus/moved/a.md",
    )
    gone = change_of(Citation(pinned, "corpus/gone.md", lines=(1, 1)))
    assert gone is not None and gone["commit"] == deleting and "deleted" in gone["reason"]
    assert change_of(Citation(pinned, "corpus/a.md", lines=(1, 2))) is None


def test_a_cached_error_raised_again_and_again_does_not_grow(corpus_repo: CorpusRepo) -> None:
    import traceback

    corpus_repo.commit({"corpus/a.md": "text\n"})
    resolver = Resolver(GitRepo(corpus_repo.root))
    depths = []
    for _ in range(50):
        with pytest.raises(RepositoryError) as raised:
            resolver.entry(corpus_repo.head(), "corpus/nope.md")
        depths.append(len(traceback.extract_tb(raised.value.__traceback__)))
    assert depths[-1] == depths[1]


def test_without_the_sdk_the_command_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from click.testing import CliRunner

    from indexer.cli.main import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    outcome = CliRunner().invoke(main, ["mcp"])
    assert outcome.exit_code == 2
    assert "needs the official `mcp` Python SDK" in outcome.stderr and "pip install 'pincite[mcp]'" in outcome.stderr
