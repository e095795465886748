"""A permalink into a two-column PDF shows the page as printed with boxes exactly over the cited words.

The truth the boxes are held to is the renderer's own: PDFium's character boxes of the cited
words, found by searching PDFium's text of the page for them (not through pincite's alignment),
scaled to the published image. Checked at 1280x800 and 390x844, with JavaScript off (a `#L`
permalink: the static boxes of pages/<blob>/lines.css) and on (a `#c` span of two words).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from extract_samples import two_column_pdf

from indexer.api import build
from indexer.extract.pdf import PdfExtractor
from indexer.extract.pdf_pages import page_texts
from indexer.site.serve import serve_in_thread
from indexer.vcs.repo import GitRepo

pypdfium2 = pytest.importorskip("pypdfium2")
SIZES = [(1280, 800), (390, 844)]
TOLERANCE = 1.5  # image pixels: boxes are rounded to whole pixels, the browser scales them


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from conftest import CorpusRepo

    repo = CorpusRepo(tmp_path_factory.mktemp("pdfpages") / "repo")
    data = two_column_pdf()
    repo.write("pincite.toml", "pdf_page_budget = 0\n")  # a small PDF: its pages would not fit in 2x its bytes
    commit = repo.commit({"corpus/paper.pdf": data}, "a two-column paper")
    site = repo.root / "_site"
    build(repo.root, out=site)
    with GitRepo(repo.root) as git:
        entry = git.blob_at(commit, "corpus/paper.pdf")
    assert entry is not None
    blob = entry.sha
    server, base = serve_in_thread(site)
    yield {"data": data, "commit": commit, "blob": blob, "base": base, "site": site}
    server.shutdown()
    server.server_close()


def renderer_word_boxes(
    data: bytes, page_number: int, words: str, within: tuple[int, int] | None = None
) -> list[tuple[float, float, float, float]]:
    """PDFium's boxes (left, top, right, bottom in image pixels) of each word of `words` (those of
    `words[within[0]:within[1]]`, if given), found in PDFium's own text of the page."""
    document = pypdfium2.PdfDocument(data)
    page = document[page_number - 1]
    text_page = page.get_textpage()
    count = text_page.count_chars()
    text = "".join(chr(pypdfium2.raw.FPDFText_GetUnicode(text_page, i)) for i in range(count))
    at = text.find(words)
    assert at >= 0 and text.find(words, at + 1) < 0, f"{words!r} must stand once on the page"
    width_pt, height_pt = page.get_size()
    scale = min(110 / 72, 1000 / width_pt)
    boxes = []
    low, high = within or (0, len(words))
    for match in re.finditer(r"\S+", words[low:high]):
        match_start, match_end = low + match.start(), low + match.end()
        chars = [text_page.get_charbox(at + k, loose=True) for k in range(match_start, match_end)]
        left, right = min(c[0] for c in chars), max(c[2] for c in chars)
        bottom, top = min(c[1] for c in chars), max(c[3] for c in chars)
        boxes.append((left * scale, (height_pt - top) * scale, right * scale, (height_pt - bottom) * scale))
    document.close()
    return boxes


def shown_rects(tab: Any, selector: str) -> list[tuple[float, float, float, float]]:
    """The boxes the page draws (`selector`: SVG rects), in the image's own pixels."""
    rects = tab.evaluate(
        """(selector) => {
            const img = document.querySelector('#pp1 img');
            const frame = img.getBoundingClientRect();
            const k = img.naturalWidth / frame.width;
            return Array.from(document.querySelectorAll(selector))
              .filter((r) => r.getBoundingClientRect().width > 0)
              .map((r) => { const b = r.getBoundingClientRect();
                return [(b.left - frame.left) * k, (b.top - frame.top) * k, (b.right - frame.left) * k,
                        (b.bottom - frame.top) * k]; });
        }""",
        selector,
    )
    return [tuple(r) for r in rects]


def assert_same_boxes(shown: list[tuple[float, ...]], expected: list[tuple[float, ...]]) -> None:
    assert len(shown) == len(expected), (shown, expected)
    for got, want in zip(shown, expected, strict=True):
        assert all(abs(g - w) <= TOLERANCE for g, w in zip(got, want, strict=True)), (got, want)


def right_column_line(printed: dict[str, Any]) -> tuple[int, str, int]:
    """A line of page 1's right column: its number, its text and its start offset in the document."""
    extracted = PdfExtractor().extract(printed["data"], "paper.pdf")
    start, page_text = page_texts(extracted.text, extracted.page_starts)[0]
    lines = page_text.split("\n")
    line_starts = [0]
    for line in extracted.text.split("\n"):
        line_starts.append(line_starts[-1] + len(line) + 1)
    # pypdf reads the left column first: the right column's lines are in the second half.
    index = len([x for x in lines if x]) * 3 // 4
    offset = start + sum(len(x) + 1 for x in lines[:index])
    number = line_starts.index(offset) + 1
    return number, lines[index], offset


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_line_permalink_boxes_its_words_without_javascript(
    printed: dict[str, Any], browser: Any, width: int, height: int
) -> None:
    number, line, _offset = right_column_line(printed)
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=False)
    tab = context.new_page()
    url = f"{printed['base']}/v/{printed['blob']}.html?commit={printed['commit']}&path=corpus/paper.pdf#L{number}"
    tab.goto(url)
    tab.wait_for_function("() => document.querySelector('#pp1 img').complete")
    assert tab.evaluate("document.querySelector('#pp1 img').naturalWidth") > 0
    assert tab.locator("#pp1").is_visible() and not tab.locator("#pp2").is_visible()
    words = renderer_word_boxes(printed["data"], 1, line)
    assert min(w[0] for w in words) > 455  # the right column of a 910-pixel-wide page
    line_box = (min(w[0] for w in words), min(w[1] for w in words), max(w[2] for w in words), max(w[3] for w in words))
    assert_same_boxes(shown_rects(tab, f"#pp1 .l{number} rect"), [line_box])
    assert tab.locator("#pp1 img").get_attribute("alt").startswith("Page 1 of the PDF as printed")
    context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_character_span_lights_exactly_its_words_with_javascript(
    printed: dict[str, Any], browser: Any, width: int, height: int
) -> None:
    _number, line, offset = right_column_line(printed)
    first, second = re.finditer(r"\S+", line).__next__(), list(re.finditer(r"\S+", line))[1]
    a, b = offset + first.start() + 1, offset + second.end() - 1  # inside the first and the last word
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    url = f"{printed['base']}/v/{printed['blob']}.html?commit={printed['commit']}&path=corpus/paper.pdf#c{a}-{b}"
    tab.goto(url)
    tab.wait_for_function("() => document.querySelectorAll('#pp1 .j rect').length > 0")
    assert tab.locator("#pp1").is_visible()
    assert tab.evaluate("document.querySelector('link.pdf-lines')") is None  # the script draws every box
    expected = renderer_word_boxes(printed["data"], 1, line, (first.start(), second.end()))
    assert_same_boxes(shown_rects(tab, "#pp1 .j rect"), expected)
    # Selecting other words in the text view lights those instead.
    tab.evaluate(
        """() => { const li = document.querySelectorAll('#src > li')[2]; const r = document.createRange();
                   r.selectNodeContents(li); getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    tab.wait_for_function(
        "(n) => document.querySelectorAll('#pp1 .j rect').length !== n", arg=len(expected), timeout=5000
    )
    assert errors == []
    context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_drag_over_the_page_selects_and_cites_those_words(
    printed: dict[str, Any], browser: Any, width: int, height: int
) -> None:
    number, line, offset = right_column_line(printed)
    words = list(re.finditer(r"\S+", line))
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    url = f"{printed['base']}/v/{printed['blob']}.html?commit={printed['commit']}&path=corpus/paper.pdf#L{number}"
    tab.goto(url)
    tab.wait_for_function("() => document.querySelectorAll('#pp1 .j rect').length > 0")
    boxes = renderer_word_boxes(printed["data"], 1, line)
    tab.locator("#pp1 img").scroll_into_view_if_needed()
    tab.wait_for_function("() => document.querySelector('#pp1 img').naturalWidth > 0")  # loaded lazily, once near
    frame = tab.evaluate(
        "(() => { const i = document.querySelector('#pp1 img'); const b = i.getBoundingClientRect();"
        " return [b.left, b.top, i.naturalWidth / b.width]; })()"
    )

    def client(box: tuple[float, float, float, float]) -> tuple[float, float]:
        return frame[0] + (box[0] + box[2]) / 2 / frame[2], frame[1] + (box[1] + box[3]) / 2 / frame[2]

    tab.mouse.move(*client(boxes[1]))
    tab.mouse.down()
    tab.mouse.move(*client(boxes[3]))
    tab.mouse.up()
    expected = line[words[1].start() : words[3].end()]
    tab.wait_for_function("(t) => getSelection().toString() === t", arg=expected, timeout=5000)
    tab.locator("#cite-open").click()
    permalink = tab.locator("#cite-permalink").input_value()
    a, b = offset + words[1].start(), offset + words[3].end()
    assert permalink.endswith(f"#c{a}-{b}"), permalink
    context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_axe_finds_no_violations_on_a_pdf_version_page(
    printed: dict[str, Any], browser: Any, width: int, height: int
) -> None:
    from test_site_reader import axe_script

    number, _line, _offset = right_column_line(printed)
    # The pages' CSP forbids injected scripts: axe is injected by the browser with the CSP bypassed.
    context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    tab = context.new_page()
    url = f"{printed['base']}/v/{printed['blob']}.html?commit={printed['commit']}&path=corpus/paper.pdf#L{number}"
    tab.goto(url)
    tab.wait_for_function("() => document.querySelectorAll('#pp1 .j rect').length > 0")
    tab.add_script_tag(content=axe_script().read_text(encoding="utf-8"))
    violations = tab.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations.map(
            v => `${v.id}: ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)"""
    )
    assert violations == []
    context.close()


def test_on_a_narrow_screen_a_button_brings_the_cited_page_into_view(printed: dict[str, Any], browser: Any) -> None:
    number, _line, _offset = right_column_line(printed)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    url = f"{printed['base']}/v/{printed['blob']}.html?commit={printed['commit']}&path=corpus/paper.pdf#L{number}"
    tab.goto(url)
    tab.wait_for_function("() => document.getElementById('pdf-jump')")
    in_view = (
        "() => { const b = document.getElementById('pp1').getBoundingClientRect();"
        " return b.top < innerHeight && b.bottom > 0; }"
    )
    assert not tab.evaluate(in_view)  # the text scrolled to the cited line, below the page
    tab.locator("#pdf-jump").click()
    tab.wait_for_function(in_view)
    assert tab.url.endswith(f"#L{number}")  # the address still names the citation
    context.close()
