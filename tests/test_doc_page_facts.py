"""What a document page states about its version is true, also where the indexed history starts late."""

from __future__ import annotations

from pathlib import Path

from indexer.api import build
from indexer.config import Config
from tests.conftest import CorpusRepo


def test_a_version_older_than_the_indexed_history_is_not_said_to_start_there(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({"corpus/old.md": "# Old\n\nWritten long ago.\n"}, "Write the old document")
    start = corpus_repo.commit({"corpus/other.md": "# Other\n"}, "Start of the indexed history")
    changed = corpus_repo.commit({"corpus/new.md": "# New\n"}, "Add a new document")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config(history_start=start))
    old = (site / "doc/corpus/old.md.html").read_text(encoding="utf-8")
    assert "unchanged since before the indexed history's start" in old
    assert "this version since" not in old and start[:12] in old
    new = (site / "doc/corpus/new.md.html").read_text(encoding="utf-8")
    assert "this version since" in new and changed[:12] in new and "unchanged since before" not in new
