"""Debian's chromium as the browser tests and the benchmarks launch it (Playwright cannot download browsers here)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# A desktop's window and a phone's, the widths a reader's pages are checked at.
READER_VIEWPORTS = ((1280, 800), (390, 844))


@contextmanager
def served(site: Path) -> Iterator[str]:
    """The built `site` served on 127.0.0.1 for the block's duration: its base URL."""
    from indexer.site.serve import serve_in_thread

    server, base = serve_in_thread(site)
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()


# Select the first occurrence of `needle` in the first element matching `selector` that holds it,
# as a reader would by dragging over it; false when no such element holds it.
SELECT_TEXT = """([selector, needle]) => {
    const root = Array.from(document.querySelectorAll(selector)).find(el => el.textContent.includes(needle));
    if (!root) return false;
    const at = root.textContent.indexOf(needle);
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let seen = 0, node, start = null, end = null;
    while ((node = walker.nextNode())) {
        const len = node.data.length;
        if (!start && at < seen + len) start = [node, at - seen];
        if (at + needle.length <= seen + len) { end = [node, at + needle.length - seen]; break; }
        seen += len;
    }
    const range = document.createRange();
    range.setStart(...start);
    range.setEnd(...end);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
}"""

# The first block of a rendered view that holds the words (a selection within one block).
SELECT_IN_RENDERED = "#rendered [data-line-start]"


def cited_source_of_selection(tab: Any, repo: Path, needle: str, selector: str = SELECT_IN_RENDERED) -> str:
    """Select `needle` on the open page as a reader would, cite it with the page's Cite dialog and
    return the text `pincite resolve` gives for the copied citation (the dialog is closed again)."""
    from indexer.citations.resolve import resolve
    from indexer.text.citation import parse_text_form
    from indexer.vcs.repo import GitRepo

    assert tab.evaluate(SELECT_TEXT, [selector, needle]), needle
    tab.click("#cite-open")
    copied = tab.input_value("#cite-text")
    citation = parse_text_form(copied)
    assert citation.chars is not None, copied  # a span of characters, not the whole line
    text = resolve(citation, GitRepo(repo)).text
    tab.keyboard.press("Escape")
    return text
