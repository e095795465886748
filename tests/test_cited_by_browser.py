"""'Cited by' in a real browser (Debian chromium, Playwright), wide and narrow, script on and off:
the cited document's page names the citing memo's line and verdict, and the gutter mark links to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.api import build
from indexer.site.serve import serve_in_thread
from tests.conftest import CorpusRepo

POLICY = "# Policy\n\n" + "".join(f"Rule {n}: keep record {n} for {n} years.\n\n" for n in range(1, 30))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    repo = CorpusRepo(tmp_path_factory.mktemp("cited") / "repo")
    pinned = repo.commit({".gitignore": "_site/\n.pincite/\n", "corpus/policy.md": POLICY})
    repo.commit({"corpus/memo.md": f'# Memo\n\nWe keep "record 20 for 20 years" (corpus/policy.md@{pinned}#L41).\n'})
    build(repo.root)
    server, base = serve_in_thread(repo.root / "_site")
    yield str(base)
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
@pytest.mark.parametrize("script", [True, False], ids=["js", "no-js"])
def test_cited_by_names_the_memo_and_the_gutter_mark_links_to_it(
    browser: Any, site: str, width: int, height: int, script: bool
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=script)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.goto(f"{site}doc/corpus/policy.md.html")
    item = tab.locator("#cited-by li").first
    assert item.is_visible()
    assert "corpus/memo.md:3" in item.inner_text() and "verified" in item.inner_text()
    assert "line 41" in item.inner_text()
    if script and tab.locator("#tab-source").count():
        tab.click("#tab-source")
    mark = tab.locator("#L41 .cite-mark")
    mark.scroll_into_view_if_needed()
    box = mark.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, "the mark stays on the screen"
    # The script's line-number link is still made, and the mark sits in the gutter's left edge,
    # clear of the (right-aligned) number.
    number = tab.locator("#L41 > a:not(.pg)")
    if script:
        number_box = number.bounding_box()
        assert number_box is not None and box["x"] + box["width"] < number_box["x"] + number_box["width"] / 2
    assert tab.evaluate("document.documentElement.scrollWidth") <= width, "the page does not widen"
    shot = Path("/tmp/cited-by-shots")
    shot.mkdir(exist_ok=True)
    tab.screenshot(path=str(shot / f"policy-{width}-{'js' if script else 'nojs'}.png"))
    mark.click()
    tab.wait_for_url("**/doc/corpus/memo.md.html#L3")
    assert tab.locator("#L3").is_visible()
    assert errors == []
    context.close()
