"""The library calls behind `pincite pin` and `pincite serve`, without the CLI."""

from __future__ import annotations

from pathlib import Path

from indexer import api
from indexer.text.citation import Citation
from tests.conftest import CorpusRepo


def test_pin_keeps_a_cited_commit_and_says_which_refs_it_made(corpus_repo: CorpusRepo) -> None:
    first = corpus_repo.commit({"corpus/a.md": "# A\n\none\n"})
    corpus_repo.commit({"corpus/a.md": "# A\n\ntwo\n"})
    citation = Citation(first, "corpus/a.md", lines=(3, 3)).text_form()
    made = api.pin([citation], corpus_repo.root)
    assert made.commits == (first,) and made.created == (f"refs/pincite/pins/{first}",)
    assert corpus_repo.git("rev-parse", f"refs/pincite/pins/{first}").strip() == first
    assert api.pin([citation], corpus_repo.root).created == ()
    assert api.pin(repo=corpus_repo.root, commits=[first, first]).to_json() == {"commits": [first], "created": []}


def test_serve_previews_the_configured_site_folder_on_loopback(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nsome words\n"})
    api.build(corpus_repo.root, index_path=tmp_path / "index.sqlite")
    preview = api.serve(corpus_repo.root, port=0)
    try:
        assert preview.folder == corpus_repo.root / "_site"
        assert preview.url.startswith("http://127.0.0.1:") and preview.url.endswith("/")
    finally:
        preview.server.server_close()
