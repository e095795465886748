"""The site's search as a base Pagefind bundle and a delta: only the delta is indexed again.

The plan is checked as properties; the builds use real git repositories and real Pagefind
runs; the searches run in Debian chromium against the built site.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.manifest import LEGACY_MANIFEST, MANIFEST, TOP
from indexer.site.search_bundles import (
    CHUNK_SIZE_VARIABLE,
    DELTA_SAMPLE_PAGES,
    PAGEFIND_CHUNK_POSITIONS,
    PAGEFIND_UNUSED,
    UNINDEXED_END,
    UNINDEXED_START,
    IndexedBundle,
    SearchPlan,
    base_parts,
    dropped_ids,
    fragment_records,
    fresh_plan,
    id_language,
    ids_clash,
    make_bundle,
    pagefind_marks,
    plan_search,
    read_indexed,
    record_metadata,
    run_pagefind,
    search_record,
    searched_part,
    shuffled,
    write_bundle_list,
)
from indexer.site.serve import serve_in_thread
from indexer.text.language import folder_language
from tests.conftest import CorpusRepo

CONFIG = Config(site_search_delta_share=0.5)  # sixteen notes: up to eight may change before a new base
WORDS = ["amberly", "bricolage", "cassowary", "dulcimer", "ephemera", "farrago", "gossamer", "halcyon"]
WORDS += ["inkling", "jubilee", "kerfuffle", "lagniappe", "marmalade", "nonpareil", "obelisk", "palimpsest"]
EDITED = "corpus/east/note-03.md"  # its own word: dulcimer
REMOVED = "corpus/west/note-06.md"  # its own word: gossamer


def _documents() -> dict[str, str]:
    """Sixteen documents in two folders, each with a word of its own and a word they all share."""
    docs = {}
    for n, word in enumerate(WORDS):
        folder = "corpus/east" if n % 2 else "corpus/west"
        docs[f"{folder}/note-{n:02d}.md"] = f"# Note {n}\n\nEvery note mentions the zeppelin. This one: {word}.\n"
    return docs


def _listing(site: Path) -> dict[str, Any]:
    listing = json.loads((site / "search-bundles.json").read_text(encoding="utf-8"))
    assert isinstance(listing, dict)
    return listing


@dataclass(frozen=True)
class _Written:
    """A bundle as the site holds it: its folder, its pages' paths and their Pagefind ids."""

    folder: str
    paths: list[str]
    ids: dict[str, str]
    sample_ids: dict[str, str]


def _bundles(site: Path, kind: str) -> list[_Written]:
    written = []
    for name in [b for b in _listing(site)["bundles"] if b.startswith(kind + "-")]:
        record = json.loads((site / "pagefind" / name / "pincite-pages.json").read_text(encoding="utf-8"))
        rows, sample = record["pages"], record.get("sample", [])
        ids, sample_ids = ({path: i for path, _key, i in r if i} for r in (rows, sample))
        written.append(_Written(name, [path for path, _key, _id in rows], ids, sample_ids))
    return written


def _bundle(site: Path, kind: str) -> _Written:
    (written,) = _bundles(site, kind)
    return written


def _inodes(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


def _site_stats(corpus_repo: CorpusRepo, site: Path, config: Config = CONFIG) -> dict[str, Any]:
    return dict(build(corpus_repo.root, out=site, config=config).site or {})


# -- the plan ----------------------------------------------------------------------------------

PAGES = st.dictionaries(st.sampled_from([f"corpus/{n}.md" for n in range(12)]), st.sampled_from("abc"), max_size=12)


def _indexed(pages: dict[str, str], salt: str = "salt", parts: int = 1) -> list[IndexedBundle]:
    """A base of `parts` parts over `pages` (one part when the pages are fewer), each page with an id."""
    ordered = sorted(pages)
    cut = [ordered[n::parts] for n in range(parts)] if pages else [[]]
    bundles = [make_bundle("base", {path: pages[path] for path in run}, salt) for run in cut if run or not pages]
    return [
        IndexedBundle(bundle, {path: f"en_{ordered.index(path)}" for path, _ in bundle.pages}) for bundle in bundles
    ]


def _plan(pages: dict[str, str], base: list[IndexedBundle], share: float) -> SearchPlan:
    """The plan a build takes: the previous base kept when it can be, else a new one."""
    return plan_search(pages, "salt", base, share) or fresh_plan(pages, "salt", len, 0)


@settings(max_examples=300, deadline=None)
@given(PAGES, PAGES, st.floats(min_value=0.01, max_value=2.0), st.integers(1, 3))
def test_every_current_page_is_searched_once_and_no_stale_page_is(
    made: dict[str, str], pages: dict[str, str], share: float, parts: int
) -> None:
    previous = _indexed(made, parts=parts)
    plan = _plan(pages, previous, share)
    base = {path: key for part in plan.base for path, key in part.pages}
    assert sum(len(part.pages) for part in plan.base) == len(base)  # no page in two parts
    delta = dict(plan.delta.pages) if plan.delta else {}
    live_base = {path: key for path, key in base.items() if path not in plan.superseded}
    assert live_base.keys().isdisjoint(delta)
    sample = dict(plan.delta.sample) if plan.delta else {}  # unchanged pages, shown from the base only
    assert sample.items() <= live_base.items()
    assert len(sample) == (min(DELTA_SAMPLE_PAGES, len(live_base)) if plan.delta else 0)
    assert {**live_base, **delta} == pages  # each current page once, by its current key
    assert all(base[path] != pages.get(path) for path in plan.superseded)  # changed or removed
    assert set(base.items()) - set(pages.items()) == {(path, base[path]) for path in plan.superseded}
    changed = len(set(delta) | set(plan.superseded))
    assert changed <= share * len(pages)
    kept = plan.base == tuple(part.bundle for part in previous)
    if pages and not kept:  # a new base holds every page, and nothing is superseded
        assert base == pages and plan.delta is None and plan.superseded == ()


@settings(max_examples=200, deadline=None)
@given(PAGES, PAGES)
def test_the_base_is_kept_exactly_while_the_changes_stay_within_the_share(
    made: dict[str, str], pages: dict[str, str]
) -> None:
    plan = _plan(pages, _indexed(made), 0.25)
    changed = {path for path in made.keys() | pages.keys() if made.get(path) != pages.get(path)}
    kept = plan.base == (make_bundle("base", made, "salt"),)
    assert kept == (bool(pages) and len(changed) <= 0.25 * len(pages))
    if kept:
        assert dict(plan.delta.pages if plan.delta else ()) == {path: pages[path] for path in changed if path in pages}


def test_another_salt_makes_a_new_base() -> None:
    pages = {f"corpus/{n}.md": "k" for n in range(10)}
    previous = _indexed(pages, "pagefind 1.5.2", parts=2)
    assert plan_search({**pages, "corpus/0.md": "new"}, "pagefind 1.5.3", previous, 1.0) is None
    assert plan_search({**pages, "corpus/0.md": "new"}, "pagefind 1.5.2", previous, 1.0) is not None
    assert make_bundle("base", pages, "a").folder != make_bundle("base", pages, "b").folder
    assert make_bundle("base", pages, "a").folder != make_bundle("base", pages, "a", chunk_size=5).folder


def test_a_searched_page_with_a_superseded_pages_id_is_a_clash() -> None:
    made = {"corpus/a.md": "1", "corpus/b.md": "1", "corpus/c.md": "1"}
    base = _indexed(made, parts=2)  # ids en_0 (a) and en_2 (c) in one part, en_1 (b) in the other
    plan = plan_search({"corpus/a.md": "2", "corpus/b.md": "1", "corpus/c.md": "1"}, "salt", base, 1.0)
    assert plan is not None and plan.delta is not None and dropped_ids(plan, base, None) == ["en_0"]
    assert ids_clash(plan, base, IndexedBundle(plan.delta, {"corpus/a.md": "en_0"}))  # the delta's page
    assert not ids_clash(plan, base, IndexedBundle(plan.delta, {"corpus/a.md": "en_9"}))
    # Pagefind keeps ids apart within a bundle only: a page of another part can have the same one.
    other = IndexedBundle(base[1].bundle, {"corpus/b.md": "en_0"})
    assert ids_clash(plan, [base[0], other], IndexedBundle(plan.delta, {"corpus/a.md": "en_9"}))


def test_the_delta_sample_is_drawn_from_the_languages_of_its_pages() -> None:
    """Pagefind indexes each language apart: a German edit needs a German sample, and no other."""
    pages = {f"pages.{lang}/common/{n}.md": "k" for lang in ("de", "fr", "ja") for n in range(300)}
    pages.update({f"pages/common/{n}.md": "k" for n in range(300)})
    base = _indexed(pages, parts=3)

    def language(path: str) -> str:
        return folder_language(path) or "en"

    plan = plan_search({**pages, "pages.de/common/7.md": "edited"}, "salt", base, 1.0, language)
    assert plan is not None and plan.delta is not None
    assert len(plan.delta.sample) == DELTA_SAMPLE_PAGES
    assert {language(path) for path, _key in plan.delta.sample} == {"de"}
    # Two languages edited: the sample is drawn from both, and still holds no third.
    both = plan_search({**pages, "pages.de/common/7.md": "e", "pages/common/3.md": "e"}, "salt", base, 1.0, language)
    assert both is not None and both.delta is not None
    assert {language(path) for path, _key in both.delta.sample} == {"de", "en"}
    # A language with fewer unchanged pages than the sample's size gives what it has.
    few = {**pages, "pages.ko/common/1.md": "k", "pages.ko/common/2.md": "k"}
    plan = plan_search({**few, "pages.ko/common/1.md": "e"}, "salt", _indexed(few, parts=3), 1.0, language)
    assert plan is not None and plan.delta is not None and dict(plan.delta.sample) == {"pages.ko/common/2.md": "k"}


def test_the_listed_languages_count_the_pages_searched_not_those_dropped(tmp_path: Path) -> None:
    """Pagefind's page counts hold the superseded and sample pages too; the listing's do not."""
    counts = {"base": {"pt": 5, "pt-br": 4, "de": 3, "fr": 1}, "delta": {"pt-br": 3, "de": 1}}
    plan = SearchPlan((make_bundle("base", {"a": "k"}, "salt"),), make_bundle("delta", {"b": "k"}, "salt"), ("a",))
    folders = []
    for bundle in plan.bundles:
        folder = tmp_path / "pagefind" / bundle.folder
        folder.mkdir(parents=True)
        languages = {tag: {"page_count": pages} for tag, pages in counts[bundle.kind].items()}
        (folder / "pagefind-entry.json").write_text(json.dumps({"languages": languages}), encoding="utf-8")
        folders.append(folder)
    # Superseded: a page in `pt-br`, one in `de`, the one in `fr`; the delta's sample: two in `pt-br`.
    dropped = ["de_1a2b3c4", "fr_6f5e4d3", "pt-br_5d6e7f8", "pt-br_9a8b7c6", "pt-br_5a4b3c2"]
    write_bundle_list(tmp_path, plan, dropped, folders)
    assert list(_listing(tmp_path)["languages"].items()) == [("pt", 5), ("pt-br", 4), ("de", 3)]
    assert [id_language(f"{tag}_0a1b2c3", counts["base"]) for tag in ("pt", "pt-br", "ja")] == ["pt", "pt-br", None]


def test_a_site_without_documents_has_no_bundle() -> None:
    assert plan_search({}, "salt", [], 0.5) is None
    assert fresh_plan({}, "salt", len, 0).bundles == []


SIZED = st.dictionaries(st.sampled_from([f"corpus/{n:02}.md" for n in range(40)]), st.integers(0, 50), max_size=40)


@settings(max_examples=300, deadline=None)
@given(SIZED, st.integers(0, 200))
def test_the_base_parts_are_runs_of_the_shuffled_pages_each_page_once_within_the_size(
    sizes: dict[str, int], part_bytes: int
) -> None:
    pages = {path: "k" for path in sizes}
    parts = base_parts(pages, "salt", lambda path: sizes[path], part_bytes)
    assert [page for part in parts for page in shuffled(part.pages)] == shuffled(pages.items())
    weight = {path: max(1, size) for path, size in sizes.items()}
    total = sum(weight.values())
    assert all(part.pages for part in parts)
    if part_bytes <= 0 or total <= part_bytes:
        assert len(parts) == min(1, len(sizes)) and all(part.chunk_size == 0 for part in parts)
        return
    assert len(parts) <= -(-total // part_bytes)
    largest = max(weight.values())
    assert all(sum(weight[path] for path, _ in part.pages) <= part_bytes + largest for part in parts)
    if len(parts) > 1:  # a query word's chunks from all the parts come to about one default chunk
        assert {part.chunk_size for part in parts} == {PAGEFIND_CHUNK_POSITIONS // len(parts)}


# -- builds ------------------------------------------------------------------------------------


def test_a_changed_document_reindexes_the_delta_only(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    cold = _site_stats(corpus_repo, site)
    (base_name,) = _listing(site)["bundles"]
    assert base_name.startswith("base-") and _listing(site)["superseded"] == []
    assert (cold["search_bundles_indexed"], cold["search_pages_indexed"]) == (1, 16)
    base = _bundle(site, "base")
    assert sorted(base.ids) == sorted(docs) and len(set(base.ids.values())) == 16
    inodes = _inodes(site / "pagefind" / base_name)

    corpus_repo.commit({EDITED: docs[EDITED].replace("dulcimer", "harmonium")}, "edit one note")
    warm = _site_stats(corpus_repo, site)
    listing = _listing(site)
    assert listing["bundles"][0] == base_name and listing["bundles"][1].startswith("delta-")
    assert (warm["search_bundles_indexed"], warm["search_bundles_reused"], warm["search_pages_indexed"]) == (1, 1, 1)
    assert _inodes(site / "pagefind" / base_name) == inodes  # the very same files
    delta = _bundle(site, "delta")
    assert delta.paths == [EDITED]
    # The delta's sample: every unchanged page (there are fewer than DELTA_SAMPLE_PAGES), each with
    # an id of its own, dropped in the browser like the superseded page.
    assert sorted(delta.sample_ids) == sorted(p for p in docs if p != EDITED)
    assert set(delta.sample_ids.values()).isdisjoint(base.ids.values())
    assert sorted(listing["superseded"]) == sorted([base.ids[EDITED], *delta.sample_ids.values()])

    # Changed twice since the base: the delta holds its newest page only.
    corpus_repo.commit({EDITED: docs[EDITED].replace("dulcimer", "hurdy-gurdy")}, "edit it again")
    _site_stats(corpus_repo, site)
    listing = _listing(site)
    delta = _bundle(site, "delta")
    assert listing["bundles"][0] == base_name and delta.paths == [EDITED]
    assert sorted(listing["superseded"]) == sorted([base.ids[EDITED], *delta.sample_ids.values()])
    assert sorted(p.name for p in (site / "pagefind").iterdir()) == sorted(listing["bundles"])  # old delta gone


def test_a_removed_document_is_superseded_and_a_readded_one_is_in_the_delta(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    _site_stats(corpus_repo, site)
    base = _bundle(site, "base")

    corpus_repo.commit({REMOVED: None}, "remove a note")
    stats = _site_stats(corpus_repo, site)
    listing = _listing(site)
    assert listing["bundles"] == [base.folder] and listing["superseded"] == [base.ids[REMOVED]]
    assert (stats["search_bundles_indexed"], stats["search_pages_superseded"]) == (0, 1)  # no Pagefind run at all

    corpus_repo.commit({REMOVED: docs[REMOVED]}, "put it back")
    _site_stats(corpus_repo, site)
    listing = _listing(site)
    delta = _bundle(site, "delta")
    assert listing["bundles"][0] == base.folder and delta.paths == [REMOVED]
    assert sorted(listing["superseded"]) == sorted([base.ids[REMOVED], *delta.sample_ids.values()])


def test_crossing_the_share_makes_a_new_base_and_empties_the_delta(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site, config = tmp_path / "site", Config(site_search_delta_share=0.1)  # at most one note of sixteen
    _site_stats(corpus_repo, site, config)
    (first_base,) = _listing(site)["bundles"]
    corpus_repo.commit({EDITED: "# Note 3\n\nRewritten.\n"}, "one note")
    _site_stats(corpus_repo, site, config)
    assert len(_listing(site)["bundles"]) == 2

    corpus_repo.commit({REMOVED: None}, "a second note")
    stats = _site_stats(corpus_repo, site, config)
    listing = _listing(site)
    (new_base,) = listing["bundles"]
    assert new_base != first_base and listing["superseded"] == []
    assert (stats["search_bundles_indexed"], stats["search_pages_indexed"]) == (1, 15)
    assert sorted(p.name for p in (site / "pagefind").iterdir()) == [new_base]
    assert read_indexed(site / "pagefind" / new_base, "base", "another salt") is None  # the salt is in the name


def test_a_new_site_fingerprint_makes_a_new_base(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    _site_stats(corpus_repo, site)
    (first_base,) = _listing(site)["bundles"]
    corpus_repo.commit({EDITED: "# Note 3\n\nRewritten.\n"}, "one note")
    stats = _site_stats(corpus_repo, site, Config(site_search_delta_share=0.5, site_title="Renamed"))
    (new_base,) = _listing(site)["bundles"]
    assert new_base != first_base and stats["search_pages_indexed"] == 16


def test_a_site_of_hash_split_bundles_gets_a_base(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(_documents(), "sixteen notes")
    site = tmp_path / "site"
    _site_stats(corpus_repo, site)
    # What an earlier pincite left: bundles by path hash, and a single index straight under pagefind/.
    for name in ("00-0123456789abcdef", "01-fedcba9876543210", "fragment"):
        (site / "pagefind" / name).mkdir()
    (site / "pagefind" / "pagefind.js").write_text("// the old single index\n", encoding="utf-8")
    # And its manifest, one JSON object in `.pincite-site.json` (before the manifest was sharded).
    manifest = json.loads((site / TOP).read_text(encoding="utf-8"))
    del manifest["search_base"], manifest["shards"], manifest["seal"]
    shutil.rmtree(site / MANIFEST)
    (site / LEGACY_MANIFEST).write_text(json.dumps({**manifest, "search_buckets": 2}), encoding="utf-8")
    corpus_repo.commit({EDITED: "# Note 3\n\nRewritten.\n"}, "edit")
    stats = _site_stats(corpus_repo, site)
    assert stats["previous_site"] == "ignored: its manifest is of an earlier form (.pincite-site.json)"
    assert not (site / LEGACY_MANIFEST).exists() and (site / TOP).is_file()
    (base,) = _listing(site)["bundles"]
    assert base.startswith("base-") and stats["search_pages_indexed"] == 16
    assert sorted(p.name for p in (site / "pagefind").iterdir()) == [base]


# -- in the browser --------------------------------------------------------------------------


SEARCH = """async ([query, filters]) => {
    const { load } = await import(new URL("static/search-index.js", location.href).href);
    const index = await load(new URL("./", location.href));
    const found = await index.search(query, { filters });
    const data = await Promise.all(found.results.map((r) => r.data()));
    return data.map((d) => [d.meta.path, d.url, d.content]);
}"""


def _search(browser: Any, site: Path, queries: list[tuple[str, dict[str, str]]]) -> tuple[list[Any], list[str]]:
    """Each query's results as (path, url, text), and every URL the page fetched from the bundles."""
    server, base = serve_in_thread(site)
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        fetched: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda request: fetched.append(request.url))
        page.goto(base + "search.html")
        answers = [page.evaluate(SEARCH, [query, filters]) for query, filters in queries]
        assert errors == []
        return answers, [url[len(base) :] for url in fetched if "/pagefind/" in url]
    finally:
        context.close()
        server.shutdown()
        server.server_close()


QUERIES: list[tuple[str, dict[str, str]]] = [
    ("zeppelin", {}),
    ("zeppelin", {"folder": "corpus/east"}),
    ("dulcimer", {}),
    ("harmonium", {}),
    ("gossamer", {}),
    ("palimpsest", {}),
]


def _paths(answer: list[list[str]]) -> list[str]:
    return sorted(path for path, _url, _text in answer)


def _unordered(answers: list[Any]) -> list[list[tuple[str, ...]]]:
    """Each answer's documents with their text: the order of equal scores may differ between indexes."""
    return [sorted(map(tuple, answer)) for answer in answers]


def _cold_answers(corpus_repo: CorpusRepo, site: Path, browser: Any) -> list[list[tuple[str, ...]]]:
    """The answers to QUERIES of a site built cold, in one bundle, at the repository's HEAD."""
    build(corpus_repo.root, out=site, config=CONFIG)
    assert len(_listing(site)["bundles"]) == 1
    answers, _ = _search(browser, site, QUERIES)
    return _unordered(answers)


def _fragment_urls(bundles: list[_Written], paths: tuple[str, ...]) -> set[str]:
    """Where the pages of `paths` have their Pagefind fragments, in whichever bundle holds them."""
    return {f"pagefind/{b.folder}/fragment/{b.ids[p]}.pf_fragment" for b in bundles for p in paths if p in b.ids}


def test_search_follows_edits_and_removals_and_shows_no_superseded_page(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    (shared, east, dulcimer, harmonium, gossamer, _), _ = _search(browser, site, QUERIES)
    assert _paths(shared) == sorted(docs)
    assert _paths(east) == sorted(p for p in docs if p.startswith("corpus/east/"))
    assert (_paths(dulcimer), harmonium, _paths(gossamer)) == ([EDITED], [], [REMOVED])
    base = _bundle(site, "base")

    corpus_repo.commit({EDITED: docs[EDITED].replace("dulcimer", "harmonium"), REMOVED: None}, "edit one, remove one")
    build(corpus_repo.root, out=site, config=CONFIG)
    assert len(_listing(site)["bundles"]) == 2  # the base still holds the old text of both
    incremental, fetched = _search(browser, site, QUERIES)
    shared, east, dulcimer, harmonium, gossamer, _ = incremental
    assert dulcimer == [] and gossamer == []  # the removed text, and the removed document, are never found
    assert _paths(harmonium) == [EDITED] and "harmonium" in harmonium[0][2]  # the new text, from the delta
    at_head = sorted(p for p in docs if p != REMOVED)
    assert _paths(shared) == at_head  # each document once: no base result for the edited one
    assert [text for path, _url, text in shared if path == EDITED] == [harmonium[0][2]]
    stale = _fragment_urls([base], (EDITED, REMOVED))
    assert len(stale) == 2 and stale.isdisjoint(fetched)  # the superseded pages' fragments were never even fetched
    assert any(url.startswith(f"pagefind/{base.folder}/fragment/") for url in fetched)  # ...but others were

    assert _unordered(incremental) == _cold_answers(corpus_repo, tmp_path / "cold", browser)


def test_the_search_page_counts_and_shows_current_pages_only(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    corpus_repo.commit({"corpus/west/note-00.md": "# Note 0\n\nThe zeppelin was renamed.\n"}, "edit a west note")
    build(corpus_repo.root, out=site, config=CONFIG)
    server, base = serve_in_thread(site)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(base + "search.html?q=zeppelin&folder=corpus/west")
        page.wait_for_function("() => document.getElementById('search-status').textContent.includes('match')")
        assert page.inner_text("#search-status").startswith("8 document(s) match")
        shown = page.locator(".result-path").all_inner_texts()
        assert sorted(shown) == sorted(p for p in docs if p.startswith("corpus/west/"))
        excerpts = page.locator(".result .excerpt").all_inner_texts()
        assert sum("renamed" in e for e in excerpts) == 1 and not any("amberly" in e for e in excerpts)
        marks = page.locator(".result .excerpt mark").all_inner_texts()
        assert len(marks) == 8 and all(m.lower().startswith("zeppelin") for m in marks), marks  # every excerpt
    finally:
        context.close()
        server.shutdown()
        server.server_close()


SHOWN_COUNTS = """() => [...document.querySelectorAll('#f-lang option, #f-folder option')]
    .filter((option) => option.value).map((option) => [option.parentElement.id, option.textContent])"""


def _search_page(browser: Any, site: Path, query: str) -> tuple[dict[str, int], dict[str, int], str]:
    """The search page's language and folder counts (tag → pages), and what it says of `query`."""
    server, base = serve_in_thread(site)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(base + f"search.html?q={query}")
        page.wait_for_function("() => document.getElementById('search-status').textContent.includes('match')")
        counts: dict[str, dict[str, int]] = {"f-lang": {}, "f-folder": {}}
        for select, text in page.evaluate(SHOWN_COUNTS):
            name, _, count = text.rpartition(" (")
            counts[select][name] = int(count.removesuffix(")"))
        return counts["f-lang"], counts["f-folder"], page.inner_text("#search-status")
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def _edit(text: str) -> Callable[[CorpusRepo], None]:
    return lambda repo: repo.commit({EDITED: _documents()[EDITED].replace("dulcimer", text)}, f"edit: {text}")


RENAMED = "corpus/north/note-06.md"
CHANGES: dict[str, list[tuple[Callable[[CorpusRepo], None], str, list[str]]]] = {
    # Each build after the cold one: the change committed before it, a word of the changed
    # document, and the documents that word finds after the change.
    "one edit": [(_edit("harmonium"), "dulcimer", [])],
    "a deleted document": [(lambda repo: repo.commit({REMOVED: None}, "remove"), "gossamer", [])],
    "a renamed document": [(lambda repo: repo.move(REMOVED, RENAMED), "gossamer", [RENAMED])],
    "two rebuilds in a row": [(_edit("harmonium"), "dulcimer", []), (_edit("theremin"), "harmonium", [])],
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_the_language_filter_counts_each_current_document_once_after_a_delta(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any, change: str
) -> None:
    """The Language filter counts what the folder filter counts: the superseded base pages and the
    delta's sample pages, which the browser drops, are not documents of the built commit."""
    corpus_repo.commit(_documents(), "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    for step, word, found in CHANGES[change]:
        step(corpus_repo)
        build(corpus_repo.root, out=site, config=CONFIG)
        assert any(name.startswith("delta-") for name in _listing(site)["bundles"]) or change == "a deleted document"
        at_head = sorted(corpus_repo.git("ls-files", "corpus").split())
        languages, folders, status = _search_page(browser, site, "zeppelin")
        assert sum(folders.values()) == len(at_head) and status.startswith(f"{len(at_head)} document(s) match")
        assert languages == {"en": len(at_head)} == _listing(site)["languages"]
        (shared, changed), _ = _search(browser, site, [("zeppelin", {}), (word, {})])
        assert _paths(shared) == at_head  # each document once, at its current path
        assert _paths(changed) == found  # no text, and no path, that the change took away
        if change == "a renamed document":
            assert folders == {"corpus/east": 8, "corpus/north": 1, "corpus/west": 7}


def test_a_changed_document_ranks_as_it_would_in_a_new_base(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    """The delta ranks by the statistics of its sample of the site, not by those of its one page."""
    docs = _documents()
    harbours = sorted(docs)[:8]  # half the notes mention the harbour; the EDITED one three times
    docs |= {path: docs[path] + "\nThe harbour.\n" for path in harbours}
    docs[EDITED] = docs[EDITED] + "\nThe harbour, the harbour and the harbour again.\n"
    corpus_repo.commit(docs, "sixteen notes, eight of them at the harbour")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    (cold,), _ = _search(browser, site, [("harbour", {})])
    assert [path for path, _url, _text in cold][:1] == [EDITED]

    corpus_repo.commit({EDITED: docs[EDITED] + "\nAn unrelated line.\n"}, "edit the note")
    build(corpus_repo.root, out=site, config=CONFIG)
    assert _bundle(site, "delta").paths == [EDITED]
    (found,), _ = _search(browser, site, [("harbour", {})])
    assert [path for path, _url, _text in found][:1] == [EDITED]  # alone, the delta would rank it last
    assert _paths(found) == sorted(set(harbours) | {EDITED})  # and no sample page twice


PARTED = Config(site_search_delta_share=0.5, site_search_part_mb=0.01)  # pages of a few KB: a few per part


def test_a_large_base_is_made_in_parts_that_are_searched_as_one(
    corpus_repo: CorpusRepo, tmp_path: Path, browser: Any
) -> None:
    docs = _documents()
    corpus_repo.commit(docs, "sixteen notes")
    site = tmp_path / "site"
    stats = _site_stats(corpus_repo, site, PARTED)
    parts = _bundles(site, "base")
    assert len(parts) >= 3 and _listing(site)["bundles"] == [part.folder for part in parts]
    held = [path for part in parts for path in part.paths]
    assert sorted(held) == sorted(docs) and len(held) == len(docs)  # each page once
    assert (stats["search_bundles_indexed"], stats["search_pages_indexed"]) == (len(parts), 16)
    made = [read_indexed(site / "pagefind" / part.folder, "base", "") for part in parts]
    assert made == [None] * len(parts)  # another salt: not taken for this site's
    sizes = {json.loads((site / "pagefind" / p.folder / "pincite-pages.json").read_text())["chunk_size"] for p in parts}
    assert sizes == {PAGEFIND_CHUNK_POSITIONS // len(parts)}

    corpus_repo.commit({EDITED: docs[EDITED].replace("dulcimer", "harmonium"), REMOVED: None}, "edit one, remove one")
    stats = _site_stats(corpus_repo, site, PARTED)
    listing = _listing(site)
    assert listing["bundles"][:-1] == [part.folder for part in parts] and listing["bundles"][-1].startswith("delta-")
    assert (stats["search_bundles_indexed"], stats["search_pages_indexed"]) == (1, 1)  # the parts are kept
    ids = {path: page_id for part in parts for path, page_id in part.ids.items()}
    sample = _bundle(site, "delta").sample_ids.values()
    assert sorted(listing["superseded"]) == sorted([ids[EDITED], ids[REMOVED], *sample])

    parted, fetched = _search(browser, site, QUERIES)
    shared, _east, dulcimer, harmonium, gossamer, _ = parted
    assert dulcimer == [] and gossamer == [] and _paths(harmonium) == [EDITED]
    assert _paths(shared) == sorted(p for p in docs if p != REMOVED)
    stale = _fragment_urls(parts, (EDITED, REMOVED))
    assert len(stale) == 2 and stale.isdisjoint(fetched)  # the superseded pages' fragments were never fetched
    assert _unordered(parted) == _cold_answers(corpus_repo, tmp_path / "whole", browser)


def test_pagefind_cuts_its_word_index_at_the_chunk_size_given(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus_repo.commit(_documents(), "sixteen notes")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    monkeypatch.setenv(CHUNK_SIZE_VARIABLE, "2")  # a bundle's key says its chunk size: the environment has no say
    chunks = {}
    for size in (0, 8):
        run_pagefind(site, tmp_path / f"out-{size}", size)
        chunks[size] = len(list((tmp_path / f"out-{size}" / "index").iterdir()))
    assert chunks[0] == 1 and chunks[8] > 10, chunks


# -- what Pagefind is given --------------------------------------------------------------------

PIECES = ["a", "<", ">", "!", "-", "\n", UNINDEXED_START.decode(), UNINDEXED_END.decode()]
TEXTS = st.lists(st.sampled_from(PIECES)).map("".join)


@settings(max_examples=300)
@given(before=TEXTS, section=TEXTS, after=TEXTS)
def test_only_the_last_unindexed_section_is_left_out(before: str, section: str, after: str) -> None:
    """Whatever markers the document's own text (before the section) holds, all of it is searched.

    The section and the page after it are the template's: the escaped source holds no `<!--`.
    """
    section, after = section.replace("<!--", ""), after.replace("<!--", "")
    page = (before + UNINDEXED_START.decode() + section + UNINDEXED_END.decode() + after).encode()
    assert searched_part(page) == (before + after).encode()
    assert searched_part(before.replace("<!--", "").encode()) == before.replace("<!--", "").encode()


def _fragments(bundle: Path) -> dict[str, Any]:
    return {record["url"]: record for _id, record in fragment_records(bundle)}


def test_a_bundle_is_what_pagefind_makes_of_the_search_records(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(
        {
            "corpus/rendered.md": "# Rendered\n\nA heading's words.\n\n<!--pincite:unindexed-->\n\nStill searched.\n",
            "corpus/plain.txt": "Plain text is searched as its lines.\n",
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=CONFIG)
    # The pages as written hold no Pagefind metadata nor marks (the record writes them from the
    # page): given the pages whole with the marks and that metadata put back, Pagefind makes the
    # same bundle.
    whole = tmp_path / "whole"
    for written in (site / "doc").rglob("*.html"):
        page = pagefind_marks(written.read_bytes())
        head = page.find(b"</head>")
        copy = whole / written.relative_to(site)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(page[:head] + b"\n".join(record_metadata(page)) + page[head:])
    run_pagefind(whole, whole / "out")  # as the site runs it, on whole pages
    page = (site / "doc" / "corpus" / "rendered.md.html").read_bytes()
    assert b"<ol id=src " in page and b"data-pagefind" not in page
    record = search_record(page)  # what Pagefind is given: no chrome, no source lines
    assert b"<ol id=src " not in record and b"<header" not in record and b"Content-Security-Policy" not in record
    assert b'<html lang="en">' in record and b'data-pagefind-meta="path[content]"' in record
    folder = site / "pagefind" / _bundle(site, "base").folder
    made = _fragments(folder)
    assert made == _fragments(whole / "out")
    assert all((whole / "out" / name).is_file() and not (folder / name).exists() for name in PAGEFIND_UNUSED)
    assert "Still searched" in made["/doc/corpus/rendered.md.html"]["content"]
