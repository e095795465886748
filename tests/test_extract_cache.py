"""The extraction cache: keyed by (blob, identity), self-checking, never trusted when damaged."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import CorpusRepo
from extract_samples import ARTICLE, html_page, pdf_of_pages

from indexer.extract import registry as extract_mod
from indexer.extract.cache import CACHE_DIR, blob_sha
from indexer.extract.pdf import PdfExtractor
from indexer.index.documents import text_at, version_text
from indexer.vcs.repo import GitRepo

PDF = pdf_of_pages([["Rosters are kept for twelve months."], ["Minutes are kept permanently."]])


def cache_entries(root: Path) -> list[Path]:
    return sorted((root / CACHE_DIR).rglob("*.json"))


def test_blob_sha_matches_git(corpus_repo: CorpusRepo) -> None:
    corpus_repo.write("a.pdf", PDF)
    out = corpus_repo.git("hash-object", "a.pdf").strip()
    assert blob_sha(PDF) == out


def test_second_read_comes_from_the_cache(corpus_repo: CorpusRepo) -> None:
    commit = corpus_repo.commit({"corpus/r.pdf": PDF})
    repo = GitRepo(corpus_repo.root)
    first = text_at(repo, commit, "corpus/r.pdf")
    [entry] = cache_entries(corpus_repo.root)
    assert entry.stem == first.blob
    # Rewrite the entry with a different, consistently hashed text: a cache hit returns it.
    record = json.loads(entry.read_text())
    record["text"] = "cached text\n"
    import hashlib

    record["sha256"] = hashlib.sha256(b"cached text\n").hexdigest()
    entry.write_text(json.dumps(record))
    assert version_text(repo, first.blob, "corpus/r.pdf").text == "cached text\n"


def test_damaged_entry_is_ignored_and_replaced(corpus_repo: CorpusRepo) -> None:
    commit = corpus_repo.commit({"corpus/r.pdf": PDF})
    repo = GitRepo(corpus_repo.root)
    good = text_at(repo, commit, "corpus/r.pdf").text
    [entry] = cache_entries(corpus_repo.root)
    record = json.loads(entry.read_text())
    record["text"] = good.replace("twelve", "twenty")  # hash no longer matches
    entry.write_text(json.dumps(record))
    assert text_at(repo, commit, "corpus/r.pdf").text == good
    entry.write_text("{not json")
    assert text_at(repo, commit, "corpus/r.pdf").text == good
    assert json.loads(entry.read_text())["text"] == good


def test_another_identity_is_another_entry(corpus_repo: CorpusRepo) -> None:
    commit = corpus_repo.commit({"corpus/r.pdf": PDF})
    repo = GitRepo(corpus_repo.root)
    plain = text_at(repo, commit, "corpus/r.pdf")
    layout_extractor = PdfExtractor("layout")
    extract_mod.register(layout_extractor)
    try:
        layout = text_at(repo, commit, "corpus/r.pdf")
    finally:
        extract_mod.unregister(layout_extractor)
    assert "mode=layout" in layout.extracted.identity.split()
    assert "mode=plain" in plain.extracted.identity.split()
    assert len(cache_entries(corpus_repo.root)) == 2


def test_text_class_is_not_cached_and_html_is(corpus_repo: CorpusRepo) -> None:
    commit = corpus_repo.commit({"corpus/a.md": "# Title\n", "corpus/p.html": html_page(ARTICLE)})
    repo = GitRepo(corpus_repo.root)
    text_at(repo, commit, "corpus/a.md")
    assert cache_entries(corpus_repo.root) == []
    text_at(repo, commit, "corpus/p.html")
    assert len(cache_entries(corpus_repo.root)) == 1


def test_cache_ignores_itself_in_git(corpus_repo: CorpusRepo) -> None:
    commit = corpus_repo.commit({"corpus/r.pdf": PDF})
    text_at(GitRepo(corpus_repo.root), commit, "corpus/r.pdf")
    assert corpus_repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_unwritable_cache_still_extracts(corpus_repo: CorpusRepo) -> None:
    commit = corpus_repo.commit({"corpus/r.pdf": PDF})
    blocker = corpus_repo.root / ".pincite"
    blocker.write_text("a file where the cache folder would be")
    version = text_at(GitRepo(corpus_repo.root), commit, "corpus/r.pdf")
    assert "twelve months" in version.text
    subprocess.run(["rm", str(blocker)], check=True)
