"""What a reader sees of the word diff, the Copy buttons and previous/next, in chromium at a
desktop's and a phone's width, with JavaScript on and off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from indexer.api import build
from indexer.site.history_pages import diff_page_path
from indexer.site.serve import serve_in_thread
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

WIDTHS = [(1280, 800), (390, 844)]
LONG = (
    "Personnel records of every department are kept on the secure archive server for a period of "
    "seven years after the departure of the employee concerned"
)
POLICY = "# Retention\n\n" + LONG + ".\n\nOther text.\n"
GUIDE = "# Guide\n\nRun this:\n\n```python\nprint('<b>hi</b>')\nx = 1\n```\n\nThe end.\n"
NO_OVERFLOW = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], Path]]:
    root = tmp_path_factory.mktemp("repo")
    repo = CorpusRepo(root)
    first = repo.commit(
        {"corpus/a-policy.md": POLICY, "corpus/b-guide.md": GUIDE, "corpus/c-notes.txt": "notes\n"}, "start"
    )
    second = repo.commit({"corpus/a-policy.md": POLICY.replace("seven years", "ten years")}, "edit")
    out = tmp_path_factory.mktemp("site") / "site"
    build(root, out=out)
    git = GitRepo(root)
    blobs = [git.blob_at(c, "corpus/a-policy.md") for c in (first, second)]
    assert blobs[0] is not None and blobs[1] is not None
    urls = {
        "permalink": f"v/{blobs[0].sha}.html?commit={first}&path={quote('corpus/a-policy.md')}#L3",
        "diff": diff_page_path(blobs[0].sha, blobs[1].sha),
    }
    server, base = serve_in_thread(out)
    yield base, urls, out
    server.shutdown()
    server.server_close()


def _tab(browser: Any, size: tuple[int, int], js: bool = True, **options: Any) -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, java_script_enabled=js, **options)
    tab = context.new_page()
    tab.errors = []
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    return tab


@pytest.mark.parametrize("size", WIDTHS)
def test_the_banner_marks_the_changed_word_at_the_end_of_a_long_line(
    site: Any, browser: Any, size: tuple[int, int], tmp_path: Path
) -> None:
    base, urls, _out = site
    tab = _tab(browser, size)
    try:
        tab.goto(base + urls["permalink"])
        tab.wait_for_selector("#banner[data-status='changed']")
        if tab.locator(".banner-toggle").is_visible():  # a phone: the bar opens on Details
            tab.click(".banner-toggle")
        if tab.locator("#banner details").count():  # too tall to show open: under "Show the change"
            tab.click("#banner details summary")
        deleted, inserted = tab.locator("#banner .hunk del"), tab.locator("#banner .hunk ins")
        assert deleted.all_inner_texts() == ["seven"] and inserted.all_inner_texts() == ["ten"]
        inserted.scroll_into_view_if_needed()
        assert inserted.is_visible() and deleted.is_visible()
        box, line = inserted.bounding_box(), tab.locator("#banner .hunk").bounding_box()
        assert box is not None and line is not None
        assert line["x"] <= box["x"] and box["x"] + box["width"] <= line["x"] + line["width"] + 1  # not cut off
        assert tab.evaluate(NO_OVERFLOW)
        tab.screenshot(path=str(tmp_path / f"banner-{size[0]}.png"))
        assert tab.errors == []
    finally:
        tab.context.close()


@pytest.mark.parametrize("size", WIDTHS)
def test_a_diff_page_marks_the_changed_words_without_javascript(site: Any, browser: Any, size: tuple[int, int]) -> None:
    base, urls, _out = site
    tab = _tab(browser, size, js=False)
    try:
        tab.goto(base + urls["diff"])
        assert tab.locator("pre.diff del").all_inner_texts() == ["seven"]
        assert tab.locator("pre.diff ins").all_inner_texts() == ["ten"]
        assert tab.locator("pre.diff ins").is_visible()  # the long line wraps: its end is on screen
        background = tab.eval_on_selector("pre.diff ins", "e => getComputedStyle(e).backgroundColor")
        assert background not in ("rgba(0, 0, 0, 0)", "transparent")
        assert tab.evaluate(NO_OVERFLOW)
    finally:
        tab.context.close()


@pytest.mark.parametrize("size", WIDTHS)
def test_the_copy_button_copies_the_code_and_stays_out_of_the_text(site: Any, browser: Any, size: tuple[int, int]):
    base, _urls, _out = site
    tab = _tab(browser, size, permissions=["clipboard-read", "clipboard-write"])
    try:
        tab.goto(base + "doc/corpus/b-guide.md.html")
        button = tab.locator("#rendered .copy-code")
        assert button.count() == 1 and button.is_visible()
        code = tab.locator("#rendered pre").first
        assert "Copy" not in code.text_content() and "Copy" not in tab.locator("#rendered").text_content()
        box, pre = button.bounding_box(), code.bounding_box()
        assert box is not None and pre is not None
        assert pre["x"] < box["x"] and box["x"] + box["width"] <= pre["x"] + pre["width"]  # over its corner
        assert pre["y"] <= box["y"] <= pre["y"] + 20
        button.click()
        tab.wait_for_selector("#rendered .copy-code[data-state='copied']")
        assert tab.evaluate("() => navigator.clipboard.readText()") == "print('<b>hi</b>')\nx = 1"
        assert tab.evaluate("() => getComputedStyle(document.querySelector('.copy-code'), '::before').content")
        assert tab.evaluate(NO_OVERFLOW)
        assert tab.errors == []
    finally:
        tab.context.close()
    plain = _tab(browser, size, js=False)
    try:
        plain.goto(base + "doc/corpus/b-guide.md.html")
        assert plain.locator(".copy-code").count() == 0  # no button that cannot work
        assert "print('<b>hi</b>')" in plain.locator("#rendered pre").first.inner_text()
    finally:
        plain.context.close()


@pytest.mark.parametrize("js", [True, False])
@pytest.mark.parametrize("size", WIDTHS)
def test_previous_and_next_lead_through_the_folder(site: Any, browser: Any, size: tuple[int, int], js: bool) -> None:
    base, _urls, _out = site
    tab = _tab(browser, size, js=js)
    try:
        tab.goto(base + "doc/corpus/b-guide.md.html")
        prev, nxt = tab.locator(".pager a[rel=prev]"), tab.locator(".pager a[rel=next]")
        assert prev.inner_text().split("\n")[-1] == "Retention" and nxt.inner_text().split("\n")[-1] == "c-notes.txt"
        assert prev.is_visible() and nxt.is_visible()
        a, b = prev.bounding_box(), nxt.bounding_box()
        assert a is not None and b is not None and a["x"] < b["x"]  # previous on the left, next on the right
        assert tab.evaluate(NO_OVERFLOW)
        nxt.click()
        tab.wait_for_url("**/doc/corpus/c-notes.txt.html")
        assert tab.locator(".pager a[rel=next]").count() == 0
        assert tab.locator(".pager a[rel=prev]").inner_text().endswith("Guide")
    finally:
        tab.context.close()


@pytest.mark.parametrize("size", WIDTHS)
def test_the_home_and_history_pages_fit_the_screen(site: Any, browser: Any, size: tuple[int, int]) -> None:
    base, _urls, _out = site
    tab = _tab(browser, size)
    try:
        for page in ("index.html", "changes/corpus/a-policy.md.html"):
            tab.goto(base + page)
            assert tab.evaluate(NO_OVERFLOW), page
        assert tab.locator("header .searchbox input").is_visible()  # the history page searches too
    finally:
        tab.context.close()


def test_print_leaves_the_chrome_off_and_keeps_the_document(site: Any, browser: Any) -> None:
    base, _urls, _out = site
    tab = _tab(browser, (1280, 800))
    try:
        tab.goto(base + "doc/corpus/b-guide.md.html")
        tab.emulate_media(media="print")
        for hidden in ("body > header", ".searchbox", ".views", ".pager", ".copy-code", "#cite-open"):
            if tab.locator(hidden).count():
                assert not tab.locator(hidden).first.is_visible(), hidden
        assert tab.locator("#rendered pre").first.is_visible()
        assert tab.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    finally:
        tab.context.close()
