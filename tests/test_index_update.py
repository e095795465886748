"""A build after new commits updates the previous index by those commits alone, and writes what a cold build writes.

- Property: over random histories (edits, additions, deletions, renames, a folder moved whole,
  a `.gitattributes` change, merges whose side commits are off the first-parent line), the index
  updated after each commit equals, table by table and match by match, a cold build of that commit.
- Work follows the change: one edited file after a long history of a large corpus is one commit
  walked and one path classified, as after a short history of a small one.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import build
from indexer.index import build as build_mod
from indexer.index import store
from indexer.index.build import BuildSummary
from indexer.index.update import read_changed_paths
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo
from tests.synth_corpus import SynthParams, commit_change, generate

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "zymurgy")
UNSTABLE_META = {"built_at", "changed_paths"}  # when it was built, and what changed since the build before


def _content(index: Path) -> dict[str, Any]:
    """Every table of an index by content (ids are the order versions were first met, not content)."""
    conn = sqlite3.connect(index)
    try:
        conn.execute("INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)")
        key = {vid: (blob, identity) for vid, blob, identity in conn.execute("SELECT id, blob, identity FROM versions")}
        versions = sorted(
            (blob, identity, *rest)
            for _id, blob, identity, *rest in conn.execute(
                "SELECT * FROM versions WHERE id IN (SELECT version_id FROM path_versions)"
            )
        )
        spans = {
            pid: (key[vid], ordinal)
            for pid, vid, ordinal in conn.execute("SELECT id, version_id, ordinal FROM passage_spans")
        }
        return {
            "meta": sorted(row for row in conn.execute("SELECT key, value FROM meta") if row[0] not in UNSTABLE_META),
            "commits": conn.execute("SELECT * FROM commits ORDER BY seq").fetchall(),
            "versions": versions,
            "path_versions": sorted(
                (path, key[vid], first, last)
                for path, vid, first, last in conn.execute(
                    "SELECT path, version_id, first_seq, last_seq FROM path_versions"
                )
            ),
            "passages": sorted(
                (key[vid], *rest)
                for _id, vid, *rest in conn.execute("SELECT * FROM passages")
                if key[vid] in {v[:2] for v in versions}
            ),
            "matches": {
                word: sorted(
                    spans[rowid]
                    for (rowid,) in conn.execute("SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?", (word,))
                    if spans[rowid][0] in {v[:2] for v in versions}
                )
                for word in WORDS
            },
        }
    finally:
        conn.close()


def _reported(summary: BuildSummary) -> tuple[Any, ...]:
    return (
        summary.commit,
        summary.commits,
        summary.documents,
        summary.versions,
        summary.passages,
        sorted((s.path, s.reason, s.hint) for s in summary.skipped),
        sorted(summary.warnings),
    )


STEP = st.tuples(
    st.sampled_from(["edit", "add", "delete", "rename", "move_folder", "attributes", "merge"]),
    st.integers(0, 5),
    st.sampled_from(WORDS),
)


class _History:
    """A corpus repository that a step at a time edits, adds, deletes, renames, moves, declares and merges."""

    def __init__(self, repo: CorpusRepo) -> None:
        self.repo, self.n = repo, 0
        self.files: dict[str, str] = {
            "corpus/stays.md": "# Stays\n\nalpha words.\n",
            "corpus/a/one.md": "# One\n\nbravo\n",
        }
        self.files["corpus/a/two.txt"] = "charlie text\n"
        repo.commit(dict(self.files))

    def step(self, kind: str, pick: int, word: str) -> None:
        self.n += 1
        paths = sorted(self.files)
        path = paths[pick % len(paths)]
        if kind == "edit":
            self._commit({path: self.files[path] + f"{word} line {self.n}\n"})
        elif kind == "add":
            self._commit({f"corpus/{'ab'[pick % 2]}/new{self.n}.{'md' if pick % 3 else 'txt'}": f"# New\n\n{word}\n"})
        elif kind == "delete" and len(paths) > 1 and path != "corpus/stays.md":
            self._commit({path: None})
        elif kind == "rename" and path != "corpus/stays.md":
            self._commit({path: None, f"corpus/b/renamed{self.n}-{path.rsplit('/', 1)[-1]}": self.files[path]})
        elif kind == "move_folder":
            old, new = ("corpus/a/", "corpus/b/") if pick % 2 else ("corpus/b/", "corpus/a/")
            moved = {p: None for p in paths if p.startswith(old)}
            moved.update({new + p[len(old) :]: self.files[p] for p in paths if p.startswith(old)})
            self._commit(moved)
        elif kind == "attributes":
            current = self.repo.root / ".gitattributes"
            declared = current.exists() and "binary" in current.read_text()
            self.repo.commit({".gitattributes": "" if declared else "*.txt binary\n"}, message="attributes")
        elif kind == "merge":
            # Side commits reach the first-parent line only through the merge's second parent.
            self.repo.git("checkout", "-q", "-b", f"side{self.n}")
            self._commit({f"corpus/side{self.n}.md": f"# Side\n\n{word}\n"})
            if path != "corpus/stays.md":  # main edits that one: no conflict
                self._commit({path: self.files[path] + f"side {word}\n"})
            self.repo.git("checkout", "-q", "main")
            self._commit({"corpus/stays.md": self.files["corpus/stays.md"] + f"main {self.n}\n"})
            self.repo.git("merge", "-q", "--no-ff", "-m", "merge", f"side{self.n}")
            self._reread()
        else:
            self.repo.commit({}, message="nothing")

    def _commit(self, change: dict[str, str | None]) -> None:
        for path, text in change.items():
            if text is None:
                self.files.pop(path, None)
            else:
                self.files[path] = text
        self.repo.commit(dict(change))

    def _reread(self) -> None:
        listing = self.repo.git("ls-files", "corpus").split()
        self.files = {path: (self.repo.root / path).read_text() for path in listing}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=1, max_size=5))
def test_an_updated_index_is_a_cold_build_of_the_same_commit(steps: list[tuple[str, int, str]]) -> None:
    with tempfile.TemporaryDirectory(prefix="pincite-update-") as tmp:
        root = Path(tmp)
        repo = CorpusRepo(root / "repo")
        history = _History(repo)
        index = root / "updated.sqlite"
        build(repo.root, site=False, index_path=index)
        for n, step in enumerate(steps):
            history.step(*step)
            updated = build(repo.root, site=False, index_path=index)
            cold_index = root / f"cold{n}.sqlite"
            cold = build(repo.root, site=False, index_path=cold_index)
            assert _content(index) == _content(cold_index)
            assert _reported(updated) == _reported(cold)
            assert cold.changed_paths is None
            # The update path was the one taken, except where a declaration changed.
            assert (updated.changed_paths is None) == (step[0] == "attributes")


def _corpus(root: Path, docs: int, commits: int) -> Path:
    params = SynthParams(docs=docs, commits=commits, files_per_commit=2, target_bytes=docs * 800, seed=5)
    return generate(root, params).root


@pytest.mark.parametrize(("docs", "commits"), [(12, 4), (60, 30)])
def test_one_edited_file_is_one_commit_walked_and_one_path_classified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, docs: int, commits: int
) -> None:
    repo = _corpus(tmp_path / "corpus", docs, commits)
    index = tmp_path / "index.sqlite"
    build(repo, site=False, index_path=index)
    path = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))[3]
    commit_change(repo, path, "\nOne more paragraph, with zymurgy.\n")
    classified: list[str] = []
    walked: list[int] = []
    listed: list[str] = []
    real_classify, real_changes = build_mod.classify, GitRepo.changes_along

    def counting_classify(entry: Any, *args: Any) -> Any:
        classified.append(entry.path)
        return real_classify(entry, *args)

    def counting_changes(self: GitRepo, since: str, tip: str, *args: Any, **kwargs: Any) -> Any:
        walked.append(self.count_commits(since, tip))
        return real_changes(self, since, tip, *args, **kwargs)

    monkeypatch.setattr(build_mod, "classify", counting_classify)
    monkeypatch.setattr(GitRepo, "changes_along", counting_changes)
    monkeypatch.setattr(GitRepo, "tree_entries", lambda *a, **k: listed.append("tree") or [])
    summary = build(repo, site=False, index_path=index)
    assert (classified, walked, listed) == ([path], [1], [])
    assert summary.changed_paths == (path,)
    assert summary.extracted == 1 and summary.documents == docs
    reader = sqlite3.connect(index)
    value = reader.execute("SELECT value FROM meta WHERE key = 'changed_paths'").fetchone()[0]
    reader.close()
    assert read_changed_paths(value)[1] == (path,)
    assert Counter(classified) == Counter([path])


def test_a_force_push_is_a_full_build(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nalpha\n"})
    corpus_repo.commit({"corpus/b.md": "# B\n\nbravo\n"})
    index = corpus_repo.root / "index.sqlite"
    build(corpus_repo.root, site=False, index_path=index)
    corpus_repo.git("reset", "-q", "--hard", "HEAD~1")
    corpus_repo.commit({"corpus/c.md": "# C\n\ncharlie\n"})
    summary = build(corpus_repo.root, site=False, index_path=index)
    assert summary.changed_paths is None  # the old head is not on the line: the whole history is walked
    assert summary.documents == 2 and summary.commits == 2


def test_an_update_whose_look_ups_take_several_queries_is_a_cold_build(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The update's look-ups name their paths, blobs and versions a batch of queries at a time (SQLite
    # limits a statement's variables): with two a query, every batch boundary is crossed.
    corpus_repo.commit({f"corpus/doc{n}.md": f"# Doc {n}\n\nalpha {n}\n" for n in range(7)})
    index = corpus_repo.root / "updated.sqlite"
    build(corpus_repo.root, site=False, index_path=index)
    change: dict[str, str | bytes | None] = {f"corpus/doc{n}.md": f"# Doc {n}\n\nbravo {n}\n" for n in range(5)}
    corpus_repo.commit({**change, "corpus/doc5.md": None, "corpus/new.txt": "charlie\n"})
    monkeypatch.setattr(store, "VARIABLES_PER_QUERY", 2)
    updated = build(corpus_repo.root, site=False, index_path=index)
    cold_index = corpus_repo.root / "cold.sqlite"
    cold = build(corpus_repo.root, site=False, index_path=cold_index)
    assert updated.changed_paths is not None and len(updated.changed_paths) == 7
    assert _content(index) == _content(cold_index)
    assert _reported(updated) == _reported(cold)
