"""`pincite build`: history intervals, incremental reuse, atomicity and bad input."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path, PurePosixPath

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from indexer import build, search
from indexer.cli.main import main
from indexer.errors import IndexError_, RepositoryError
from indexer.index.build import file_type
from indexer.index.store import IndexReader
from tests.conftest import CorpusRepo


def _index(repo: CorpusRepo) -> Path:
    return repo.root / ".pincite" / "index.sqlite"


def test_build_indexes_text_documents_with_exact_passages(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit(
        {
            "corpus/handbook.md": "# Handbook\n\nRetention is seven years.\n",
            "corpus/notes dir/ünïcode name.txt": "Café 東京 😀\r\nsecond line\r\n",
            "corpus/empty.md": "",
        }
    )
    summary = build(corpus_repo.root, site=False)
    assert summary.documents == 3
    assert summary.extracted == 3
    assert summary.skipped == []
    reader = IndexReader(_index(corpus_repo))
    for pv in reader.paths_at(reader.head_seq()):
        version = reader.version(pv.version_id)
        assert version.text is not None
        for passage in reader.passages_of(pv.version_id):
            assert version.text[passage.start : passage.end] == passage.text
    reader.close()


def test_history_is_recorded_as_path_version_intervals(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "first\n", "corpus/b.md": "stays\n"}, "one")
    corpus_repo.commit({"corpus/a.md": "second\n"}, "two")
    corpus_repo.commit({"README": "outside the corpus\n"}, "three")
    corpus_repo.commit({"corpus/a.md": None}, "four")
    build(corpus_repo.root, site=False)
    reader = IndexReader(_index(corpus_repo))
    a = [(pv.first_seq, pv.last_seq) for pv in reader.history_of("corpus/a.md")]
    b = [(pv.first_seq, pv.last_seq) for pv in reader.history_of("corpus/b.md")]
    assert a == [(0, 0), (1, 2)]
    assert b == [(0, 3)]
    assert [c.subject for c in reader.commits()] == ["one", "two", "three", "four"]
    reader.close()


def test_a_rebuild_after_one_change_extracts_exactly_one_blob(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({f"corpus/doc{i}.md": f"# Doc {i}\n\nbody {i}\n" for i in range(20)})
    first = build(corpus_repo.root, site=False)
    assert first.extracted == 20
    corpus_repo.commit({"corpus/doc3.md": "# Doc 3\n\nchanged body\n"})
    second = build(corpus_repo.root, site=False)
    assert second.extracted == 1
    assert second.reused == 20  # 19 unchanged at HEAD plus the old doc3 version in history
    assert [h.path for h in search("changed", corpus_repo.root)] == ["corpus/doc3.md"]


def test_identical_blobs_are_extracted_once(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "same text\n", "corpus/copy/a.md": "same text\n"})
    assert build(corpus_repo.root, site=False).extracted == 1


def test_build_reads_git_objects_not_the_working_tree(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "committed words\n"})
    corpus_repo.write("corpus/a.md", "uncommitted words\n")
    summary = build(corpus_repo.root, site=False)
    assert any("uncommitted" in w for w in summary.warnings)
    assert search("committed", corpus_repo.root)
    assert not search("uncommitted", corpus_repo.root)


def test_build_of_an_older_rev(corpus_repo: CorpusRepo) -> None:
    old = corpus_repo.commit({"corpus/a.md": "old words\n"})
    corpus_repo.commit({"corpus/a.md": "new words\n"})
    summary = build(corpus_repo.root, old[:10], site=False)
    assert summary.commit == old
    assert search("old", corpus_repo.root)
    assert not search("new", corpus_repo.root)


def test_history_start_limits_the_walk(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "one\n"}, "c1")
    start = corpus_repo.commit({"corpus/a.md": "two\n"}, "c2")
    corpus_repo.commit({"corpus/b.md": "three\n"}, "c3")
    corpus_repo.write("pincite.toml", f'history_start = "{start}"\n')
    summary = build(corpus_repo.root, site=False)
    assert summary.commits == 2
    reader = IndexReader(_index(corpus_repo))
    assert [(pv.first_seq, pv.last_seq) for pv in reader.history_of("corpus/a.md")] == [(0, 1)]
    reader.close()


def test_skipped_files_are_reported_with_reasons(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit(
        {
            "corpus/latin1.txt": "Caf\xe9".encode("latin-1"),
            "corpus/ok.md": "fine\n",
            "corpus/big.md": "x" * 5000,
            "corpus/image.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            "corpus/notes": "A file without an extension is text too.\n",
            "corpus/chapter.rst": "Title\n=====\n\nBody.\n",
        }
    )
    os.symlink("ok.md", corpus_repo.root / "corpus/link.md")
    corpus_repo.commit(message="symlink")
    corpus_repo.write("pincite.toml", "max_file_bytes = 1000\n")
    summary = build(corpus_repo.root, site=False)
    reasons = {s.path: s.reason for s in summary.skipped}
    assert "not valid UTF-8" in reasons["corpus/latin1.txt"]
    assert "max_file_bytes" in reasons["corpus/big.md"]
    assert "binary (a NUL byte in its first 8000 bytes" in reasons["corpus/image.png"]
    assert "symlink" in reasons["corpus/link.md"]
    assert summary.documents == 3  # ok.md, notes and chapter.rst: every text file is a document
    result = CliRunner().invoke(main, ["build", "--repo", str(corpus_repo.root), "--no-site", "--strict"])
    assert result.exit_code == 1
    assert "corpus/latin1.txt" in result.output


def test_submodules_are_skipped(corpus_repo: CorpusRepo, make_repo) -> None:  # type: ignore[no-untyped-def]
    inner = make_repo("inner")
    inner.commit({"x.md": "inner\n"})
    corpus_repo.commit({"corpus/a.md": "outer\n"})
    corpus_repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner.root), "corpus/sub")
    corpus_repo.commit(message="add submodule")
    summary = build(corpus_repo.root, site=False)
    assert {s.path: s.reason for s in summary.skipped}["corpus/sub"] == "submodule (not indexed)"


@pytest.mark.parametrize(
    ("setup", "rev", "message"),
    [
        ("not-a-repo", "HEAD", "not a git repository"),
        ("empty", "HEAD", "no commits yet"),
        ("ok", "no-such-branch", "unknown revision 'no-such-branch'"),
        ("ok", "HEAD^{tree}", "names a tree, not a commit"),
        ("no-root", "HEAD", "corpus root 'corpus' does not exist"),
    ],
)
def test_bad_repositories_and_revs_get_one_line_errors(tmp_path: Path, setup: str, rev: str, message: str) -> None:
    root = tmp_path / "r"
    if setup == "not-a-repo":
        root.mkdir()
    else:
        repo = CorpusRepo(root)
        if setup == "ok":
            repo.commit({"corpus/a.md": "a\n"})
        elif setup == "no-root":
            repo.commit({"docs/a.md": "a\n"})
    with pytest.raises(RepositoryError, match=message.replace("^", r"\^").replace("{", r"\{")):
        build(root, rev, site=False)
    result = CliRunner().invoke(main, ["build", "--repo", str(root), "--rev", rev, "--no-site"])
    assert result.exit_code == RepositoryError.exit_code
    assert "Traceback" not in result.output
    assert message in result.output


def test_json_summary(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "a\n"})
    result = CliRunner().invoke(main, ["build", "--repo", str(corpus_repo.root), "--no-site", "--json"])
    assert result.exit_code == 0, result.output
    import json

    data = json.loads(result.output)
    assert data["documents"] == 1 and data["extracted"] == 1 and len(data["commit"]) == 40


def test_a_second_build_waits_for_nobody_but_refuses_while_locked(corpus_repo: CorpusRepo) -> None:
    import fcntl

    corpus_repo.commit({"corpus/a.md": "a\n"})
    lock = _index(corpus_repo).with_name("index.sqlite.lock")
    lock.parent.mkdir(parents=True)
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        with pytest.raises(IndexError_, match="another pincite build"):
            build(corpus_repo.root, site=False)
    assert build(corpus_repo.root, site=False).documents == 1


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_killed_build_leaves_the_previous_index_unchanged(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/first.md": "# First\n\nthe previous index\n"})
    build(corpus_repo.root, site=False)
    before = _digest(_index(corpus_repo))
    words = " ".join(f"word{i}" for i in range(400))
    corpus_repo.commit({f"corpus/many/{i}.md": f"# Doc {i}\n\n{words} {i}\n" for i in range(3000)})
    proc = subprocess.Popen(
        [sys.executable, "-m", "indexer.cli.main", "build", "--repo", str(corpus_repo.root), "--no-site"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not list(_index(corpus_repo).parent.glob(".index.sqlite.*.tmp")):
        assert time.monotonic() < deadline, "the build never started writing"
        assert proc.poll() is None, "the build finished before it could be killed"
        time.sleep(0.01)
    time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _digest(_index(corpus_repo)) == before
    conn = sqlite3.connect(_index(corpus_repo))
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    assert [h.path for h in search("previous", corpus_repo.root)] == ["corpus/first.md"]
    assert build(corpus_repo.root, site=False).documents == 3001
    assert not list(_index(corpus_repo).parent.glob(".index.sqlite.*.tmp"))


def test_configured_extraction_limits_apply_to_the_build(corpus_repo: CorpusRepo) -> None:
    from tests.extract_samples import pdf_of_pages

    corpus_repo.commit({"corpus/long.pdf": pdf_of_pages([[f"page {n}"] for n in range(5)])})
    corpus_repo.write("pincite.toml", "pdf_max_pages = 3\n")
    summary = build(corpus_repo.root, site=False)
    assert [s.path for s in summary.skipped] == ["corpus/long.pdf"]
    assert "pages" in summary.skipped[0].reason
    (corpus_repo.root / "pincite.toml").unlink()
    assert build(corpus_repo.root, site=False).documents == 1


# A path as git stores it: no empty, "." or ".." part (which PurePosixPath would fold away).
GIT_PATH_PART = st.text(alphabet=st.sampled_from(list("ab.Zé_ ")), min_size=1, max_size=8).filter(
    lambda part: part not in (".", "..")
)


@given(st.lists(GIT_PATH_PART, min_size=1, max_size=3))
def test_a_file_type_is_the_path_suffix_lowercased(parts: list[str]) -> None:
    path = "/".join(parts)
    assert file_type(path) == (PurePosixPath(path).suffix.lower() or "(no extension)")


def test_a_blob_missing_from_the_object_store_skips_its_file_and_the_build_goes_on(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/kept.md": "# Kept\n\nThe kept words.\n", "corpus/lost.md": "# Lost\n\nGone words.\n"})
    lost = corpus_repo.git("rev-parse", "HEAD:corpus/lost.md").strip()
    (corpus_repo.root / ".git" / "objects" / lost[:2] / lost[2:]).unlink()  # as a partial clone lacks it
    summary = build(corpus_repo.root, site=False)
    assert summary.documents == 1
    (skipped,) = summary.skipped
    assert skipped.path == "corpus/lost.md" and lost[:12] in skipped.reason
    assert skipped.hint is not None and "git fetch" in skipped.hint and "git fsck" in skipped.hint
    assert [h.path for h in search("kept words", corpus_repo.root)] == ["corpus/kept.md"]
    # Not remembered as a failure: once the object is back, the next build reads it.
    corpus_repo.git("hash-object", "-w", "corpus/lost.md")
    again = build(corpus_repo.root, site=False)
    assert again.documents == 2 and again.skipped == []
