"""What the build's performance rests on, asserted without timing anything.

- Work is proportional to what changed: one changed file, one extracted blob.
- Documents are streamed: the Python heap a build needs does not grow with the corpus.
- The streaming blob reader returns exactly git's bytes, in order, and never reads an
  oversized blob into memory.
- Passage ids given in bulk stay consistent with the FTS table across incremental builds.
"""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import build
from indexer.config import Config
from indexer.errors import RepositoryError
from indexer.vcs.repo import MISSING_SIZE, GitRepo
from tests.conftest import CorpusRepo, count_pools
from tests.synth_corpus import SynthParams, commit_change, generate


def _synth(root: Path, docs: int, commits: int, doc_bytes: int = 1500) -> Path:
    params = SynthParams(docs=docs, commits=commits, files_per_commit=2, target_bytes=docs * doc_bytes, seed=3)
    return generate(root, params).root


def test_one_changed_file_after_a_long_history_extracts_one_blob(tmp_path: Path) -> None:
    repo = _synth(tmp_path / "synth", docs=40, commits=25)
    index = tmp_path / "index.sqlite"
    cold = build(repo, site=False, index_path=index)
    assert cold.commits == 26
    assert cold.documents == 40
    assert cold.extracted == cold.versions  # every distinct version of the history, each once
    path = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))[5]
    commit_change(repo, path, "\nA paragraph added for the incremental build.\n")
    warm = build(repo, site=False, index_path=index)
    assert warm.extracted == 1
    assert warm.reused == cold.extracted
    assert warm.commits == 27
    again = build(repo, site=False, index_path=index)
    assert again.extracted == 0


def test_a_rename_without_edits_extracts_nothing(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nText of a.\n", "corpus/b.md": "# B\n\nText of b.\n"})
    build(corpus_repo.root, site=False)
    corpus_repo.move("corpus/a.md", "corpus/moved/a.md")
    summary = build(corpus_repo.root, site=False)
    assert (summary.extracted, summary.reused, summary.documents) == (0, 2, 2)


def test_fts_rows_stay_consistent_with_passages_across_incremental_builds(tmp_path: Path) -> None:
    repo = _synth(tmp_path / "synth", docs=12, commits=4)
    index = tmp_path / "index.sqlite"
    build(repo, site=False, index_path=index)
    for n in range(3):
        path = sorted(p.relative_to(repo).as_posix() for p in (repo / "corpus").rglob("*.md"))[n]
        commit_change(repo, path, f"\nAddition number {n} with the word zymurgy{n}.\n")
        build(repo, site=False, index_path=index)
    conn = sqlite3.connect(index)
    # 'integrity-check' with rank 1 compares the FTS index against the passages table itself.
    conn.execute("INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)")
    conn.execute("INSERT INTO versions_tri(versions_tri) VALUES ('integrity-check')")
    ids = [row[0] for row in conn.execute("SELECT id FROM passages ORDER BY id")]
    assert len(ids) == len(set(ids))
    for n in range(3):
        hits = conn.execute(
            "SELECT p.text FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid WHERE passages_fts MATCH ?",
            (f"zymurgy{n}",),
        ).fetchall()
        assert len(hits) == 1 and f"zymurgy{n}" in hits[0][0]
    conn.close()


def _documents(count: int, size: int, seed: int) -> dict[str, str | bytes | None]:
    rng = random.Random(seed)
    words = ("retention", "policy", "backup", "incident", "ledger", "audit", "vendor", "access")
    docs: dict[str, str | bytes | None] = {}
    for n in range(count):
        paragraphs = [f"# Document {n}"]
        while sum(len(p) + 2 for p in paragraphs) < size:
            paragraphs.append(" ".join(rng.choice(words) for _ in range(60)))
        docs[f"corpus/doc{n:03d}.md"] = "\n\n".join(paragraphs) + "\n"
    return docs


def _peak_python_heap(repo: CorpusRepo) -> int:
    tracemalloc.start()
    try:
        build(repo.root, site=False)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_build_heap_does_not_grow_with_the_number_of_documents(make_repo) -> None:  # type: ignore[no-untyped-def]
    # Equal-sized documents, eight times as many: a build holding every text (or every
    # passage) at once would need 42 more documents' worth of heap; a streaming build,
    # which holds one document at a time, about the same peak for both.
    doc_bytes = 60_000
    warm_up = make_repo("warm")
    warm_up.commit(_documents(2, 1000, seed=0))
    build(warm_up.root, site=False)  # first-use imports and caches are not what is measured
    small, large = make_repo("small"), make_repo("large")
    small.commit(_documents(6, doc_bytes, seed=1))
    large.commit(_documents(48, doc_bytes, seed=2))
    peak_small = _peak_python_heap(small)
    peak_large = _peak_python_heap(large)
    assert peak_large - peak_small < 10 * doc_bytes, (peak_small, peak_large)


def test_iter_blobs_returns_gits_bytes_in_request_order(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "alpha\n", "corpus/b.txt": b"\xff\xfe not utf-8", "corpus/c.md": ""})
    repo = GitRepo(corpus_repo.root)
    entries = {e.path: e.sha for e in repo.tree_entries("HEAD", ("corpus",))}
    order = [entries["corpus/c.md"], entries["corpus/a.md"], entries["corpus/b.txt"], entries["corpus/a.md"]]
    got = list(repo.iter_blobs(order))
    assert [sha for sha, _size, _data in got] == order
    assert [data for _sha, _size, data in got] == [repo.read_blob(sha) for sha in order]
    assert [size for _sha, size, _data in got] == [0, 6, 12, 6]


def test_iter_blobs_skips_oversized_content_and_reads_on(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/big.md": "x" * 5000, "corpus/small.md": "small\n"})
    repo = GitRepo(corpus_repo.root)
    entries = {e.path: e.sha for e in repo.tree_entries("HEAD", ("corpus",))}
    got = list(repo.iter_blobs([entries["corpus/big.md"], entries["corpus/small.md"]], max_bytes=100))
    assert got == [(entries["corpus/big.md"], 5000, None), (entries["corpus/small.md"], 6, b"small\n")]


def test_iter_blobs_names_a_missing_blob(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "alpha\n"})
    repo = GitRepo(corpus_repo.root)
    with pytest.raises(RepositoryError, match=r"0{40}"):
        list(repo.iter_blobs(["0" * 40]))


def test_iter_blobs_can_stop_early(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({f"corpus/{n}.md": f"document {n}\n" * 2000 for n in range(30)})
    repo = GitRepo(corpus_repo.root)
    shas = [e.sha for e in repo.tree_entries("HEAD", ("corpus",))]
    blobs = repo.iter_blobs(shas)
    first = next(blobs)
    blobs.close()  # the git process is ended and reaped, not left writing into a full pipe
    assert first[2] == repo.read_blob(shas[0])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(contents=st.lists(st.binary(max_size=3000), min_size=1, max_size=6))
def test_iter_blobs_round_trips_any_bytes(corpus_repo: CorpusRepo, contents: list[bytes]) -> None:
    repo = GitRepo(corpus_repo.root)
    shas = [repo.hash_object(data) for data in contents]
    assert [data for _sha, _size, data in repo.iter_blobs(shas)] == contents


def test_the_synthetic_corpus_is_reproducible_from_its_seed(tmp_path: Path) -> None:
    params = SynthParams(docs=30, commits=6, files_per_commit=2, target_bytes=60_000, seed=11, rename_rate=0.5)
    first = generate(tmp_path / "one", params)
    second = generate(tmp_path / "two", params)
    other = generate(tmp_path / "three", dataclasses.replace(params, seed=12))
    assert first.head == second.head and first.commits == second.commits
    assert other.head != first.head
    assert len(first.commits) == 7 and len(first.paths) == 30
    assert abs(first.total_bytes - 60_000) < 15_000
    assert {kind for _n, kind, _path in first.edits} == {"modify", "rename"}


def test_the_index_file_is_at_most_two_and_a_half_times_the_text_it_holds(tmp_path: Path) -> None:
    # A passage's text is cut from its version's text (a view), not stored a second time.
    repo = _synth(tmp_path / "synth", docs=200, commits=10, doc_bytes=4000)
    index = tmp_path / "index.sqlite"
    build(repo, site=False, index_path=index)
    conn = sqlite3.connect(index)
    text_bytes = conn.execute("SELECT SUM(LENGTH(CAST(text AS BLOB))) FROM versions").fetchone()[0]
    passage_text = conn.execute("SELECT text FROM passages ORDER BY id LIMIT 1").fetchone()[0]
    conn.close()
    assert passage_text  # the view gives the text
    assert index.stat().st_size <= 2.5 * text_bytes, index.stat().st_size / text_bytes


def _dump(index: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(index)
    tables = {
        "versions": "SELECT * FROM versions ORDER BY id",
        "passages": "SELECT * FROM passages ORDER BY id",
        "path_versions": "SELECT * FROM path_versions ORDER BY path, first_seq",
        "porter": "SELECT rowid FROM passages_fts WHERE passages_fts MATCH 'the' ORDER BY rowid",
        "trigram": "SELECT rowid FROM versions_tri WHERE versions_tri MATCH '\"the\"' ORDER BY rowid",
    }
    dump = {name: conn.execute(sql).fetchall() for name, sql in tables.items()}
    conn.close()
    return dump


def test_a_build_on_several_cores_writes_the_index_a_single_process_writes(tmp_path: Path, monkeypatch) -> None:
    from indexer.index import prepare
    from tests.synth_corpus import git

    repo = _synth(tmp_path / "synth", docs=30, commits=6)
    (repo / "corpus" / "broken.pdf").write_bytes(b"%PDF-1.4 not really a PDF")  # fails to extract
    (repo / "corpus" / "large.md").write_text("# Large\n\n" + "word " * 5000, encoding="utf-8")  # over the limit
    git(repo, "add", "corpus")
    git(repo, "commit", "-q", "-m", "A broken and an oversized file")
    config = Config(max_file_bytes=20_000)
    monkeypatch.setattr(prepare, "usable_cores", lambda: 1)
    single = build(repo, site=False, index_path=tmp_path / "single.sqlite", config=config)

    pools = count_pools(monkeypatch)
    # A task per blob, one in flight per worker: results are awaited while blobs are still read.
    monkeypatch.setattr(prepare, "TASK_BYTES", 1)
    monkeypatch.setattr(prepare, "TASKS_PER_WORKER", 1)
    pooled = build(repo, site=False, index_path=tmp_path / "pooled.sqlite", config=config)

    assert pools == [2]
    assert (pooled.extracted, pooled.versions, pooled.passages) == (single.extracted, single.versions, single.passages)
    assert sorted(s.path for s in pooled.skipped) == sorted(s.path for s in single.skipped)
    assert {s.path for s in single.skipped} >= {"corpus/broken.pdf", "corpus/large.md"}
    assert _dump(tmp_path / "pooled.sqlite") == _dump(tmp_path / "single.sqlite")


def test_iter_blobs_can_report_a_missing_blob_and_read_on(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "alpha\n"})
    repo = GitRepo(corpus_repo.root)
    present = repo.blob_at("HEAD", "corpus/a.md")
    assert present is not None
    got = list(repo.iter_blobs(["0" * 40, present.sha], skip_missing=True))
    assert got == [("0" * 40, MISSING_SIZE, None), (present.sha, 6, b"alpha\n")]


def test_versions_written_in_batches_are_the_rows_one_at_a_time_writes(tmp_path: Path, monkeypatch) -> None:
    from indexer.index import store

    repo = _synth(tmp_path / "synth", docs=40, commits=8)
    monkeypatch.setattr(store, "VERSIONS_PER_WRITE", 1)
    one_by_one = build(repo, site=False, index_path=tmp_path / "one.sqlite")
    monkeypatch.setattr(store, "VERSIONS_PER_WRITE", 7)  # batches that end mid-commit and a short last one
    batched = build(repo, site=False, index_path=tmp_path / "batched.sqlite")
    assert batched.extracted == one_by_one.extracted > 40
    assert _dump(tmp_path / "batched.sqlite") == _dump(tmp_path / "one.sqlite")


def test_a_build_gives_the_collectors_threshold_back(tmp_path: Path) -> None:
    # The build makes the cyclic collector pass less often while it prepares and writes versions
    # (indexer.index.prepare.FEW_COLLECTIONS); the caller's process keeps its own setting.
    import gc

    repo = _synth(tmp_path / "synth", docs=8, commits=2)
    before = gc.get_threshold()
    gc.set_threshold(500, 7, 9)
    try:
        build(repo, site=False, index_path=tmp_path / "index.sqlite")
        assert gc.get_threshold() == (500, 7, 9)
    finally:
        gc.set_threshold(*before)


def test_a_build_scans_its_long_lived_objects_rarely_and_gives_the_setting_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A one-file rebuild's heap is mostly rows that live until it ends: Python's default third
    # threshold had the collector scan them all a dozen times (indexer.machine.rare_full_collections).
    import gc

    from indexer import api
    from indexer.machine import FULL_COLLECTION_THRESHOLD

    seen: list[tuple[int, int, int]] = []
    stages = api._build_stages

    def recorded(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.get_threshold())
        return stages(*args, **kwargs)

    monkeypatch.setattr(api, "_build_stages", recorded)
    repo = _synth(tmp_path / "synth", docs=8, commits=2)
    before = gc.get_threshold()
    gc.set_threshold(500, 7, 9)
    try:
        build(repo, site=False, index_path=tmp_path / "index.sqlite")
        assert seen == [(500, 7, FULL_COLLECTION_THRESHOLD)]
        assert gc.get_threshold() == (500, 7, 9)
    finally:
        gc.set_threshold(*before)
