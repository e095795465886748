"""The bundled sample corpus meets issue 2 item 2, and its recorded history is true.

These tests read this repository's own git objects (not the working tree), so they need the
full history: a shallow clone fails them with a hint to fetch it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from indexer import build, search
from indexer.extract.attributes import declared_for
from indexer.text.model import UTF8
from indexer.vcs.repo import GitRepo

REPO_ROOT = Path(__file__).resolve().parents[1]
HISTORY_FILE = Path(__file__).with_name("sample_corpus_history.json")
TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".adoc")
LATIN1_PATH = "corpus/lisbon/guia-do-escritorio.txt"
CORPUS_PATHS = ("corpus/", ".gitattributes")
FATES = ("untouched", "moved_lines", "edited", "moved_to_file", "renamed", "deleted")
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class CorpusCommit:
    sha: str
    message: str


@cache
def _repo() -> GitRepo:
    repo = GitRepo(REPO_ROOT)
    if repo.is_shallow():
        pytest.fail("this clone is shallow: the sample corpus history is missing (run `git fetch --unshallow`)")
    return repo


@cache
def _history() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(HISTORY_FILE.read_text(encoding="utf-8"))
    return data


@cache
def _corpus_commits() -> tuple[CorpusCommit, ...]:
    """The recorded corpus commits, found by subject among HEAD's ancestors, oldest first.

    Ancestors, not only the first-parent line: corpus commits made on a branch that was
    merged keep their own subjects and parents.
    """
    log = _repo().run_text("log", "--format=%H %s", "HEAD")
    by_subject: dict[str, list[str]] = {}
    for line in log.splitlines():
        sha, _, subject = line.partition(" ")
        by_subject.setdefault(subject, []).append(sha)
    found = []
    for record in _history()["commits"]:
        shas = by_subject.get(record["message"], [])
        assert len(shas) == 1, f"corpus commit {record['message']!r} found {len(shas)} times on HEAD's history"
        found.append(CorpusCommit(shas[0], record["message"]))
    return tuple(found)


def _commit_named(message: str) -> CorpusCommit:
    return next(c for c in _corpus_commits() if c.message == message)


def _blob(commit: str, path: str) -> bytes | None:
    entry = _repo().blob_at(commit, path)
    return None if entry is None else _repo().read_blob(entry.sha)


def _text(commit: str, path: str) -> str | None:
    """The document text by pincite's policy: UTF-8 unless `.gitattributes` declares another
    encoding at that commit, a leading BOM dropped, line ends kept."""
    data = _blob(commit, path)
    if data is None:
        return None
    encoding = _encoding(commit, path)
    return data.decode(encoding) if encoding != UTF8 else data.removeprefix(BOM).decode(UTF8)


@cache
def _encoding(commit: str, path: str) -> str:
    declared = declared_for(_repo(), commit, [path]).get(path)
    return UTF8 if declared is None else declared.encoding


def _text_documents(commit: str) -> dict[str, str]:
    entries = _repo().tree_entries(commit, ("corpus",))
    return {e.path: _text(commit, e.path) or "" for e in entries if e.path.lower().endswith(TEXT_SUFFIXES)}


def _locate(text: str, quote: str) -> tuple[list[int], list[int]]:
    """([start, end) in code points, [first, last] 1-based lines) of the one occurrence of `quote`."""
    assert text.count(quote) == 1, f"quote occurs {text.count(quote)} times, expected once: {quote!r}"
    start = text.index(quote)
    end = start + len(quote)
    return [start, end], [text.count("\n", 0, start) + 1, text.count("\n", 0, end - 1) + 1]


def _head_documents() -> dict[str, str]:
    return _text_documents(_repo().resolve_commit("HEAD"))


# -- item 2: the documents -----------------------------------------------------------------


def test_at_least_eight_documents_in_subfolders_in_every_text_format() -> None:
    docs = _head_documents()
    assert len(docs) >= 8
    assert {p.count("/") for p in docs} >= {2}, "documents live in subfolders of corpus/"
    for suffix in (".md", ".txt", ".rst", ".adoc"):
        assert any(p.endswith(suffix) for p in docs), suffix


def test_a_plain_text_document_is_latin1_declared_in_the_corpus_gitattributes() -> None:
    head = _repo().resolve_commit("HEAD")
    blob = _blob(head, LATIN1_PATH)
    assert blob is not None and "ã".encode("latin-1") in blob
    with pytest.raises(UnicodeDecodeError):
        blob.decode("utf-8")
    attrs = _repo().run_text("check-attr", "encoding", "--", LATIN1_PATH)
    assert attrs.strip().endswith("encoding: iso-8859-1")
    assert "encoding=iso-8859-1" in (_blob(head, "corpus/.gitattributes") or b"").decode()
    text = _text(head, LATIN1_PATH) or ""
    assert {"ç", "ã", "é", "ó", "º", "«"} <= set(text)


def test_several_thousand_words() -> None:
    words = sum(len(text.split()) for text in _head_documents().values())
    assert words >= 5000, f"the sample corpus has {words} words"


def test_markdown_has_real_structure() -> None:
    markdown = "\n".join(t for p, t in _head_documents().items() if p.endswith(".md"))
    assert re.search(r"^### ", markdown, re.M), "third-level headings"
    assert re.search(r"^\s*[-*] ", markdown, re.M), "bulleted lists"
    assert re.search(r"^\s*\d+\. ", markdown, re.M), "numbered lists"
    assert re.search(r"^\s*```\w+$", markdown, re.M), "fenced code blocks with a language"
    assert re.search(r"^\|---", markdown, re.M), "tables"
    assert re.search(r"\]\([^)]+\)", markdown), "inline links"
    assert re.search(r"^\[\w+\]: \S+", markdown, re.M), "reference-style link definitions"


def test_accented_latin_cjk_and_an_astral_emoji() -> None:
    text = "\n".join(_head_documents().values())
    for word in ("São Paulo", "Müller", "Café", "Wiśniewski"):
        assert word in text
    assert re.search(r"[\u4e00-\u9fff]", text), "CJK ideographs"
    assert re.search(r"[\u3040-\u30ff]", text), "Japanese kana"
    astral = [ch for ch in text if ord(ch) > 0xFFFF]
    assert astral and all(unicodedata.category(ch) == "So" for ch in astral), astral


def test_paths_with_a_space_and_non_ascii_names() -> None:
    docs = _head_documents()
    assert any(" " in p for p in docs)
    assert any(not p.isascii() for p in docs)
    assert "corpus/tokyo/東京オフィス.md" in docs
    assert "corpus/policies/política de viagens.md" in docs


def test_the_crlf_file_keeps_its_carriage_returns_in_git() -> None:
    path = "corpus/minutes/board-2026-02-12.txt"
    for commit in _corpus_commits():
        blob = _blob(commit.sha, path)
        assert blob is not None
        assert blob.count(b"\n") > 20 and blob.count(b"\r\n") == blob.count(b"\n"), commit.message
    attrs = _repo().run_text("check-attr", "text", "--", path)
    assert attrs.strip().endswith("text: unset"), "the CRLF file is marked -text in .gitattributes"


def test_a_markdown_file_starts_with_a_bom() -> None:
    head = _repo().resolve_commit("HEAD")
    with_bom = [e.path for e in _repo().tree_entries(head, ("corpus",)) if (_blob(head, e.path) or b"").startswith(BOM)]
    assert "corpus/reference/glossary.md" in with_bom


# -- item 2: the history -------------------------------------------------------------------


def test_at_least_five_corpus_commits_in_order_touching_only_the_corpus() -> None:
    commits = _corpus_commits()
    assert len(commits) >= 5
    messages = [c.message for c in commits]
    assert len(set(messages)) == len(messages)
    assert all(m.startswith("corpus:") for m in messages)
    for older, newer in pairwise(commits):
        assert _repo().run_text("merge-base", older.sha, newer.sha).strip() == older.sha, "ancestor first"
    for commit in commits:
        touched = _repo().run_text("diff-tree", "--no-commit-id", "--name-only", "-r", "-z", commit.sha)
        paths = [p for p in touched.split("\0") if p]
        assert paths and all(p.startswith(CORPUS_PATHS) for p in paths), (commit.message, paths)


def test_every_fate_has_at_least_two_reference_passages() -> None:
    counts = Counter(p["fate"] for p in _history()["passages"])
    assert set(counts) == set(FATES)
    assert min(counts.values()) >= 2, counts
    ids = [p["id"] for p in _history()["passages"]]
    assert len(set(ids)) == len(ids)


def test_the_glossary_rename_is_detected_by_git() -> None:
    commit = _commit_named(_history()["commits"][3]["message"]).sha
    parent = _repo().parent(commit)
    assert parent is not None
    change = _repo().path_change(parent, commit, "corpus/handbook/glossary.md")
    assert change.status == "renamed" and change.new_path == "corpus/reference/glossary.md"
    assert change.old_blob == change.new_blob


def _passage_ids() -> list[str]:
    return [p["id"] for p in _history()["passages"]]


@pytest.mark.parametrize("passage_id", _passage_ids())
def test_recorded_passage_fate_is_true(passage_id: str) -> None:
    p = next(p for p in _history()["passages"] if p["id"] == passage_id)
    first, last = _recorded_sha(p), _corpus_commits()[-1].sha
    text_first = _text(first, p["path"])
    assert text_first is not None
    assert list(_locate(text_first, p["quote"])) == [p["span_at_first"], p["lines_at_first"]]
    _check_fate_at_last(p, last)
    if p["changed_by"] is not None:
        _check_changed_by(p)


def _check_fate_at_last(p: dict[str, Any], last: str) -> None:
    fate, path, quote = p["fate"], p["path"], p["quote"]
    if fate == "deleted":
        assert all(quote not in t for t in _text_documents(last).values())
        return
    target = p["path_at_last"]
    text_last = _text(last, target)
    assert text_last is not None, f"{target} missing at the last corpus commit"
    wanted = p["quote_at_last"] if fate == "edited" else quote
    span, lines = _locate(text_last, wanted)
    assert [span, lines] == [p["span_at_last"], p["lines_at_last"]]
    if fate == "untouched":
        assert target == path and lines == p["lines_at_first"]
    elif fate == "moved_lines":
        assert target == path and lines != p["lines_at_first"]
    elif fate == "edited":
        assert target == path and quote not in text_last and wanted not in (_text(_recorded_sha(p), path) or "")
    elif fate == "moved_to_file":
        assert target != path and quote not in (_text(last, path) or "")
        assert quote not in (_text(_recorded_sha(p), target) or ""), "the text was not in the destination before"
    elif fate == "renamed":
        assert _blob(last, path) is None and _blob(_recorded_sha(p), target) is None
        assert lines == p["lines_at_first"]
    else:
        pytest.fail(f"unknown fate {fate!r}")


def _recorded_sha(p: dict[str, Any]) -> str:
    """The commit a passage's quote and first span are recorded at: its `recorded_at`, else the first."""
    if "recorded_at" in p:
        return _commit_named(p["recorded_at"]).sha
    return _corpus_commits()[0].sha


def _check_changed_by(p: dict[str, Any]) -> None:
    """Before the named commit the quote still stands where it was; from it on, the fate holds."""
    commit = _commit_named(p["changed_by"]).sha
    parent = _repo().parent(commit)
    assert parent is not None
    before, after = _text(parent, p["path"]), _text(commit, p["path"])
    assert before is not None and p["quote"] in before
    fate = p["fate"]
    if fate == "moved_lines":
        assert after is not None and _locate(before, p["quote"])[1] != _locate(after, p["quote"])[1]
    elif fate == "renamed":
        assert after is None and _text(commit, p["path_at_last"]) is not None
    else:
        assert after is None or p["quote"] not in after
        if fate in ("edited", "moved_to_file"):
            target = _text(commit, p["path_at_last"]) or ""
            assert (p["quote_at_last"] if fate == "edited" else p["quote"]) in target


# -- item 2 through the real build ---------------------------------------------------------


def test_build_at_head_indexes_every_text_document(tmp_path: Path) -> None:
    summary = build(REPO_ROOT, "HEAD", index_path=tmp_path / "i.sqlite", site=False)
    skipped_text = [s for s in summary.skipped if s.path.lower().endswith(TEXT_SUFFIXES)]
    assert skipped_text == []
    assert summary.documents >= len(_head_documents())
    assert summary.passages > summary.documents
    hits = search("estação de metro Baixa-Chiado", REPO_ROOT, index_path=tmp_path / "i.sqlite")
    found = {hit.path for hit in hits}
    assert LATIN1_PATH in found, "the Latin-1 document is indexed under its decoded words"
