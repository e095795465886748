"""A PDF version page's pages as printed: the images, the word boxes and the static highlight.

For a PDF version the build publishes, under `pages/<blob>/`, each rendered page's image
(`N.png`), its word boxes (`N.json`, decoded by `static/pdf-pages.js`) and `lines.css`, and the
version page holds one figure per page beside the text (`figures`). Pages, boxes and the
renderer are extract/pdf_pages.py's; this module only places them.

Without JavaScript the page of a cited line still shows, with that line's words boxed: each
figure carries, for every text line on it, an SVG group of rectangles (`<g class="s lN">`),
hidden by default; `lines.css` has one rule per such line, `.pdf-view:has(#LN:target)
:is(#ppP, .lN) {display: block}`, which shows the figure and the group when the permalink's
`#LN` is the target. A character span needs the script, as it does in the text view. SVG
attributes, not inline styles, place the boxes: the site's Content-Security-Policy refuses
inline styles.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

from indexer.extract import pdf_pages as renderer
from indexer.extract.ocr import ocr_pages
from indexer.extract.pdf_pages import PageImage, page_texts
from indexer.text.model import lines_label

PAGES_DIR = "pages"
# Runs of one text line further apart than this many line heights are two boxes (two columns).
_MERGE_GAP = 1.5


@dataclass(frozen=True)
class Published:
    """What a version page needs to show a PDF's pages (the files are written already)."""

    blob: str
    pages: tuple[PageImage, ...]
    page_spans: tuple[tuple[int, int], ...]  # (start, end) of each page's text, document offsets
    line_starts: tuple[int, ...]
    recognized: frozenset[int] = frozenset()  # pages whose words OCR read from the image
    page_count: int = 0  # the PDF's pages; those not in `pages` are shown as text only
    cut_by_budget: str = ""  # why some pages have no image (the byte budget), else ""
    left_out: tuple[int, ...] = ()  # the numbers of the pages the byte budget left out


def key(max_pages: int, budget: float = 0.0) -> str:
    """What the published pages depend on besides the version: the version page's reuse key adds it."""
    if max_pages <= 0 or not renderer.available():
        return "pages=off"
    return f"pages={max_pages} budget={budget:g} {renderer.renderer_identity()}"


def byte_budget(pdf_bytes: int, budget: float) -> int:
    """The bytes a PDF's pages as printed may take in the site: `budget` times the PDF's; 0: no limit."""
    return max(1, int(pdf_bytes * budget)) if budget > 0 else 0


def within_budget(pages: Sequence[tuple[PageImage, int, str]], max_bytes: int) -> int:
    """How many of `pages` (each with its boxes' JSON and its rules of lines.css) fit in `max_bytes`."""
    spent = 0
    for count, (page, boxes, css) in enumerate(pages):
        spent += len(page.png) + boxes + len(css.encode("utf-8"))
        if max_bytes and spent > max_bytes:
            return count
    return len(pages)


def cited_pages(
    line_starts: Sequence[int], page_spans: Sequence[tuple[int, int]], lines: Iterable[tuple[int, int]]
) -> set[int]:
    """The numbers (from 1) of the pages that hold any of the text lines `lines` (first, last; from 1)."""
    starts = [start for start, _end in page_spans]
    found: set[int] = set()
    for first, last in lines:
        if first < 1 or first > len(line_starts):
            continue
        begin = line_starts[first - 1]
        end = line_starts[last] - 1 if last < len(line_starts) else page_spans[-1][1]
        found.update(range(bisect.bisect_right(starts, begin), bisect.bisect_right(starts, max(begin, end)) + 1))
    return {n for n in found if n >= 1}


def publish(
    out: Path,
    blob: str,
    read: Callable[[], bytes],
    text: str,
    page_starts: Sequence[int],
    identity: str,
    max_pages: int,
    cache_root: Path | None,
    notes: Sequence[str] = (),
    *,
    pdf_bytes: int = 0,
    budget: float = 0.0,
    cited_lines: Sequence[tuple[int, int]] = (),
) -> Published | None:
    """Render (or take from the cache) and write the pages of one PDF version; None when off or unrenderable.

    The pages' images, boxes and rules of lines.css take at most `budget` times the PDF's
    `pdf_bytes` (0: no limit), spent first on the pages that hold `cited_lines` (the lines of
    this version that citations in the repository name), then on the others from page 1: the
    pages past the last that fits are shown as text only, and `Published.cut_by_budget` says
    which and why. A PDF PDFium cannot open costs its page images, never the build: the text
    view stays.
    """
    if max_pages <= 0 or not renderer.available():
        return None
    max_bytes = byte_budget(pdf_bytes, budget)
    spans = tuple((start, start + len(page)) for start, page in page_texts(text, page_starts))
    line_starts = (0, *(i + 1 for i, ch in enumerate(text) if ch == "\n"))
    first = cited_pages(line_starts, spans, cited_lines)
    try:
        pages = renderer.cached_render(
            cache_root, blob, read, text, page_starts, identity, max_pages,
            keep=cache_root is not None, max_bytes=max_bytes, first=first,
        )  # fmt: skip
    except Exception:  # PDFium's errors for a damaged file; pypdf read it, so its text stands
        return None
    recognized = frozenset(ocr_pages(notes))
    costs = []
    for page in pages:
        start = spans[page.number - 1][0]
        alone = Published(blob, (page,), ((start, start),), line_starts)
        boxes = len(json.dumps(page.boxes_json(start), separators=(",", ":")).encode("utf-8"))
        costs.append((page, boxes, _lines_css(alone)))
    kept = within_budget(costs, max_bytes)
    shown = sorted(pages[:kept], key=lambda page: page.number)
    left_out = sorted(set(renderer.page_order(len(spans), max_pages, first)) - {page.number for page in shown})
    cut = ""
    if left_out:
        cut = (
            f"its page images may take at most {budget:g}× the PDF's {pdf_bytes:,} bytes in the site "
            f"(pdf_page_budget), and {_not_fitting(left_out) if shown else 'no page fits'}"
            + (" (the cited pages go first)" if first else "")
        )
    if not shown and not cut:
        return None
    published = Published(
        blob, tuple(shown), tuple(spans[page.number - 1] for page in shown), line_starts, recognized,
        page_count=len(spans), cut_by_budget=cut, left_out=tuple(left_out),
    )  # fmt: skip
    if not shown:
        return published
    folder = out / PAGES_DIR / blob
    folder.mkdir(parents=True, exist_ok=True)
    for page, (start, _end) in zip(published.pages, published.page_spans, strict=True):
        (folder / f"{page.number}.png").write_bytes(page.png)
        boxes_json = json.dumps(page.boxes_json(start), separators=(",", ":"))
        (folder / f"{page.number}.json").write_text(boxes_json, encoding="utf-8")
    (folder / "lines.css").write_text(_lines_css(published), encoding="utf-8")
    return published


def _not_fitting(numbers: Sequence[int]) -> str:
    return f"{_pages_named(numbers)} {'does' if len(numbers) == 1 else 'do'} not fit"


def _pages_named(numbers: Sequence[int]) -> str:
    """Sorted page numbers named, their runs joined: "page 3", "pages 2–4, 7"."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    named = ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)
    return f"page {named}" if len(numbers) == 1 else f"pages {named}"


def line_rects(published: Published, page: PageImage) -> dict[int, list[tuple[int, int, int, int]]]:
    """For each text line (from 1) with boxes on `page`, its rectangles (x, y, width, height).

    A line's word boxes that sit on one visual line and close together become one rectangle.
    """
    rects: dict[int, list[tuple[int, int, int, int]]] = {}
    for start, _end, x0, y0, x1, y1 in page.boxes:
        line = bisect.bisect_right(published.line_starts, start)
        own = rects.setdefault(line, [])
        if own:
            px, py, pw, ph = own[-1]
            if py == y0 and ph == y1 - y0 and 0 <= x0 - (px + pw) <= _MERGE_GAP * ph:
                own[-1] = (px, py, x1 - px, ph)
                continue
        own.append((x0, y0, x1 - x0, y1 - y0))
    return rects


def _lines_css(published: Published) -> str:
    rules = []
    for page in published.pages:
        for line in line_rects(published, page):
            rules.append(f".pdf-view:has(#L{line}:target) :is(#pp{page.number},.l{line}){{display:block}}\n")
    return "".join(rules)


def _cut_pages(published: Published) -> str:
    if not published.pages:
        return "No page is"
    named = _pages_named(published.left_out)
    return f"{named[0].upper()}{named[1:]} {'is' if len(published.left_out) == 1 else 'are'} not"


def figures(published: Published, root: str, pdf_href: str | None) -> Markup:
    """The pages beside the text: one figure each, its image, alt text and the static boxes."""
    base = f"{root}{PAGES_DIR}/{published.blob}/"
    cut = (
        f'<p class="pdf-cut">{_cut_pages(published)} shown as printed: {escape(published.cut_by_budget)}. '
        "Their text is all in the text view"
        + (f' and the pages in <a href="{escape(pdf_href)}">the PDF</a>' if pdf_href else "")
        + ".</p>"
        if published.cut_by_budget
        else ""
    )
    if not published.pages:
        return Markup(cut)
    out = [
        f'<link rel="stylesheet" class="pdf-lines" href="{escape(base)}lines.css">',
        f'<aside class="pdf-pages" aria-label="Pages as printed" data-boxes="{escape(base)}">',
        '<p class="pdf-hint">The cited page as printed appears here, its cited words boxed.</p>',
    ]
    if published.recognized:
        pages = ", ".join(map(str, sorted(published.recognized)))
        out.append(
            f'<p class="ocr-note">The text of page(s) {pages} was <strong>recognized by OCR</strong> (Tesseract): '
            "its words were read from the image, not typed, and may differ from it.</p>"
        )
    for page, (start, end) in zip(published.pages, published.page_spans, strict=True):
        first = bisect.bisect_right(published.line_starts, start)
        last = max(first, bisect.bisect_right(published.line_starts, max(start, end - 1)))
        groups = "".join(
            f'<g class="s l{line}">'
            + "".join(f'<rect x="{x}" y="{y}" width="{w}" height="{h}"/>' for x, y, w, h in rects)
            + "</g>"
            for line, rects in line_rects(published, page).items()
        )
        lines = lines_label(first, last, "–")
        original = f' · <a href="{escape(pdf_href)}#page={page.number}">in the PDF</a>' if pdf_href else ""
        if page.number in published.recognized:
            original += (
                ' · <strong class="ocr">recognized by OCR</strong>: its words were read from the image, not typed'
            )

        out.append(
            f'<figure class="pdf-page" id="pp{page.number}" data-page="{page.number}" data-start="{start}" '
            f'data-end="{end}"><div class="pdf-frame">'
            f'<img src="{escape(base)}{page.number}.png" width="{page.width}" height="{page.height}" '
            f'loading="lazy" alt="Page {page.number} of the PDF as printed; its text is {lines} of the text view">'
            f'<svg class="pdf-marks" viewBox="0 0 {page.width} {page.height}" preserveAspectRatio="none" '
            f'aria-hidden="true">{groups}<g class="j"></g></svg></div>'
            f'<figcaption>Page {page.number} as printed · its text: <a href="#L{first}">{lines}</a>{original}'
            "</figcaption></figure>"
        )
    out.append(cut)
    out.append("</aside>")
    return Markup("".join(out))
