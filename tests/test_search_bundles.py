"""The site's search as several Pagefind bundles: only changed buckets are indexed again.

Bucketing is checked as properties; the builds use real git repositories and real Pagefind
runs; the searches run in Debian chromium against the built site.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.search_bundles import bucket_of, bundle_count, plan_bundles
from indexer.site.serve import serve_in_thread
from tests.conftest import CorpusRepo

BUCKETS = 4
CONFIG = Config(site_search_pages_per_bundle=1, site_search_max_bundles=BUCKETS)
WORDS = ["amberly", "bricolage", "cassowary", "dulcimer", "ephemera", "farrago", "gossamer", "halcyon"]
WORDS += ["inkling", "jubilee", "kerfuffle", "lagniappe", "marmalade", "nonpareil", "obelisk", "palimpsest"]


def _documents() -> dict[str, str]:
    """Sixteen documents in two folders, each with a word of its own and a word they all share."""
    docs = {}
    for n, word in enumerate(WORDS):
        folder = "corpus/east" if n % 2 else "corpus/west"
        docs[f"{folder}/note-{n:02d}.md"] = f"# Note {n}\n\nEvery note mentions the zeppelin. This one: {word}.\n"
    return docs


def _bundles(site: Path) -> list[str]:
    return list(json.loads((site / "search-bundles.json").read_text(encoding="utf-8"))["bundles"])


def _inodes(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


# -- bucketing -------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(min_size=1, max_size=30), st.text(max_size=10), max_size=40),
    st.sampled_from([1, 2, 4, 8, 16]),
)
def test_every_page_lands_in_exactly_one_bundle_of_its_own_bucket(pages: dict[str, str], buckets: int) -> None:
    bundles = plan_bundles(pages, buckets, "salt")
    placed = [(path, key) for bundle in bundles for path, key in bundle.pages]
    assert sorted(placed) == sorted(pages.items())
    assert all(bucket_of(path, buckets) == bundle.bucket for bundle in bundles for path, _ in bundle.pages)
    assert all(bundle.pages for bundle in bundles)  # an empty bucket has no bundle
    assert len({bundle.folder for bundle in bundles}) == len(bundles)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(min_size=1, max_size=20), st.text(max_size=8), min_size=1, max_size=30),
    st.text(min_size=1, max_size=20),
    st.text(max_size=8),
)
def test_a_changed_page_renames_its_own_bundle_only(pages: dict[str, str], path: str, key: str) -> None:
    before = {b.bucket: b.folder for b in plan_bundles(pages, 4, "salt")}
    after = {b.bucket: b.folder for b in plan_bundles({**pages, path: key}, 4, "salt")}
    changed = {bucket for bucket in before.keys() | after.keys() if before.get(bucket) != after.get(bucket)}
    assert changed <= {bucket_of(path, 4)}
    assert (changed == set()) == (pages.get(path) == key)


@given(st.integers(min_value=0, max_value=100_000), st.integers(1, 5000), st.integers(1, 64), st.integers(0, 64))
def test_the_bundle_count_is_a_power_of_two_within_the_limit(pages: int, per: int, most: int, previous: int) -> None:
    count = bundle_count(pages, per, most, previous)
    assert count & (count - 1) == 0 and 1 <= count <= most
    fresh = bundle_count(pages, per, most)
    assert fresh == count or (fresh // 2 <= previous <= fresh * 2 and previous == count)
    if fresh * 2 <= most:
        assert fresh * per >= pages  # below the limit, no bundle holds more than `per` pages...
    if fresh > 1:
        assert (fresh // 2) * per < pages  # ...and there are no more bundles than that needs


def test_the_salt_renames_every_bundle() -> None:
    pages = {f"corpus/{n}.md": "k" for n in range(10)}
    first = {b.folder for b in plan_bundles(pages, 4, "pagefind 1.5.2")}
    second = {b.folder for b in plan_bundles(pages, 4, "pagefind 1.5.3")}
    assert first.isdisjoint(second)


# -- builds ------------------------------------------------------------------------------------


def test_a_changed_document_reindexes_its_bundle_only(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    cold = build(corpus_repo.root, out=site, config=CONFIG).site or {}
    before = _bundles(site)
    assert len(before) == BUCKETS and cold["search_bundles_indexed"] == BUCKETS
    inodes = {name: _inodes(site / "pagefind" / name) for name in before}

    path = "corpus/east/note-03.md"
    corpus_repo.commit({path: docs[path].replace("dulcimer", "harmonium")}, "edit one note")
    warm = build(corpus_repo.root, out=site, config=CONFIG).site or {}
    after = _bundles(site)
    assert (warm["search_bundles_indexed"], warm["search_bundles_reused"]) == (1, BUCKETS - 1)
    renamed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert len(renamed) == 1 and renamed[0][0].startswith(f"{bucket_of(path, BUCKETS):02d}-")
    for name in set(before) & set(after):
        assert _inodes(site / "pagefind" / name) == inodes[name], name  # the very same files
    assert sorted(os.listdir(site / "pagefind")) == sorted(after)  # the replaced bundle is gone


def test_a_bucket_that_loses_its_pages_loses_its_bundle(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    emptied = bucket_of("corpus/west/note-00.md", BUCKETS)
    corpus_repo.commit({p: None for p in docs if bucket_of(p, BUCKETS) == emptied}, "remove a bucket's notes")
    summary = build(corpus_repo.root, out=site, config=CONFIG).site or {}
    left = _bundles(site)
    assert len(left) == BUCKETS - 1 and not any(name.startswith(f"{emptied:02d}-") for name in left)
    assert summary["search_bundles_indexed"] == 0
    assert sorted(os.listdir(site / "pagefind")) == sorted(left)


def test_a_site_of_the_single_index_layout_is_replaced_by_bundles(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(_documents(), "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    # What an earlier pincite left: one index straight under pagefind/.
    (site / "pagefind" / "pagefind.js").write_text("// the old single index\n", encoding="utf-8")
    (site / "pagefind" / "fragment").mkdir()
    corpus_repo.commit({"corpus/west/note-00.md": "# Note 0\n\nRewritten.\n"}, "edit")
    build(corpus_repo.root, out=site, config=CONFIG)
    assert sorted(os.listdir(site / "pagefind")) == sorted(_bundles(site))


# -- in the browser --------------------------------------------------------------------------


SEARCH = """async ([query, filters]) => {
    const index = await PinciteSearchIndex.load(new URL("./", location.href));
    const found = await index.search(query, { filters });
    const data = await Promise.all(found.results.map((r) => r.data()));
    return data.map((d) => [d.meta.path, d.url]);
}"""


def _search(browser: Any, site: Path, queries: list[tuple[str, dict[str, str]]]) -> list[list[list[str]]]:
    server, base = serve_in_thread(site)
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(base + "search.html")
        page.wait_for_function("() => typeof PinciteSearchIndex !== 'undefined'")
        answers = [page.evaluate(SEARCH, [query, filters]) for query, filters in queries]
        assert errors == []
        return answers
    finally:
        context.close()
        server.shutdown()
        server.server_close()


QUERIES: list[tuple[str, dict[str, str]]] = [
    ("zeppelin", {}),
    ("zeppelin", {"folder": "corpus/east"}),
    ("dulcimer", {}),
    ("harmonium", {}),
    ("palimpsest", {}),
    ("gossamer", {"folder": "corpus/east"}),
]


def test_search_merges_every_bundle_and_follows_an_edit(corpus_repo: CorpusRepo, tmp_path: Path, browser: Any) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    shared, east, *_ = _search(browser, site, QUERIES)
    assert sorted(path for path, _url in shared) == sorted(docs)  # a result from every bundle
    assert {bucket_of(path, BUCKETS) for path, _url in shared} == set(range(BUCKETS))
    assert sorted(path for path, _url in east) == sorted(p for p in docs if p.startswith("corpus/east/"))
    own_words = _search(browser, site, [(word, {}) for word in WORDS])
    assert [[path for path, _url in found] for found in own_words] == [[p] for p in docs]  # each note alone
    assert all(url.startswith("/doc/corpus/") and url.endswith(".md.html") for _path, url in shared)

    path = "corpus/east/note-03.md"
    corpus_repo.commit({path: docs[path].replace("dulcimer", "harmonium")}, "edit one note")
    build(corpus_repo.root, out=site, config=CONFIG)
    incremental = _search(browser, site, QUERIES)
    assert incremental[2] == [] and [p for p, _url in incremental[3]] == [path]
    assert incremental[5] == []  # gossamer stands in a west note only

    cold_site = tmp_path / "cold"
    build(corpus_repo.root, out=cold_site, config=CONFIG)
    assert _bundles(cold_site) == _bundles(site)
    assert _search(browser, cold_site, QUERIES) == incremental


def test_the_search_page_shows_results_from_several_bundles_and_filters_them(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    corpus_repo.commit(_documents(), "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    server, base = serve_in_thread(site)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(base + "search.html?q=zeppelin&folder=corpus/west")
        page.wait_for_function("() => document.getElementById('search-status').textContent.includes('match')")
        assert page.inner_text("#search-status").startswith("8 document(s) match")
        shown = page.locator(".result-path").all_inner_texts()
        assert len(shown) == 8 and all(p.startswith("corpus/west/") for p in shown)
        assert {bucket_of(p, BUCKETS) for p in shown} == set(range(BUCKETS))
        marks = page.locator(".result .excerpt mark").all_inner_texts()
        assert len(marks) == 8 and all(m.lower().startswith("zeppelin") for m in marks), marks  # every excerpt
    finally:
        context.close()
        server.shutdown()
        server.server_close()
