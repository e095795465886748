"""Debian's chromium as the browser tests and the benchmarks launch it (Playwright cannot download browsers here)."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

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
