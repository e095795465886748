"""Pages rendered in worker processes make the site one process makes, byte for byte."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from indexer.api import build
from indexer.config import Config
from indexer.errors import PinciteError
from indexer.site.pool import forkable
from tests.conftest import CorpusRepo
from tests.test_site_incremental import _assert_same_site

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>\n'


def _corpus(repo: CorpusRepo) -> None:
    files: dict[str, str | bytes | None] = {"corpus/figure.svg": SVG}
    for n in range(24):
        files[f"corpus/part-{n % 3}/doc-{n:02d}.md"] = (
            f"# Document {n}\n\nSee [the next](doc-{n + 1:02d}.md), [a gap](missing-{n}.md) and "
            f"![a figure](../figure.svg).\n\n```python\nprint({n})\n```\n"
        )
    files["corpus/notes.txt"] = "Plain notes.\n"
    files["corpus/guide.rst"] = "Guide\n=====\n\nA *reST* page.\n"
    repo.commit(files)
    repo.commit({"corpus/part-0/doc-00.md": "# Document 0\n\nRewritten, [a link](doc-03.md).\n"})


def test_pages_from_worker_processes_are_those_of_one_process(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _corpus(corpus_repo)
    one = build(corpus_repo.root, out=tmp_path / "one", config=Config())
    pools: list[Any] = []

    class CountedPool(ProcessPoolExecutor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pools.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr("indexer.site.pool.ProcessPoolExecutor", CountedPool)
    monkeypatch.setattr("indexer.site.pool.usable_cores", lambda: 2)
    monkeypatch.setattr("indexer.site.pool.forkable", lambda: True)  # whatever threads other tests left
    monkeypatch.setattr("indexer.site.pool.POOL_MIN_PAGES", 1)
    monkeypatch.setattr("indexer.site.pool.PAGES_PER_TASK", 3)
    many = build(corpus_repo.root, out=tmp_path / "many", config=Config())
    assert len(pools) == 2  # the version pages, then the document pages
    _assert_same_site(tmp_path / "many", tmp_path / "one")
    assert one.site is not None and many.site is not None
    assert many.site["broken_links"] == one.site["broken_links"] != []
    assert many.site["pages_rendered"] == one.site["pages_rendered"]
    assert "data:image/svg+xml;base64," in (tmp_path / "many/doc/corpus/part-1/doc-01.md.html").read_text("utf-8")


def test_no_worker_is_forked_while_another_thread_runs() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not forkable()
    finally:
        stop.set()
        other.join()


def _dies(jobs: list[Any]) -> None:
    os._exit(9)  # as the kernel's out-of-memory killer would end a worker


def test_a_worker_that_dies_ends_the_build_with_a_message_and_the_previous_site(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _corpus(corpus_repo)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    before = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    corpus_repo.commit({f"corpus/part-{n % 3}/doc-{n:02d}.md": f"# Document {n}\n\nEdited.\n" for n in range(4)})
    monkeypatch.setattr("indexer.site.pool._render_batch", _dies)
    monkeypatch.setattr("indexer.site.pool.usable_cores", lambda: 2)
    monkeypatch.setattr("indexer.site.pool.forkable", lambda: True)
    monkeypatch.setattr("indexer.site.pool.POOL_MIN_PAGES", 1)
    monkeypatch.setattr("indexer.site.pool.PAGES_PER_TASK", 1)
    with pytest.raises(PinciteError) as raised:
        build(corpus_repo.root, out=site, config=Config())
    assert "rendering the site's pages stopped" in raised.value.message and "unchanged" in raised.value.message
    assert {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
