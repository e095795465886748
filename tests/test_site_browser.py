"""The built site in a real browser (Debian chromium driven by Playwright)."""

from __future__ import annotations

import contextlib
import json
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.api import build, markdown_snippet
from indexer.citations.drift import relocate_lines, verify
from indexer.citations.quote import _end_offset
from indexer.citations.recovery import Recoverer
from indexer.citations.resolve import Resolver, resolve, span_citation
from indexer.citations.verdicts import Detail, Outcome
from indexer.config import Config
from indexer.site.render import history_name, history_shard, site_page, url_path
from indexer.site.serve import serve_in_thread
from indexer.text.citation import Citation, parse_permalink, parse_text_form
from indexer.text.model import LineIndex, Span
from indexer.text.normalize import normalize, normalize_for_match
from indexer.vcs.repo import GitRepo, Hunk
from tests.browser import SELECT_TEXT
from tests.conftest import expanded_lines

HANDBOOK = (
    "# Staff handbook\n\nThis handbook explains how records are handled.\n\n## Retention\n\n"
    "Personnel records are kept for seven years after departure.\n\n## 国际 offices\n\n"
    "东京办公室 🎌 保留期限为七年 🎉 然后销毁.\n\nClosing line.\n"
)
XSS_MD = (
    "# Payloads\n\n<script>window.__pwned = 1; alert('md')</script>\n\n[click me](javascript:alert(1))\n\n"
    '<img src=x onerror="alert(2)">\n\n![pic](javascript:alert(3))\n\n'
    '<a href="javascript:alert(4)" onclick="alert(5)">x</a>\n\n![tracker](https://tracker.invalid/pixel.png)\n'
)
XSS_HTML = (
    "<html><head><title>Payload page</title></head><body><h1>Payload page</h1>"
    "<p>Plain words stay &lt;script&gt;alert(6)&lt;/script&gt; as text.</p>"
    '<script>alert(7)</script><a href="javascript:alert(8)" onmouseover="alert(9)">link</a></body></html>'
)
OLD = "".join(f"line {n} of the policy\n" for n in range(1, 21))
STATIC = Path(__file__).parent.parent / "site_templates" / "static"
# The scripts a page names; each imports the modules it needs from static/.
ENTRY_SCRIPTS = ("static/pincite.js", "static/version-page.js", "static/search.js", "static/file-view.js")


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    tab = context.new_page()
    tab.errors = []
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    tab.on("dialog", lambda dialog: (tab.errors.append("dialog: " + dialog.message), dialog.dismiss()))
    yield tab
    context.close()


@pytest.fixture
def served(corpus_repo: Any, tmp_path: Path) -> Iterator[tuple[Any, Path, str]]:
    corpus_repo.commit({"corpus/handbook.md": HANDBOOK, "corpus/xss.md": XSS_MD, "corpus/policy.txt": OLD}, "start")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    yield corpus_repo, site, base
    server.shutdown()
    server.server_close()


def _select(page: Any, needle: str) -> None:
    """Select the first occurrence of `needle` in the source view, as a reader would by dragging."""
    found = page.evaluate(SELECT_TEXT, ["#src", needle])
    assert found, needle


def test_search_finds_the_passage_and_lands_on_highlighted_text(served: Any, page: Any) -> None:
    _repo, _site, base = served
    page.goto(base + "index.html")
    page.fill("#q-top", "departure")
    page.press("#q-top", "Enter")
    page.wait_for_selector(".result-link")
    first = page.locator(".result-link").first
    assert first.inner_text() == "Staff handbook"
    assert page.locator(".result-path").first.inner_text() == "corpus/handbook.md"
    assert "departure" in page.locator(".result .excerpt mark").first.inner_text().lower()
    assert page.locator("#f-class option[value='text']").inner_text() == "text (3)"
    page.select_option("#f-folder", "corpus")
    page.click("#search-form button[type=submit]")
    page.wait_for_function("() => location.search.includes('folder=corpus')")
    page.wait_for_selector(".result-link")
    first = page.locator(".result-link").first
    first.click()
    page.wait_for_url(re.compile(r"/doc/corpus/handbook\.md\.html"))
    mark = page.locator("#rendered mark.term").first
    mark.wait_for()
    assert mark.inner_text().lower() == "departure"
    assert mark.is_visible()
    assert page.errors == []


def test_select_to_cite_cjk_and_emoji_resolves_to_the_selection(served: Any, page: Any) -> None:
    repo, _site, base = served
    page.goto(base + "doc/corpus/handbook.md.html")
    page.click("#tab-source")
    selected = "保留期限为七年 🎉 然后"
    _select(page, selected)
    page.click("#cite-open")
    text_form = page.input_value("#cite-text")
    permalink = page.input_value("#cite-permalink")
    markdown = page.input_value("#cite-markdown")
    citation = parse_text_form(text_form)
    assert citation.chars is not None
    resolved = resolve(citation, GitRepo(repo.root))
    assert resolved.text == selected
    assert markdown == markdown_snippet(resolved, permalink)
    from_link, link_base = parse_permalink(permalink)
    assert (from_link.commit, from_link.path, from_link.chars) == (citation.commit, citation.path, citation.chars)
    assert link_base + "/" == base
    # The permalink opens the version page with exactly that span marked.
    page.goto(permalink)
    assert page.locator("mark.cited").all_inner_texts() == [selected]
    assert page.errors == []


def test_select_in_the_rendered_view_cites_the_blocks_source(served: Any, page: Any) -> None:
    repo, _site, _base = served
    page.goto(_base + "doc/corpus/handbook.md.html")
    page.evaluate(
        """() => {
            const para = Array.from(document.querySelectorAll('#rendered p'))
                .find(p => p.textContent.includes('办公室'));
            const range = document.createRange();
            range.selectNodeContents(para);
            window.getSelection().removeAllRanges();
            window.getSelection().addRange(range);
        }"""
    )
    page.click("#cite-open")
    citation = parse_text_form(page.input_value("#cite-text"))
    resolved = resolve(citation, GitRepo(repo.root))
    # The whole paragraph selected: exactly its text (line 11 without its line end; tests/test_site_reader.py
    # checks selections inside paragraphs and the fallback to whole lines).
    assert citation.chars is not None and resolved.text == "东京办公室 🎌 保留期限为七年 🎉 然后销毁."
    assert page.input_value("#cite-markdown") == markdown_snippet(resolved, page.input_value("#cite-permalink"))


def test_keyboard_follows_a_line_number_and_cites_the_line(served: Any, page: Any) -> None:
    repo, _site, base = served
    page.goto(base + "doc/corpus/policy.txt.html")
    assert page.get_attribute("#L4 > a", "aria-label") == "line 4"
    page.focus("#L4 > a")
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash === '#L4'")
    assert not page.locator("#cite-details").is_visible()
    page.focus("#cite-open")
    page.keyboard.press("Enter")
    assert page.locator("#cite-details").is_visible()
    citation = parse_text_form(page.input_value("#cite-text"))
    assert citation.lines == (4, 4)
    assert resolve(citation, GitRepo(repo.root)).text == "line 4 of the policy"


def test_old_permalink_shows_old_text_and_banner_after_rebuild(corpus_repo: Any, tmp_path: Path, page: Any) -> None:
    old_commit = corpus_repo.commit({"corpus/policy.txt": OLD, "corpus/gone.md": "# Gone\n\nsoon deleted\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    new_text = "inserted at the top\n" + OLD.replace("line 12 of the policy", "line twelve, reworded")
    corpus_repo.commit({"corpus/policy.txt": new_text, "corpus/gone.md": None}, "edit and delete")
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    repo = GitRepo(corpus_repo.root)
    try:
        cases = {"L12": "changed", "L3-L5": "moved", "c0-6": "moved"}
        for selector, status in cases.items():
            page.goto(_permalink(base, repo, old_commit, "corpus/policy.txt", selector))
            page.wait_for_selector(f"#banner[data-status='{status}']")
            assert "line 12 of the policy" in page.inner_text("#src")
            cite = parse_text_form(f"corpus/policy.txt@{old_commit}#{selector}")
            verdict = verify(cite, repo, against="HEAD")
            assert verdict.status == ("drifted" if status == "changed" else "verified"), selector
            if verdict.relocated is not None:
                new_link = page.get_attribute("#banner a", "href")
                assert new_link.endswith("#" + verdict.relocated.selector), (new_link, verdict.relocated.selector)
        page.goto(_permalink(base, repo, old_commit, "corpus/gone.md", "L3"))
        page.wait_for_selector("#banner[data-status='deleted']")
        assert "soon deleted" in page.inner_text("#src")
        assert verify(parse_text_form(f"corpus/gone.md@{old_commit}#L3"), repo).status == "drifted"
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("width", [1100, 360])
def test_banner_loads_without_layout_shift(corpus_repo: Any, tmp_path: Path, browser: Any, width: int) -> None:
    old_commit = corpus_repo.commit({"corpus/policy.txt": OLD})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    corpus_repo.commit({"corpus/policy.txt": OLD.replace("line 2 of", "the second line of a much longer policy, of")})
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        tab = context.new_page()
        tab.goto(_permalink(base, GitRepo(corpus_repo.root), old_commit, "corpus/policy.txt", "L2"))
        tab.wait_for_selector("#banner[data-status='changed']")
        shifts = tab.evaluate(
            """() => new Promise(resolve => {
                const seen = [];
                new PerformanceObserver(list => seen.push(...list.getEntries().map(e => e.value)))
                    .observe({type: 'layout-shift', buffered: true});
                setTimeout(() => resolve(seen), 300);
            })"""
        )
        assert sum(shifts) < 0.01, shifts
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def test_a_permalink_whose_commit_did_not_hold_the_page_is_unresolvable(
    corpus_repo: Any, tmp_path: Path, page: Any
) -> None:
    first = corpus_repo.commit({"corpus/policy.txt": OLD})
    middle = corpus_repo.commit({"corpus/other.md": "unrelated\n"}, "other")
    second = corpus_repo.commit({"corpus/policy.txt": OLD.replace("line 12", "line twelve")}, "edit")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    repo = GitRepo(corpus_repo.root)
    try:
        old_blob = _permalink(base, repo, first, "corpus/policy.txt", "L3").split("?")[0]
        # A commit inside the version's range is fine; a commit after it, or unknown, is not.
        page.goto(f"{old_blob}?commit={middle}&path=corpus/policy.txt#L3")
        page.wait_for_selector("#banner[data-status='unchanged']")
        for commit in (second, "0" * 40):
            page.goto(f"{old_blob}?commit={commit}&path=corpus/policy.txt#L3")
            page.wait_for_selector("#banner[data-status='unresolvable']")
            assert "does not resolve" in page.inner_text("#banner")
            # pincite verify says the same of the same permalink
            from indexer.text.citation import parse_citation

            forged = parse_citation(f"{old_blob}?commit={commit}&path=corpus/policy.txt#L3")
            assert verify(forged, repo).status == "unresolvable"
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


def _history(site: Path, path: str) -> dict[str, Any]:
    shard = json.loads((site / "history" / f"{history_shard(path)}.json").read_text(encoding="utf-8"))
    entry: dict[str, Any] = expanded_lines(shard["paths"][path])
    return entry


def _permalink(base: str, repo: GitRepo, commit: str, path: str, selector: str) -> str:
    blob = repo.blob_at(commit, path)
    assert blob is not None
    return f"{base}v/{blob.sha}.html?commit={commit}&path={quote(path, safe='/')}#{selector}"


def test_banner_agrees_with_verify_on_many_spans(corpus_repo: Any, tmp_path: Path, page: Any) -> None:
    rng = random.Random(6)
    lines = [f"clause {n}: {rng.choice(['keep', 'review', 'archive'])} the file\n" for n in range(1, 31)]
    old_commit = corpus_repo.commit({"corpus/rules.md": "".join(lines)})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    edited = list(lines)
    edited[4] = "clause 5 rewritten\n"
    edited.insert(10, "a new clause\n")
    del edited[20:22]
    edited.append("trailer\n")
    corpus_repo.commit({"corpus/rules.md": "".join(edited)})
    build(corpus_repo.root, out=site)
    repo = GitRepo(corpus_repo.root)
    history = _history(site, "corpus/rules.md")
    blob = repo.blob_at(old_commit, "corpus/rules.md")
    assert blob is not None
    entry = history["versions"][blob.sha]
    server, base = serve_in_thread(site)
    try:
        page.goto(f"{base}v/{blob.sha}.html")
        spans = [(a, b) for a in range(1, 31) for b in range(a, min(31, a + 6))]
        decided = page.evaluate(
            """async ([entry, spans]) => {
                const { decide } = await import("/static/drift.js");
                return spans.map(([a, b]) => decide(entry, {kind: 'lines', a, b}, [a, b]));
            }""",
            [entry, spans],
        )
    finally:
        server.shutdown()
        server.server_close()
    for (a, b), banner in zip(spans, decided, strict=True):
        verdict = verify(Citation(old_commit, "corpus/rules.md", lines=(a, b)), repo)
        expected = "verified" if banner["status"] in ("unchanged", "moved") else "drifted"
        assert verdict.status == expected, (a, b, banner, verdict.reason)
        if verdict.relocated is not None:
            assert verdict.relocated.lines == (banner["first"], banner["last"]), (a, b)


@pytest.fixture
def scripts_page(page: Any, tmp_path: Path) -> Iterator[Any]:
    """A blank page served over http beside the site's static/ folder, whose modules it can import.

    ES modules load over http only (not from file://), as on a built site.
    """
    folder = tmp_path / "blank"
    folder.mkdir()
    (folder / "index.html").write_text("<!doctype html><title>t</title>")
    shutil.copytree(STATIC, folder / "static")
    server, base = serve_in_thread(folder)
    page.goto(base + "index.html")
    yield page
    server.shutdown()
    server.server_close()


def _import(page: Any, name: str, module: str) -> None:
    """Import the site's static/`module` into the page as window.`name`."""
    page.evaluate(f"async () => {{ window.{name} = await import('/static/{module}'); }}")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_short_header_gets_the_site_links_from_the_script_and_keeps_the_way_home_without_it(
    served: Any, browser: Any, width: int
) -> None:
    repo, _site, base = served
    version = _permalink(base, GitRepo(repo.root), repo.head(), "corpus/policy.txt", "L3")
    document = base + "doc/corpus/policy.txt.html"
    header = "body > header"
    for scripted in (True, False):
        context = browser.new_context(viewport={"width": width, "height": 800}, java_script_enabled=scripted)
        try:
            tab = context.new_page()
            for address, searched in ((version, "a[href$='search.html']"), (document, "form.searchbox")):
                tab.goto(address)
                tab.wait_for_load_state("load")
                home = tab.locator(f"{header} > a").first
                assert home.get_attribute("href").endswith("index.html") and home.is_visible()
                citations = tab.locator(f"{header} .links a[href$='citations.html']")
                assert citations.count() == (1 if scripted else 0), (address, scripted)
                assert tab.locator(f"{header} {searched}").count() == (1 if scripted else 0), (address, scripted)
                if scripted and searched.startswith("a"):
                    # The links fit one row (on a phone their own, reserved before they come).
                    row = tab.locator(f"{header} .links").evaluate("(nav) => nav.getBoundingClientRect().height")
                    assert row < 30, (width, row)
        finally:
            context.close()


def test_on_a_phone_a_long_site_title_wraps_whole_and_the_scripts_links_move_nothing(
    corpus_repo: Any, tmp_path: Path, browser: Any
) -> None:
    corpus_repo.commit({"corpus/policy.txt": OLD}, "start")
    site = tmp_path / "site"
    title = "The Municipal Records Office of the Northern District Handbook Corpus"
    build(corpus_repo.root, out=site, config=Config(site_title=title, site_publish_index=True))
    server, base = serve_in_thread(site)
    address = _permalink(base, GitRepo(corpus_repo.root), corpus_repo.head(), "corpus/policy.txt", "L3")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    # The scripts come late, as on a slow network: the header's links arrive after the first paint.
    context.route("**/*.js", lambda route: (time.sleep(0.35), route.continue_()))
    try:
        tab = context.new_page()
        tab.goto(address)
        tab.wait_for_selector("body > header a[href$='search.html']")
        shift = tab.evaluate(
            """() => new Promise(resolve => {
                let sum = 0;
                new PerformanceObserver(list => { for (const e of list.getEntries()) sum += e.value; })
                    .observe({type: 'layout-shift', buffered: true});
                setTimeout(() => resolve(sum), 500);
            })"""
        )
        assert shift < 0.01, shift
        brand = tab.locator("body > header > a").first
        assert brand.inner_text() == title
        whole = "(a) => a.scrollWidth <= a.clientWidth && getComputedStyle(a).textOverflow !== 'ellipsis'"
        assert brand.evaluate(whole), title
        # Each link stays on one line: "Index file" is one link, not two lines of one.
        for link in tab.locator("body > header .links a").all():
            box = link.evaluate("(a) => a.getClientRects().length")
            assert box == 1, link.inner_text()
            assert link.evaluate("(a) => a.getBoundingClientRect().height") < 30, link.inner_text()
    finally:
        context.close()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_a_document_page_keeps_the_places_of_its_search_box_and_tabs_from_the_first_paint(
    served: Any, browser: Any, width: int, height: int
) -> None:
    _repo, _site, base = served
    context = browser.new_context(viewport={"width": width, "height": height})
    # The scripts come late, as on a slow network: the page is painted before they make the header's
    # search box and links and the Rendered/Source tabs.
    context.route("**/pincite.js", lambda route: (time.sleep(0.3), route.continue_()))
    try:
        tab = context.new_page()
        tab.goto(base + "doc/corpus/handbook.md.html")
        tab.wait_for_selector("body > header form.searchbox")
        tab.wait_for_selector(".views [role=tab]")
        shifts = tab.evaluate(
            """() => new Promise(resolve => {
                const seen = [];
                new PerformanceObserver(list => {
                    for (const e of list.getEntries()) seen.push([e.value, e.sources.map(s => s.node?.nodeName)]);
                }).observe({type: 'layout-shift', buffered: true});
                setTimeout(() => resolve(seen), 500);
            })"""
        )
        assert sum(value for value, _nodes in shifts) <= 0.01, shifts
        # The box fits its row, and nothing is wider than the screen.
        assert tab.evaluate("() => document.documentElement.scrollWidth") <= width
        box = tab.locator("body > header form.searchbox").bounding_box()
        assert box is not None and box["x"] + box["width"] <= width and box["height"] <= 33
        bar = tab.locator(".views").bounding_box()
        rendered = tab.locator(".rendered-body").bounding_box()
        assert bar is not None and rendered is not None and bar["y"] + bar["height"] <= rendered["y"]
    finally:
        context.close()


def test_a_version_page_opened_from_a_file_shows_its_text_and_says_it_cannot_compare(served: Any, page: Any) -> None:
    repo, site, _base = served
    blob = GitRepo(repo.root).blob_at(repo.head(), "corpus/policy.txt")
    assert blob is not None
    # Browsers load no ES module from file://: the page reads as without JavaScript.
    page.goto((site / "v" / f"{blob.sha}.html").as_uri() + f"?commit={repo.head()}&path=corpus/policy.txt#L3")
    page.wait_for_load_state("load")
    body = page.locator("#banner .banner-body").inner_text()
    assert body == "Immutable. Its script says if it changed later."
    assert page.evaluate("() => document.documentElement.classList.contains('js')") is False
    background = "(id) => getComputedStyle(document.getElementById(id)).backgroundColor"
    assert page.evaluate(background, "L3") != page.evaluate(background, "L2")  # the cited line, by CSS
    assert page.locator("#src").inner_text().startswith("line 1 of the policy")
    assert page.errors == []


def test_relocation_in_javascript_matches_python(scripts_page: Any) -> None:
    page = scripts_page
    _import(page, "drift", "drift.js")
    _import(page, "paths", "paths.js")
    rng = random.Random(12)
    cases = []
    for _ in range(400):
        hunks, at = [], 1
        for _ in range(rng.randint(0, 4)):
            at += rng.randint(0, 6)
            old_count, new_count = rng.randint(0, 3), rng.randint(0, 3)
            if old_count == 0 and new_count == 0:
                new_count = 1
            hunks.append([at, old_count, at, new_count, []])
            at += old_count + 1
        first = rng.randint(1, 25)
        cases.append([first, first + rng.randint(0, 5), hunks])
    results = page.evaluate("cases => cases.map(([f, l, h]) => drift.relocateLines(f, l, h))", cases)
    for (first, last, hunks), got in zip(cases, results, strict=True):
        want = relocate_lines(first, last, [Hunk(*h[:4]) for h in hunks])
        assert tuple(got) == want, (first, last, hunks)
    names = page.evaluate("names => names.map(paths.historyName)", ["corpus/a.md", "中文/🎉 b.md"])
    assert names == [history_name("corpus/a.md"), history_name("中文/🎉 b.md")]
    paths = ["corpus/a b.md", "corpus/" + "é" * 124 + ".md", "corpus/" + "a" * 251 + ".md", "d/" * 400 + "x.md"]
    pages = page.evaluate("paths_ => paths_.map(p => paths.sitePage('doc', p))", paths)
    assert pages == [url_path(site_page("doc", p)) for p in paths]


def test_xss_payloads_are_inert(corpus_repo: Any, tmp_path: Path, page: Any) -> None:
    from indexer.extract import registry as extract

    files: dict[str, str | bytes | None] = {"corpus/xss.md": XSS_MD}
    html_extractor = extract.extractor_for("x.html")
    has_html = html_extractor is not None and html_extractor.available()
    if has_html:
        files["corpus/payload.html"] = XSS_HTML
    corpus_repo.commit(files)
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        pages = ["doc/corpus/xss.md.html", "index.html", "search.html?q=payloads"]
        if has_html:
            pages.append("doc/corpus/payload.html.html")
        for rel in pages:
            page.goto(base + rel)
            page.wait_for_timeout(300)
            page.click("#tab-source") if page.locator("#tab-source").count() else None
            report = page.evaluate(
                """() => ({
                    pwned: window.__pwned || 0,
                    scripts: Array.from(document.scripts).map(s => s.getAttribute('src') || 'inline'),
                    handlers: Array.from(document.querySelectorAll('*')).flatMap(
                        el => Array.from(el.attributes).filter(a => a.name.startsWith('on')).map(a => a.name)),
                    jsLinks: Array.from(document.querySelectorAll('[href],[src]')).filter(
                        el => /^\\s*javascript:/i.test(el.getAttribute('href') || el.getAttribute('src') || '')).length,
                })"""
            )
            assert report["pwned"] == 0 and report["handlers"] == [] and report["jsLinks"] == 0, (rel, report)
            assert all(s.endswith(ENTRY_SCRIPTS) for s in report["scripts"]), report
        # Nothing leaves the site: no CDN, no fonts, no image from the corpus's Markdown.
        assert requested and all(url.startswith(base) for url in requested), requested
        for link in page.locator("a").all():
            assert not (link.get_attribute("href") or "").lower().startswith("javascript")
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


XSS_RST = """\
Payload proposal
================

Readable words before the payloads, and a `bad link <javascript:alert(10)>`_.

.. raw:: html

   <script>window.__pwned = 1; alert('rst')</script>

.. include:: /etc/passwd

.. raw:: html
   :file: /etc/passwd

.. csv-table::
   :file: /etc/passwd

.. image:: https://tracker.invalid/pixel.png
   :alt: tracker

Closing words after the payloads.
"""


def test_rst_raw_and_include_render_inert_and_read_nothing(corpus_repo: Any, tmp_path: Path, page: Any) -> None:
    corpus_repo.commit({"corpus/payload.rst": XSS_RST})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    html = (site / "doc/corpus/payload.rst.html").read_text(encoding="utf-8")
    assert "root:x:0" not in html  # /etc/passwd was read by nothing
    server, base = serve_in_thread(site)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        page.goto(base + "doc/corpus/payload.rst.html")
        rendered = page.locator("#rendered")
        assert rendered.locator("h2").inner_text() == "Payload proposal"
        assert "Closing words after the payloads." in rendered.inner_text()
        assert "root:" not in page.content()
        report = page.evaluate(
            """() => ({
                pwned: window.__pwned || 0,
                scripts: Array.from(document.scripts).map(s => s.getAttribute('src') || 'inline'),
                images: document.querySelectorAll('#rendered img').length,
                jsLinks: Array.from(document.querySelectorAll('[href]')).filter(
                    el => /^\\s*javascript:/i.test(el.getAttribute('href'))).length,
            })"""
        )
        assert report["pwned"] == 0 and report["images"] == 0 and report["jsLinks"] == 0, report
        assert all(s.endswith(ENTRY_SCRIPTS) for s in report["scripts"]), report
        assert requested and all(url.startswith(base) for url in requested), requested
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


def _start(cmd: list[str], pattern: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(pattern, line)
    if not found:
        proc.kill()
        raise AssertionError(f"{cmd}: {line!r}")
    return proc, f"http://127.0.0.1:{found.group(1)}/"


@pytest.mark.parametrize("server_kind", ["pincite serve", "python -m http.server"])
def test_site_works_from_pincite_serve_and_a_plain_static_server(served: Any, page: Any, server_kind: str) -> None:
    repo, site, _base = served
    if server_kind == "pincite serve":
        cmd = [sys.executable, "-m", "indexer.cli.main", "serve", "--port", "0", "--dir", str(site)]
        proc, base = _start(cmd, r"127\.0\.0\.1:(\d+)/")
    else:
        cmd = [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(site)]
        proc, base = _start(cmd, r"port (\d+)")
    try:
        page.goto(base + "search.html?q=retention")
        page.wait_for_selector(".result-link")
        head = repo.head()
        page.goto(_permalink(base, GitRepo(repo.root), head, "corpus/policy.txt", "L2-L3"))
        page.wait_for_selector("#banner[data-status='unchanged']")
        assert page.locator("#src .hl").count() == 2
        assert page.errors == []
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_line_anchor_shows_the_cited_line_without_javascript(served: Any, browser: Any) -> None:
    repo, _site, base = served
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(_permalink(base, GitRepo(repo.root), repo.head(), "corpus/policy.txt", "L7"))
        colour = "el => getComputedStyle(el).backgroundColor"
        assert tab.eval_on_selector("#L7", colour) != tab.eval_on_selector("#L6", colour)
        assert "line 7 of the policy" in tab.inner_text("#L7")
        # The banner's own words say what the script would tell (no <noscript>: the same words serve a
        # page opened from a file, where scripts run but modules do not).
        assert "Its script says if it changed later." in tab.inner_text("#banner")
        # The line numbers are drawn by CSS from bare lines; the links over them come with the script.
        number = "el => getComputedStyle(el, '::before').content"
        assert tab.eval_on_selector("#L7", number) == "counter(ln)"
        assert tab.locator("#L7 > a").count() == 0
    finally:
        context.close()


@pytest.mark.parametrize("blocked", ["**/drift.js", "**/banner.js"])
def test_a_version_page_whose_script_fails_claims_nothing_of_javascript(
    served: Any, browser: Any, blocked: str
) -> None:
    # JavaScript on, the script blocked: the banner keeps its own words, which must hold here too.
    repo, _site, base = served
    context = browser.new_context()
    context.route(blocked, lambda route: route.abort())
    try:
        tab = context.new_page()
        tab.goto(_permalink(base, GitRepo(repo.root), repo.head(), "corpus/policy.txt", "L7"))
        tab.wait_for_load_state("load")
        tab.wait_for_timeout(300)
        body = tab.locator("#banner .banner-body").inner_text()
        assert body == "Immutable. Its script says if it changed later.", body
        assert "JavaScript" not in tab.inner_text("#banner")
    finally:
        context.close()


def test_on_a_phone_without_javascript_the_banner_says_all_it_holds(served: Any, browser: Any) -> None:
    # Its Details button comes with the script; without it, nothing could open a banner folded to its title.
    repo, _site, base = served
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(_permalink(base, GitRepo(repo.root), repo.head(), "corpus/policy.txt", "L7"))
        assert tab.locator("#banner .banner-body").is_visible()
        assert "Immutable. Its script says if it changed later." in tab.inner_text("#banner")
        # The title (which version) is shown too, as wide as the banner, not squeezed into a grid's first column.
        title = tab.locator("#banner .banner-title").bounding_box()
        banner = tab.locator("#banner").bounding_box()
        assert title is not None and banner is not None and title["width"] > banner["width"] / 2, (title, banner)
    finally:
        context.close()


def test_a_version_page_without_javascript_links_its_documents_latest_version_and_history(
    corpus_repo: Any, tmp_path: Path, browser: Any
) -> None:
    first = corpus_repo.commit({"corpus/policy.txt": OLD, "corpus/once.md": "# Once\n\nOne version.\n"})
    gone_first = corpus_repo.commit({"corpus/gone.md": "# Gone\n\nSoon deleted.\n"})
    second = corpus_repo.commit({"corpus/policy.txt": OLD.replace("line 2 of", "the second line of")})
    corpus_repo.commit({"corpus/gone.md": None})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    repo = GitRepo(corpus_repo.root)
    server, base = serve_in_thread(site)
    try:
        for scripted in (False, True):
            context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=scripted)
            tab = context.new_page()
            # An old version: its path's page shows the latest version, its history page every one.
            tab.goto(_permalink(base, repo, first, "corpus/policy.txt", "L2"))
            if scripted:
                tab.wait_for_selector("#version-nav[data-done]")
            assert tab.locator("main a", has_text="history").count() == 1  # not twice with the script
            tab.click("main a:text-is('latest version')")
            tab.wait_for_load_state("load")
            assert tab.url == base + "doc/corpus/policy.txt.html"
            assert "the second line of the policy" in tab.inner_text("#src")
            tab.go_back()
            tab.click("main a:text-is('history')")
            tab.wait_for_load_state("load")
            assert tab.url == base + "changes/corpus/policy.txt.html" and tab.title().startswith("History of")
            # One version from its first commit on: no history page to link, the document page only.
            tab.goto(_permalink(base, repo, first, "corpus/once.md", "L1"))
            links = tab.locator("#banner ~ h1 ~ p a").all_inner_texts()
            assert links == ["latest version"], links
            # A deleted document has no page at the built commit: nothing to link without JavaScript.
            tab.goto(_permalink(base, repo, gone_first, "corpus/gone.md", "L1"))
            if scripted:
                tab.wait_for_selector("#banner[data-status='deleted']")
            assert tab.locator("#banner ~ h1 ~ p a").count() == 0
            assert tab.evaluate("() => document.documentElement.scrollWidth") <= 390
            context.close()
    finally:
        server.shutdown()
        server.server_close()
    # The once-only document changes: its first version's page is written again, now linking its history.
    once = repo.blob_at(first, "corpus/once.md")
    assert once is not None and "history" not in (site / "v" / f"{once.sha}.html").read_text(encoding="utf-8")
    corpus_repo.commit({"corpus/once.md": "# Once\n\nTwo versions now.\n"})
    build(corpus_repo.root, out=site)
    page = (site / "v" / f"{once.sha}.html").read_text(encoding="utf-8")
    assert "<a href=../changes/corpus/once.md.html>history</a>" in page and second != first


# -- the banner's recovery suggestions (indexer.citations.recovery, exact places only) ------------------
P_AWAY = "Visitors sign the guest book at the front desk before they go upstairs."
P_DOWN = "The kitchen closes at eight in the evening on weekdays."
P_EDIT = "Expense claims are paid within thirty days of approval by the finance team."
P_KEEP = "Fire drills happen twice a year, announced one week ahead."
RECEPTION = "# Reception\n\nThe reception is staffed from seven to seven.\n"


def _office(*paragraphs: str) -> str:
    return "# Office handbook\n" + "".join(f"\n{p}\n" for p in paragraphs)


def test_banner_suggests_the_new_place_recovery_suggests(corpus_repo: Any, tmp_path: Path, page: Any) -> None:
    old_text = _office(P_AWAY, P_DOWN, P_EDIT, P_KEEP)
    old = corpus_repo.commit({"corpus/office.md": old_text, "corpus/reception.md": RECEPTION}, "start")
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    edited = P_EDIT.replace("thirty", "forty-five")
    corpus_repo.commit(
        {"corpus/office.md": _office(edited, P_KEEP, P_DOWN), "corpus/reception.md": f"{RECEPTION}\n{P_AWAY}\n"},
        "move two paragraphs, edit one",
    )
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    repo = GitRepo(corpus_repo.root)
    resolver = Resolver(repo)
    recoverer = Recoverer(resolver)
    index = LineIndex(old_text)
    try:
        for paragraph, detail in ((P_DOWN, Detail.MOVED), (P_AWAY, Detail.OTHER_DOCUMENT), (P_EDIT, Detail.CHANGED)):
            start = old_text.index(paragraph)
            span = Span(start, start + len(paragraph))
            for unit in ("lines", "chars", "linecol"):
                cite = span_citation(old, "corpus/office.md", span, index, unit)
                verdict = verify(cite, repo, resolver=resolver)
                attempt = recoverer.attempt(verdict)
                assert verdict.status == "drifted" and attempt is not None and attempt.detail == detail, cite
                page.goto("about:blank")  # a new hash alone would not load the page again
                page.goto(_permalink(base, repo, old, "corpus/office.md", cite.selector))
                page.wait_for_selector("#banner[data-recovery]")
                banner = page.locator("#banner")
                assert banner.get_attribute("data-status") == "changed", cite
                if detail == Detail.OTHER_DOCUMENT:  # office.md still exists: listed, never suggested
                    assert banner.get_attribute("data-recovery") == "other_document", cite
                    assert banner.get_attribute("data-suggestion") is None
                    assert "corpus/reception.md@" in banner.inner_text()
                    continue
                if attempt.new_citation is None:
                    assert banner.get_attribute("data-recovery") == "none", cite
                    assert banner.get_attribute("data-suggestion") is None
                    assert "The cited text changed" in banner.inner_text()
                    assert "-" + paragraph in page.text_content("#banner .hunk")
                    assert "+" + edited in page.text_content("#banner .hunk")
                    continue
                assert banner.get_attribute("data-recovery") == "moved", cite
                assert banner.get_attribute("data-suggestion") == attempt.new_citation.text_form()
                assert "The cited text moved: now at" in banner.inner_text()
                assert attempt.new_citation.text_form() in banner.inner_text()
            # The suggested link lands on the built commit's version with the paragraph highlighted.
            if detail == Detail.MOVED:
                page.click("#banner .banner-title a")
                page.wait_for_selector("#banner[data-status='unchanged']")
                assert page.inner_text("#src mark.cited") == paragraph
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


def test_banner_and_verify_agree_on_recovery_when_a_heading_changes_level(
    corpus_repo: Any, tmp_path: Path, page: Any
) -> None:
    old_text = f"# Title\n\nIntro.\n\n# Prior art\n\n{P_KEEP}\n\n{P_DOWN}\n"
    old = corpus_repo.commit({"corpus/rfc.md": old_text})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    corpus_repo.commit(
        {"corpus/rfc.md": f"# Title\n\nIntro.\n\n## Prior art\n\n{P_DOWN}\n\nMore.\n\n{P_KEEP}\n\nEnd.\n"}
    )
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    repo = GitRepo(corpus_repo.root)
    recoverer = Recoverer(Resolver(repo))
    try:
        # The heading's words stand inside "## Prior art": verify says a person decides, and so does the banner.
        # A range with its blank lines around a paragraph that moved: both suggest the same three lines.
        for selector, expected in (("L4-L6", "changed"), ("L5", "changed"), ("L8-L9", "moved")):
            first, _, last = selector[1:].partition("-L")
            cite = Citation(old, "corpus/rfc.md", lines=(int(first), int(last or first)))
            attempt = recoverer.attempt(verify(cite, repo))
            assert attempt is not None, selector
            page.goto("about:blank")
            page.goto(_permalink(base, repo, old, "corpus/rfc.md", selector))
            page.wait_for_selector("#banner[data-recovery]", state="attached")
            assert page.get_attribute("#banner", "data-recovery") == expected, selector
            if expected == "changed":
                assert (attempt.outcome, attempt.detail) == (Outcome.NEEDS_HUMAN, Detail.CHANGED), selector
                assert page.get_attribute("#banner", "data-suggestion") is None
            else:
                assert attempt.moved and attempt.new_citation is not None, selector
                assert attempt.new_citation.lines == (6, 7)
                assert page.get_attribute("#banner", "data-suggestion") == attempt.new_citation.text_form()
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


def test_banner_lists_every_place_when_the_text_stands_twice(corpus_repo: Any, tmp_path: Path, page: Any) -> None:
    old_text = _office(P_DOWN, P_KEEP)
    old = corpus_repo.commit({"corpus/office.md": old_text, "corpus/reception.md": RECEPTION})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    corpus_repo.commit(
        # office.md is gone, so every place in the corpus is a candidate (while it stands, only its own are).
        {"corpus/office.md": None, "corpus/reception.md": f"{RECEPTION}\n{P_DOWN}\n\n{P_DOWN}\n"}
    )
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    repo = GitRepo(corpus_repo.root)
    try:
        cite = Citation(old, "corpus/office.md", lines=(3, 3))
        attempt = Recoverer(Resolver(repo)).attempt(verify(cite, repo))
        assert attempt is not None and attempt.detail == Detail.AMBIGUOUS and attempt.search is not None
        page.goto(_permalink(base, repo, old, "corpus/office.md", "L3"))
        page.wait_for_selector("#banner[data-recovery='ambiguous']")
        assert page.get_attribute("#banner", "data-places") == str(len(attempt.search.places))
        shown = sorted(page.locator("#banner .banner-body a").all_inner_texts())
        assert shown == sorted(f"{c.path}@{c.commit[:12]}#{c.selector}" for c in attempt.search.places)
        assert page.get_attribute("#banner", "data-suggestion") is None
    finally:
        server.shutdown()
        server.server_close()


TRICKY = "ae\u0301\u0327\u00e9\u1100\u1161\u11a8\uac00\u2019\u201c\u2014\u2212 \t\n\r\u00a0\u3000\u2028\x1c\x85\ufeff"
TRICKY += "\U0001f389\U0001d49c\u0345\u0f73\u212b\u0958\u0915\u093c\u0903\u0b47\u0b3e-'\"x"


def test_normalization_in_javascript_matches_python(scripts_page: Any) -> None:
    page = scripts_page
    _import(page, "quote", "quote.js")
    js_norm = "t => { const [p, o] = quote.normalizePoints(t); return [p.join(''), o]; }"
    js_places = "([w, t]) => quote.quotePlaces(quote.normalizeQuote(w), t, 1000)"

    # Code points this Python's Unicode leaves unassigned are left out: the browser's may be newer
    # (a letter there, not here: '-' before U+31350, of Unicode 15, joined in JavaScript alone).
    assigned = st.characters(exclude_categories=("Cs", "Cn"))

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.text(alphabet=st.sampled_from(TRICKY) | assigned, max_size=40), st.data())
    def agree(text: str, data: st.DataObject) -> None:
        normalized, offsets = normalize_for_match(text)
        assert page.evaluate(js_norm, text) == [normalized, offsets]
        points = list(text)
        a = data.draw(st.integers(0, len(points)))
        b = data.draw(st.integers(a, len(points)))
        wanted = normalize("".join(points[a:b]))
        expected, at = [], normalized.find(wanted) if wanted else -1
        while at != -1:
            expected.append([offsets[at], _end_offset(offsets, at + len(wanted), text)])
            at = normalized.find(wanted, at + 1)
        assert page.evaluate(js_places, ["".join(points[a:b]), text]) == expected

    agree()
    assert page.evaluate("s => quote.normalizeQuote(s)", "  “Don’t” — stop\u00a0\n now ") == normalize(
        "  “Don’t” — stop\u00a0\n now "
    )


def test_banner_of_a_deleted_file_finds_its_text_in_another(corpus_repo: Any, tmp_path: Path, page: Any) -> None:
    old = corpus_repo.commit({"corpus/gone.md": _office(P_KEEP, P_AWAY), "corpus/reception.md": RECEPTION})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    corpus_repo.commit({"corpus/gone.md": None, "corpus/reception.md": f"{RECEPTION}\n{P_AWAY}\n"}, "fold in")
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    repo = GitRepo(corpus_repo.root)
    try:
        cite = Citation(old, "corpus/gone.md", lines=(5, 5))
        verdict = verify(cite, repo)
        attempt = Recoverer(Resolver(repo)).attempt(verdict)
        assert verdict.status == "drifted" and attempt is not None and attempt.new_citation is not None
        page.goto(_permalink(base, repo, old, "corpus/gone.md", "L5"))
        page.wait_for_selector("#banner[data-recovery]")
        assert page.get_attribute("#banner", "data-status") == "deleted"
        assert page.get_attribute("#banner", "data-recovery") == "moved"
        assert page.get_attribute("#banner", "data-suggestion") == attempt.new_citation.text_form()
        # A passage that went nowhere: deleted, and the banner says the text stands nowhere else.
        page.goto("about:blank")
        page.goto(_permalink(base, repo, old, "corpus/gone.md", "L3"))
        page.wait_for_selector("#banner[data-recovery]")
        assert page.get_attribute("#banner", "data-recovery") == "none"
        assert "stands nowhere else" in page.inner_text("#banner")
        gone = Recoverer(Resolver(repo)).attempt(verify(Citation(old, "corpus/gone.md", lines=(3, 3)), repo))
        assert gone is not None and gone.search is not None and gone.search.places == ()
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


# -- issue 16: a site readers keep open ----------------------------------------------------------


def _png(width: int = 3, height: int = 2) -> bytes:
    """A small valid PNG (red pixels), made here so the test needs no image library."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\0" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="window.__pwned=1">' + (
    '<script>window.__pwned = 2</script><rect width="40" height="20" fill="green"/></svg>'
)
LINKING = (
    "# Start here\n\nRead [the second part](sub/b%20doc.md#part-two), the [glossary][G] and the "
    "[table of terms](#terms), [its third line](#L3).\n\n![logo](img/logo.png) ![diagram](img/diagram.svg)\n\n"
    "Figures: [the sheet](data/figures.xlsx), [the feed](attach/feed.xml), [the table](data/figures.csv), "
    "[gone](missing.md), "
    '[outside](../../README.md).\n\n<a href="sub/b%20doc.md">raw link</a> <img src="img/logo.png" alt="raw">\n\n'
    "## Terms\n\nThe end.\n\n[G]: ../corpus/glossary.md\n"
)
B_DOC = "# B\n\n" + "".join(f"Filler paragraph {n}.\n\n" for n in range(60)) + "## Part two\n\nThe second part.\n"


SHEET = b"PK\x03\x04\x00\x00 a spreadsheet's bytes"


def test_links_between_documents_open_their_pages(corpus_repo: Any, tmp_path: Path, browser: Any) -> None:
    corpus_repo.commit(
        {
            "corpus/a.md": LINKING,
            "corpus/sub/b doc.md": B_DOC,
            "corpus/glossary.md": "# Glossary\n\nWords.\n",
            "corpus/img/logo.png": _png(),
            "corpus/img/diagram.svg": SVG,
            "corpus/data/figures.csv": "year,count\n2025,3\n",
            "corpus/data/figures.xlsx": SHEET,
            "corpus/attach/feed.xml": b'<feed xmlns="http://www.w3.org/2005/Atom">\x00<title>t</title></feed>',
            "README.md": "outside the corpus\n",
        }
    )
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site)
    broken = {(b["document"], b["link"]) for b in summary.site["broken_links"]}  # type: ignore[index]
    assert broken == {
        ("corpus/a.md", "missing.md"),
        ("corpus/a.md", "../../README.md"),
    }
    assert any("corpus/a.md: broken link 'missing.md'" in w for w in summary.warnings)
    # No SVG is served from the site: it reaches the page only as an <img> data: URL.
    assert not list(site.rglob("*.svg"))
    server, base = serve_in_thread(site)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    tab.on("pageerror", lambda exc: problems.append(str(exc)))
    try:
        tab.goto(base + "doc/corpus/a.md.html")
        images = tab.evaluate(
            "() => Array.from(document.querySelectorAll('#rendered img')).map(i => [i.alt, i.naturalWidth, "
            "i.getAttribute('src').slice(0, 40)])"
        )
        assert [(alt, width > 0) for alt, width, _ in images] == [("logo", True), ("diagram", True), ("raw", True)]
        assert images[1][2].startswith("data:image/svg+xml;base64,")
        assert tab.evaluate("() => window.__pwned || 0") == 0
        # Linked binary files are published beside the pages; one a browser would run (XML) as plain text.
        sheet = tab.get_attribute("#rendered a:text('the sheet')", "href")
        assert sheet is not None and sheet.startswith("../../files/") and sheet.endswith(".xlsx")
        assert (site / "doc/corpus" / sheet).resolve().read_bytes() == SHEET
        # A text file is a document (docs/design.md#d15): the link opens its page.
        assert tab.get_attribute("#rendered a:text('the table')", "href") == "../../doc/corpus/data/figures.csv.html"
        feed = tab.get_attribute("#rendered a:text('the feed')", "href")
        assert feed is not None and feed.endswith(".txt") and not list(site.rglob("*.xml"))
        # A broken link is no link at all.
        assert tab.locator("#rendered a:text('gone')").get_attribute("href") is None
        tab.click("#rendered a:text('table of terms')")
        tab.wait_for_function("() => location.hash === '#h-terms'")
        tab.click("#rendered a:text('the second part')")
        tab.wait_for_url(re.compile(r"/doc/corpus/sub/b%20doc\.md\.html#h-part-two$"))
        heading = tab.locator("#h-part-two")
        assert heading.is_visible() and 0 <= heading.bounding_box()["y"] < 800
        tab.go_back()
        tab.click("#rendered a:text('glossary')")
        tab.wait_for_url(re.compile(r"/doc/corpus/glossary\.md\.html$"))
        tab.go_back()
        tab.click("#rendered a:text('raw link')")
        tab.wait_for_url(re.compile(r"/doc/corpus/sub/b%20doc\.md\.html$"))
        tab.go_back()
        tab.click("#rendered a:text('its third line')")  # a span: the source view shows it
        tab.wait_for_function("() => location.hash === '#L3'")
        assert tab.locator("#L3").is_visible() and tab.locator("#L3.hl").count() == 1
        assert problems == []
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def test_a_later_build_mends_a_link_whose_target_arrived(corpus_repo: Any, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n\nSee [b](b.md).\n"})
    site = tmp_path / "site"
    first = build(corpus_repo.root, out=site)
    assert [b["link"] for b in first.site["broken_links"]] == ["b.md"]  # type: ignore[index]
    corpus_repo.commit({"corpus/b.md": "# B\n"})
    second = build(corpus_repo.root, out=site)
    assert second.site["broken_links"] == []  # type: ignore[index]
    assert 'href="../../doc/corpus/b.md.html"' in (site / "doc/corpus/a.md.html").read_text(encoding="utf-8")
    third = build(corpus_repo.root, out=site)
    assert third.site["pages_rendered"] == 0 and third.site["broken_links"] == []  # type: ignore[index]


XSS_RAW = (
    "# Raw HTML\n\n<!-- a comment line -->\n[Arc][Arc] in H<sub>2</sub>O and x<sup>2</sup>, press <kbd>Ctrl</kbd>.\n\n"
    '[Arc]: https://example.invalid/arc\n\n<details ontoggle="window.__pwned = 3" open><summary>More</summary>\n\n'
    'Hidden <b onmouseover="window.__pwned = 4">text</b>.\n\n</details>\n\n'
    '<svg onload="window.__pwned = 5"><script>window.__pwned = 6</script></svg>\n\n'
    '<iframe srcdoc="<script>parent.__pwned = 7</script>"></iframe>\n\n'
    '<a href="jav&#x09;ascript:window.__pwned = 8">tabbed</a> <a href="JAVASCRIPT:window.__pwned=9">caps</a>\n\n'
    '<img src="data:image/svg+xml,<svg onload=\'window.__pwned=10\'/>" alt="svg data">\n\n'
    '<div id="src">clobber the source view</div> <form action="https://evil.invalid"><button>go</button></form>\n\n'
    '<style>body { display: none }</style><object data="x.swf"></object><embed src="x.swf">\n'
)


def test_raw_html_renders_through_the_allowlist_and_stays_inert(served: Any, page: Any) -> None:
    repo, site, base = served
    repo.commit({"corpus/raw.md": XSS_RAW})
    build(repo.root, out=site)
    page.goto(base + "doc/corpus/raw.md.html")
    page.wait_for_timeout(200)
    rendered = page.locator("#rendered")
    assert rendered.locator("details summary").inner_text() == "More"
    assert rendered.locator("sub").inner_text() == "2" and rendered.locator("sup").inner_text() == "2"
    assert rendered.locator("kbd").inner_text() == "Ctrl"
    # The comment is gone and the reference definition after it made a link.
    assert rendered.locator("a:text('Arc')").get_attribute("href") == "https://example.invalid/arc"
    assert "comment line" not in rendered.inner_html()
    page.hover("#rendered b")
    page.click("#rendered summary")  # closing and opening toggles it
    page.click("#rendered summary")
    report = page.evaluate(
        """() => ({
            pwned: window.__pwned || 0,
            handlers: Array.from(document.querySelectorAll('*')).flatMap(
                el => Array.from(el.attributes).filter(a => a.name.startsWith('on')).map(a => a.name)),
            active: document.querySelectorAll('#rendered :is(script, svg, iframe, form, style, object, embed)').length,
            jsLinks: Array.from(document.querySelectorAll('#rendered a')).filter(
                a => /script:/i.test((a.getAttribute('href') || '').replace(/\\s/g, ''))).length,
            srcs: Array.from(document.querySelectorAll('#rendered img')).map(i => i.getAttribute('src')),
            sourceView: document.getElementById('src').tagName,
            ids: Array.from(document.querySelectorAll('#rendered [id]')).map(e => e.id),
        })"""
    )
    assert report["pwned"] == 0 and report["handlers"] == [] and report["active"] == 0, report
    # The SVG data: image lost its source, so it is its alt text (no broken-image icon).
    assert report["jsLinks"] == 0 and report["srcs"] == [], report
    assert rendered.locator(".broken-image:text('[image: svg data]')").count() == 1
    assert report["sourceView"] == "OL" and all(i.startswith("h-") for i in report["ids"]), report
    assert page.errors == []


def test_copy_buttons_are_labelled_by_what_they_copy(served: Any, browser: Any) -> None:
    _repo, _site, base = served
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    try:
        tab.goto(base + "doc/corpus/policy.txt.html#L4")
        buttons = tab.locator("#cite button").all_inner_texts()
        labels = [b for b in buttons if b.lower().startswith(("cite", "copy"))]
        assert len(labels) == len(set(labels)), labels  # no two buttons share a label
        tab.click("#cite-open")
        clip = "() => navigator.clipboard.readText()"
        assert "permalink" in tab.inner_text("#cite-open").lower()
        tab.wait_for_function(f"async () => (await ({clip})()).includes('/v/')")
        expected = {
            "Copy permalink": tab.input_value("#cite-permalink"),
            "Copy text form": tab.input_value("#cite-text"),
            "Copy Markdown": tab.input_value("#cite-markdown"),
        }
        for label, value in expected.items():
            tab.click(f"#cite button:text-is('{label}')")
            tab.wait_for_function(f"async (v) => (await ({clip})()) === v", arg=value)
        assert parse_text_form(expected["Copy text form"]).lines == (4, 4)
        assert expected["Copy permalink"].startswith(base + "v/")
    finally:
        context.close()


LONG_POLICY = "".join(f"line {n} of the long policy\n" for n in range(1, 151))


def _long_policy_site(corpus_repo: Any, tmp_path: Path) -> tuple[Path, str]:
    old = corpus_repo.commit({"corpus/long.txt": LONG_POLICY})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    corpus_repo.commit({"corpus/long.txt": LONG_POLICY.replace("line 97 of", "line ninety-seven, reworded, of")})
    build(corpus_repo.root, out=site)
    return site, old


def _boxes(tab: Any, line: str) -> dict[str, Any]:
    return tab.evaluate(
        """(line) => {
            const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
            return {banner: box(document.getElementById('banner')), line: box(document.getElementById(line)),
                    height: window.innerHeight};
        }""",
        line,
    )


@contextlib.contextmanager
def _served_long_policy(corpus_repo: Any, tmp_path: Path) -> Iterator[str]:
    """The long policy's site served on 127.0.0.1: the permalink of its old version's line 97."""
    site, old = _long_policy_site(corpus_repo, tmp_path)
    server, base = serve_in_thread(site)
    try:
        yield _permalink(base, GitRepo(corpus_repo.root), old, "corpus/long.txt", "L97")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)])
def test_the_verdict_stays_in_view_with_the_cited_lines(
    corpus_repo: Any, tmp_path: Path, browser: Any, viewport: tuple[int, int]
) -> None:
    width, height = viewport
    with _served_long_policy(corpus_repo, tmp_path) as link:
        for javascript in (True, False):
            context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=javascript)
            tab = context.new_page()
            tab.goto(link)
            if javascript:
                tab.wait_for_selector("#banner[data-status='changed']")
                tab.wait_for_timeout(100)
            seen = _boxes(tab, "L97")
            banner, line = seen["banner"], seen["line"]
            # The verdict is on screen, and the cited line is below it, on screen too.
            assert banner["top"] >= -1 and banner["bottom"] <= seen["height"], (javascript, seen)
            assert line["top"] >= banner["bottom"] - 1 and line["bottom"] <= seen["height"], (javascript, seen)
            if javascript:
                assert "changed" in tab.inner_text("#banner .banner-title")
                tab.mouse.wheel(0, 600)  # reading on: the verdict stays
                tab.wait_for_timeout(200)
                assert -1 <= _boxes(tab, "L97")["banner"]["top"] <= 1
                if width < 640:  # the bar opens to the whole verdict and the diff
                    assert not tab.locator("#banner .banner-body").is_visible()
                    tab.click("#banner .banner-toggle")
                    assert tab.locator("#banner .banner-body").is_visible()
                    assert tab.get_attribute("#banner .banner-toggle", "aria-expanded") == "true"
            context.close()


# A browser without `:has()` drops each rule whose selector holds it: the stylesheets without them.
DROP_HAS = """() => {
    const drop = (list) => {
        for (let i = list.cssRules.length - 1; i >= 0; i--) {
            const rule = list.cssRules[i];
            if (rule.selectorText && rule.selectorText.includes(":has(")) list.deleteRule(i);
            else if (rule.cssRules) drop(rule);
        }
    };
    for (const sheet of document.styleSheets) drop(sheet);
}"""


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)])
def test_a_cited_line_stops_below_the_banner_in_a_browser_without_has(
    corpus_repo: Any, tmp_path: Path, browser: Any, viewport: tuple[int, int]
) -> None:
    width, height = viewport
    with _served_long_policy(corpus_repo, tmp_path) as link:
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            tab = context.new_page()
            tab.goto(link)
            tab.wait_for_selector("#banner[data-status='changed']")
            tab.evaluate(DROP_HAS)
            # As the browser scrolls to the line an address names (the page's script may scroll after it).
            tab.evaluate("() => document.getElementById('L60').scrollIntoView()")
            tab.wait_for_timeout(200)
            seen = _boxes(tab, "L60")
            margin = tab.evaluate("() => getComputedStyle(document.getElementById('L60')).scrollMarginTop")
            assert seen["line"]["top"] >= seen["banner"]["bottom"] - 1, (seen, margin)
        finally:
            context.close()


WIDE = (
    "# Wide things\n\nA long address: https://example.invalid/" + "a-very-long-path-segment" * 8 + "\n\n"
    "Inline code: `"
    + "some_extremely_long_identifier_name" * 4
    + "` and a word "
    + "Donaudampfschifffahrtsgesellschaft" * 3
    + ".\n\n| name | value | note |\n|---|---|---|\n"
    + "".join(f"| row {n} | {'x' * 60} | {'note ' * 12} |\n" for n in range(3))
    + "\n```python\n"
    + "result = compute("
    + ", ".join(f"argument_{n}" for n in range(25))
    + ")\n```\n\n"
    "```\nshort\n```\n"
)


def test_document_pages_fit_a_phone(corpus_repo: Any, tmp_path: Path, browser: Any) -> None:
    corpus_repo.commit({"corpus/wide.md": WIDE, "corpus/" + "long-folder-name/" * 4 + "x.md": "# X\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    try:
        deep = "doc/corpus/" + "long-folder-name/" * 4 + "x.md.html"
        for rel in ("doc/corpus/wide.md.html", deep, "index.html", "search.html"):  # search: the folder filter
            tab.goto(base + rel)
            assert tab.evaluate("() => document.documentElement.scrollWidth") <= 390, rel
        tab.goto(base + "doc/corpus/wide.md.html")
        table = tab.locator("#rendered .table-wrap")
        assert table.evaluate("el => el.scrollWidth > el.clientWidth")  # it scrolls in its own box
        assert table.evaluate("el => el.getBoundingClientRect().right") <= 390
        code = tab.locator("#rendered pre.code").first
        short = tab.locator("#rendered pre.code").nth(1)
        assert code.get_attribute("tabindex") == "0" and short.get_attribute("tabindex") is None
        code.focus()
        tab.keyboard.press("End")
        tab.keyboard.press("ArrowRight")
        tab.wait_for_function("() => document.querySelector('#rendered pre.code').scrollLeft > 0")
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def _contrast(a: list[float], b: list[float]) -> float:
    def lum(rgb: list[float]) -> float:
        c = [v / 255 for v in rgb[:3]]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


CODE_MD = (
    "# Code\n\n```python\n@decorated\ndef f(x: int) -> str:\n    '''Doc.'''\n    # comment\n"
    "    return str(len([1, 2.5])) if x else None\n```\n\n```diff\n--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n```\n\n"
    '```html\n<a href="x">t</a>\n```\n'
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_code_is_highlighted_with_readable_colours(corpus_repo: Any, tmp_path: Path, browser: Any, scheme: str) -> None:
    corpus_repo.commit({"corpus/code.md": CODE_MD})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    context = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    tab = context.new_page()
    try:
        tab.goto((site / "doc/corpus/code.md.html").as_uri())
        colours = tab.evaluate(
            """() => {
                const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
                return Array.from(document.querySelectorAll('#rendered pre.code [class^="tk-"]')).map(el => [
                    el.className, rgb(getComputedStyle(el).color),
                    rgb(getComputedStyle(el.closest('pre')).backgroundColor)]);
            }"""
        )
        kinds = {kind for kind, _, _ in colours}
        assert {"tk-k", "tk-f", "tk-s", "tk-c", "tk-m", "tk-b", "tk-gd", "tk-gi", "tk-t", "tk-a"} <= kinds, kinds
        for kind, colour, background in colours:
            assert _contrast(colour, background) >= 4.5, (scheme, kind, colour, background)
        assert len({tuple(colour) for _, colour, _ in colours}) >= 7  # drawn in colours, not plain text
        scripts = tab.evaluate("() => Array.from(document.scripts).map((s) => s.getAttribute('src'))")
        assert [s.rsplit("/", 1)[1] for s in scripts] == ["pincite.js"]  # no highlighter runs
    finally:
        context.close()


LONG_DOC = "# Handbook\n\n" + "".join(
    f"## Chapter {n}\n\n"
    + "".join(f"Paragraph {n}.{k} of the chapter.\n\n" for k in range(8))
    + f"### Notes {n}\n\nA note.\n\n"
    for n in range(1, 7)
)


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)])
def test_long_pages_have_a_table_of_contents(
    corpus_repo: Any, tmp_path: Path, browser: Any, viewport: tuple[int, int]
) -> None:
    corpus_repo.commit({"corpus/long.md": LONG_DOC, "corpus/short.md": "# Short\n\n## A\n\n## B\n\n## C\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    try:
        tab.goto((site / "doc/corpus/short.md.html").as_uri())
        assert tab.locator(".toc").count() == 0
        tab.goto((site / "doc/corpus/long.md.html").as_uri())
        toc = tab.locator(".toc-side" if width > 1000 else ".toc-inline")
        assert toc.is_visible() and tab.locator(".toc:visible").count() == 1
        if width < 1000:
            tab.click(".toc-inline summary")
        entries = toc.locator("a").all_inner_texts()
        assert entries[:3] == ["Chapter 1", "Notes 1", "Chapter 2"] and len(entries) == 12
        toc.locator("a:text-is('Chapter 5')").click()
        tab.wait_for_function("() => location.hash === '#h-chapter-5'")
        assert 0 <= tab.locator("#h-chapter-5").bounding_box()["y"] < height / 2
        if width > 1000:  # the column stays beside the text while the reader scrolls
            assert toc.is_visible() and toc.bounding_box()["y"] >= 0
        assert tab.evaluate("() => document.documentElement.scrollWidth") <= width
    finally:
        context.close()


def test_a_citation_copied_from_an_html_page_names_its_identity_across_an_upgrade(
    corpus_repo: Any, tmp_path: Path, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.api import resolve as api_resolve
    from indexer.extract.html import HtmlExtractor
    from indexer.text.citation import identity_token
    from tests.extract_samples import ARTICLE, html_page
    from tests.test_extractor_identity import NOTICE, QUOTE, upgrade_html_extractor

    corpus_repo.commit({"corpus/expenses.html": html_page(ARTICLE)})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    # The site is rebuilt under the same URLs mid-test: the browser must not answer from its cache.
    page.set_extra_http_headers({"Cache-Control": "no-cache"})
    try:

        def copy_citation() -> tuple[Citation, str]:
            page.goto(base + "doc/corpus/expenses.html.html")
            _select(page, QUOTE)
            page.click("#cite-open")
            return parse_text_form(page.input_value("#cite-text")), page.input_value("#cite-permalink")

        old, old_link = copy_citation()
        old_token = identity_token(HtmlExtractor().identity())
        assert old.identity_token == old_token and f"&x={old_token}#" in old_link
        assert parse_permalink(old_link)[0].identity_token == old_token
        assert resolve(old, GitRepo(corpus_repo.root)).text == QUOTE
        page.goto(old_link)
        assert page.locator("mark.cited").all_inner_texts() == [QUOTE]

        upgrade_html_extractor(monkeypatch)
        build(corpus_repo.root, out=site)
        new, new_link = copy_citation()
        assert new.identity_token == identity_token(HtmlExtractor().identity()) != old_token
        assert new.chars is not None and old.chars is not None and new.chars[0] == old.chars[0] + len(NOTICE)
        assert resolve(new, GitRepo(corpus_repo.root)).text == QUOTE
        # The version page now shows the new identity's text: the old permalink fails closed there,
        # and pincite still resolves it to exactly its text from the index.
        page.goto(old_link)
        page.wait_for_selector("#banner[data-status='unresolvable']")
        assert f"x={old_token}" in page.inner_text("#banner") and page.locator("mark.cited").count() == 0
        assert api_resolve(old_link, corpus_repo.root).resolved.text == QUOTE
        page.goto(new_link)
        assert page.locator("mark.cited").all_inner_texts() == [QUOTE]
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


ADOC = (
    "= Release <script>window.__pwned = 1</script> handbook\n:owner: engineering\n\n"
    + "".join(
        f"== Part {n}\n\n" + "".join(f"Paragraph {n}.{k} of the release handbook.\n\n" for k in range(8))
        for n in range(1, 4)
    )
    + "=== Notes <b>bold</b> & more\n\n----\n== Not a section (inside a listing)\n----\n\nClosing words.\n"
)


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)])
def test_the_asciidoc_outline_lands_on_the_heading_line(
    corpus_repo: Any, tmp_path: Path, browser: Any, viewport: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.site import asciidoc_view

    # The outline is the page's view where Asciidoctor is not installed (tests/test_asciidoc_view.py renders).
    monkeypatch.setattr(asciidoc_view, "available", lambda: False)
    corpus_repo.commit({"corpus/release.adoc": ADOC})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    lines = ADOC.split("\n")
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    server, base = serve_in_thread(site)
    try:
        tab.goto(base + "doc/corpus/release.adoc.html")
        outline = tab.locator("nav.outline")
        assert outline.is_visible()
        entries = outline.locator("a").all_inner_texts()
        assert entries == [
            "Release <script>window.__pwned = 1</script> handbook",
            "Part 1",
            "Part 2",
            "Part 3",
            "Notes <b>bold</b> & more",
        ]
        assert outline.locator("script, b").count() == 0  # the titles are text, not markup
        assert tab.evaluate("() => window.__pwned === undefined")
        line = lines.index("== Part 3") + 1
        outline.locator("a:text-is('Part 3')").click()
        tab.wait_for_function(f"() => location.hash === '#L{line}'")
        target = tab.locator(f"#L{line}")
        assert target.inner_text().strip() == "== Part 3"
        assert tab.evaluate("() => document.querySelector(':target').id") == f"L{line}"
        box = target.bounding_box()
        assert box is not None and 0 <= box["y"] < height / 2
        assert tab.evaluate("() => document.documentElement.scrollWidth") <= width
        assert errors == []
    finally:
        context.close()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)])
def test_a_pdf_page_keeps_its_title_clear_of_the_banner_and_its_lines_aligned(
    corpus_repo: Any, tmp_path: Path, browser: Any, viewport: tuple[int, int]
) -> None:
    from extract_samples import pdf_with_page_numbers

    paragraphs = [f"Messages are delivered to every replica of the log, number {n}." for n in range(6)]
    commit = corpus_repo.commit({"corpus/paper.pdf": pdf_with_page_numbers([paragraphs] * 3)})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    server, base = serve_in_thread(site)
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    try:
        tab = context.new_page()
        tab.goto(_permalink(base, GitRepo(corpus_repo.root), commit, "corpus/paper.pdf", "L3"))
        tab.wait_for_selector("#banner[data-status]")
        tab.wait_for_timeout(300)  # the browser's own scroll to the address's line, after load
        title, banner = tab.locator("h1").bounding_box(), tab.locator("#banner").bounding_box()
        assert title is not None and banner is not None
        assert title["y"] >= banner["y"] + banner["height"]  # a line of the first screen: the title shows
        # The first line after a page marker starts where every other line does.
        starts = tab.evaluate(
            """() => [...document.querySelectorAll('#src > li')].filter((li) => li.textContent.trim()).map((li) => {
                const range = document.createRange();
                const text = [...li.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
                range.setStart(text, 0); range.setEnd(text, 1);
                return Math.round(range.getBoundingClientRect().left);
            })"""
        )
        assert len(starts) >= 12 and len(set(starts)) == 1, starts
    finally:
        context.close()
        server.shutdown()
        server.server_close()
