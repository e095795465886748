"""A PDF's pages as printed: small page images and the boxes of the extracted text's words.

The renderer is PDFium through pypdfium2 (docs/extractors.md, "Pages as printed", says why and
with what figures). For each page it gives:
- an image: grayscale at `DPI` (the width capped at `MAX_WIDTH` pixels), written as the smallest
  PNG that keeps the page legible (`encode`): a page of text and flat fills (no image, no
  gradient) as black, white and its few flat grays — 1 bit a pixel, or 2 with a gray fill —,
  which is 30–80% smaller than four gray levels and keeps thin strokes; any other page (a photo,
  a scan, a gradient) in four gray levels, 2 bits a pixel;
- the boxes of the words of the *extracted* text (the text citations count code points in),
  in image pixels, keyed by document offsets.

The hard part is the second: PDFium reads the page's text in its own way (its own spaces and line
breaks, ligatures kept, hyphens where pypdf joined words). `align` maps the two: both texts are
folded (NFKC, case-folded, whitespace dropped) and matched by difflib's longest common blocks;
only blocks of `MIN_BLOCK` or more characters count, so a stray single-letter match cannot place a
box. A word gets a box only where every one of its characters was aligned; a character that
cannot be aligned gets no box, never a wrong one. A word whose characters lie on two lines (a
hyphenated word pypdf joined) gets one box per line.

Boxes are runs `[start, end, x0, y0, x1, y1]`: code points `start..end` (end exclusive) of the
document text lie in that rectangle of the page image. They depend on the extractor identity
(the offsets count its text) and on `renderer_identity()`; each page is cached on its own per
(blob, both identities, page number) under `.pincite/cache/pages/`, like extracted text
(extract/cache.py): a page is the same whichever others are rendered beside it.

Pages are rendered in `page_order`: the pages asked `first` (the site's cited pages), then the
others from page 1. A byte budget (`max_bytes`; the site's `pdf_page_budget` times the PDF's
bytes) stops the rendering before the first page in that order that would pass it, so the budget
is spent on the pages citations name before the rest.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import io
import json
import os
import tempfile
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.extract import ocr
from indexer.extract.base import importable, library_version
from indexer.extract.pdf import PAGE_SEPARATOR

VERSION = 2
DPI = 110
MAX_WIDTH = 1000
GRAY_LEVELS = 4
# Two-tone pages: a pixel darker than this is black (above 128, so an anti-aliased thin stroke keeps
# its pixels), and a gray holding at least FILL_SHARE of the page's pixels is a flat fill, kept as it
# is (anti-aliasing spreads over many grays, each well under 1%: measured on py-pdf/sample-files).
INK_THRESHOLD = 160
FILL_SHARE = 0.01
MAX_FILLS = 2
MIN_BLOCK = 4
CACHE_DIR = Path(".pincite/cache/pages")
INSTALL_HINT = "pip install 'pincite[pdf]' (it installs pypdfium2)"


@dataclass(frozen=True)
class PageImage:
    """One rendered page: its number (from 1), PNG bytes, size in pixels and word boxes."""

    number: int
    png: bytes
    width: int
    height: int
    boxes: tuple[tuple[int, int, int, int, int, int], ...]

    def boxes_json(self, page_start: int) -> dict[str, Any]:
        """The page's boxes for the browser, small: see `encode_boxes`."""
        return {
            "v": VERSION,
            "page": self.number,
            "w": self.width,
            "h": self.height,
            "start": page_start,
            "lines": encode_boxes(self.boxes, page_start),
        }


def encode_boxes(boxes: Sequence[tuple[int, int, int, int, int, int]], page_start: int) -> list[list[int]]:
    """Runs grouped by line, each number a small difference: `[top, bottom, gap, length, dx, width, ...]`.

    A line is consecutive runs of one top and bottom; per run, `gap` is its start minus the
    previous run's end (`page_start` for the first), `dx` its left minus the previous run's
    right on the line (its left for the first). site_templates/static/pdf-pages.js decodes it.
    """
    lines: list[list[int]] = []
    end = page_start
    right = 0
    for start, stop, x0, y0, x1, y1 in boxes:
        if not lines or lines[-1][0] != y0 or lines[-1][1] != y1:
            lines.append([y0, y1])
            right = 0
        lines[-1] += [start - end, stop - start, x0 - right, x1 - x0]
        end, right = stop, x1
    return lines


def decode_boxes(lines: Sequence[Sequence[int]], page_start: int) -> list[tuple[int, int, int, int, int, int]]:
    """`encode_boxes` undone (what the page's script does; the tests check the two agree)."""
    out = []
    end = page_start
    for line in lines:
        top, bottom, right = line[0], line[1], 0
        for k in range(2, len(line), 4):
            gap, length, dx, width = line[k : k + 4]
            start, x0 = end + gap, right + dx
            out.append((start, start + length, x0, top, x0 + width, bottom))
            end, right = start + length, x0 + width
    return out


def available() -> bool:
    return importable("pypdfium2")


def renderer_identity() -> str:
    """Everything that decides an image or a box, as extract/base.py's identities do."""
    from pypdfium2.version import PDFIUM_INFO

    return (
        f"pages/{VERSION} pypdfium2={library_version('pypdfium2')} pdfium={PDFIUM_INFO.build} "
        f"dpi={DPI} max_width={MAX_WIDTH} gray={GRAY_LEVELS} ink={INK_THRESHOLD} fill={FILL_SHARE:g}x{MAX_FILLS} "
        f"block={MIN_BLOCK}"
    )


# -- alignment ---------------------------------------------------------------------------
@dataclass
class _Folded:
    """A text folded for matching: its characters, the index each came from, and its words' starts."""

    chars: str
    origin: list[int]
    words: list[tuple[str, int]]  # (folded word, index of its first character in `chars`)


def _fold(text: str) -> _Folded:
    out: list[str] = []
    origin: list[int] = []
    words: list[tuple[str, int]] = []
    word_start = 0
    for i, ch in enumerate(text):
        if ch.isspace():
            if len(out) > word_start:
                words.append(("".join(out[word_start:]), word_start))
            word_start = len(out)
            continue
        if ch in "\u00ad\ufffe\uffff":
            continue
        for part in unicodedata.normalize("NFKC", ch).casefold():
            if not part.isspace():
                out.append(part)
                origin.append(i)
    if len(out) > word_start:
        words.append(("".join(out[word_start:]), word_start))
    return _Folded("".join(out), origin, words)


def align(extracted: str, rendered: str) -> dict[int, int]:
    """For each index of `extracted` that can be matched, the index of `rendered` it is.

    Words are matched first (difflib over the folded words: fast, and sure where runs of words
    agree); the characters of the stretches between matched runs are then matched one by one
    (a word pypdf joined at a hyphen, a ligature). Only common runs of at least `MIN_BLOCK`
    folded characters count. A character that folds to several (a ligature) is mapped only if
    all its parts matched the same rendered character.
    """
    a, b = _fold(extracted), _fold(rendered)
    pairs: list[tuple[int, int, int]] = []  # (start in a.chars, start in b.chars, length)
    words = difflib.SequenceMatcher(None, [w for w, _ in a.words], [w for w, _ in b.words], autojunk=False)
    for tag, i1, i2, j1, j2 in words.get_opcodes():
        a_from, a_to = _char_range(a, i1, i2)
        b_from, b_to = _char_range(b, j1, j2)
        if tag == "equal":
            if a_to - a_from >= MIN_BLOCK:
                pairs.append((a_from, b_from, a_to - a_from))
        elif a_to > a_from and b_to > b_from:
            chars = difflib.SequenceMatcher(None, a.chars[a_from:a_to], b.chars[b_from:b_to], autojunk=False)
            pairs += [(a_from + m.a, b_from + m.b, m.size) for m in chars.get_matching_blocks() if m.size >= MIN_BLOCK]
    targets: dict[int, set[int]] = {}
    matched: dict[int, int] = {}
    for a_at, b_at, size in pairs:
        for k in range(size):
            source = a.origin[a_at + k]
            targets.setdefault(source, set()).add(b.origin[b_at + k])
            matched[source] = matched.get(source, 0) + 1
    parts = _part_counts(a.origin)
    return {i: min(found) for i, found in targets.items() if len(found) == 1 and matched[i] == parts[i]}


def _char_range(folded: _Folded, first: int, last: int) -> tuple[int, int]:
    """The folded characters of words `first..last` (exclusive) and the gaps between them."""
    start = folded.words[first][1] if first < len(folded.words) else len(folded.chars)
    end = folded.words[last][1] if last < len(folded.words) else len(folded.chars)
    return start, end


def _part_counts(origin: list[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for i in origin:
        counts[i] = counts.get(i, 0) + 1
    return counts


Box = tuple[float, float, float, float]  # left, top, right, bottom in image pixels


def word_boxes(
    page_text: str, page_start: int, mapping: dict[int, int], char_boxes: Sequence[Box | None]
) -> list[tuple[int, int, int, int, int, int]]:
    """Boxes of the words of `page_text` whose every character has a box, split where a line breaks.

    `mapping` is `align`'s (page-text index -> renderer index); offsets in the result are
    document offsets (`page_start` + index).
    """
    runs: list[tuple[int, int, int, int, int, int]] = []
    i, n = 0, len(page_text)
    while i < n:
        if page_text[i].isspace():
            i += 1
            continue
        j = i
        while j < n and not page_text[j].isspace():
            j += 1
        boxes = [char_boxes[mapping[k]] if k in mapping else None for k in range(i, j)]
        if all(box is not None for box in boxes):
            runs.extend(_line_runs(page_start + i, [box for box in boxes if box is not None]))
        i = j
    return runs


def _line_runs(start: int, boxes: list[Box]) -> list[tuple[int, int, int, int, int, int]]:
    """One rectangle per stretch of characters on one line (a new line: no vertical overlap, or x goes back)."""
    runs = []
    first = 0
    for k in range(1, len(boxes) + 1):
        if k < len(boxes):
            prev, cur = boxes[k - 1], boxes[k]
            same_line = cur[1] < prev[3] and prev[1] < cur[3] and cur[0] >= prev[0] - 1
            if same_line:
                continue
        part = boxes[first:k]
        left = min(b[0] for b in part)
        top = min(b[1] for b in part)
        right = max(b[2] for b in part)
        bottom = max(b[3] for b in part)
        runs.append((start + first, start + k, round(left), round(top), round(right), round(bottom)))
        first = k
    return runs


# -- rendering ---------------------------------------------------------------------------
def page_texts(text: str, page_starts: Sequence[int]) -> list[tuple[int, str]]:
    """(start offset, text) of each page of an extracted PDF text (pages joined by "\\f\\n")."""
    starts = [0, *page_starts]
    ends = [s - len(PAGE_SEPARATOR) for s in page_starts] + [len(text)]
    return [(s, text[s:e]) for s, e in zip(starts, ends, strict=True)]


def page_bytes(page: PageImage, page_start: int) -> int:
    """What a rendered page costs in the site: its image and its boxes' JSON."""
    return len(page.png) + len(json.dumps(page.boxes_json(page_start), separators=(",", ":")))


def page_order(count: int, max_pages: int, first: Collection[int] = ()) -> list[int]:
    """The numbers (from 1) of the pages to render, in order: those of `first` within 1..count, then
    the others from page 1; at most `max_pages` of them."""
    chosen = sorted(n for n in set(first) if 1 <= n <= count)
    taken = set(chosen)
    return (chosen + [n for n in range(1, count + 1) if n not in taken])[: max(0, max_pages)]


def render_pages(
    data: bytes,
    text: str,
    page_starts: Sequence[int],
    max_pages: int,
    ocr_languages: Sequence[str] = (),
    max_bytes: int = 0,
    first: Collection[int] = (),
) -> list[PageImage]:
    """`max_pages` pages of the PDF `data` as images with the boxes of `text`'s words, in `page_order`.

    A page PDFium finds no text on takes its boxes from Tesseract's words in `ocr_languages`
    (the extractor's, from its identity): the same engine on the same image reads the same words.
    With `max_bytes` (0: no limit), rendering stops before the first page whose image and boxes
    (`page_bytes`) would bring the pages' total past it.
    """
    with _Renderer(lambda: data, text, page_starts, ocr_languages) as renderer:
        return _within(renderer.render, page_texts(text, page_starts), max_pages, max_bytes, first)


def _within(
    get: Callable[[int], PageImage | None],
    pages: Sequence[tuple[int, str]],
    max_pages: int,
    max_bytes: int,
    first: Collection[int],
) -> list[PageImage]:
    """The pages `get` gives, in `page_order`, up to the first that would pass `max_bytes`."""
    rendered: list[PageImage] = []
    spent = 0
    for number in page_order(len(pages), max_pages, first):
        page = get(number)
        if page is None:  # the text counts a page PDFium does not have
            continue
        spent += page_bytes(page, pages[number - 1][0])
        if max_bytes and spent > max_bytes:
            break
        rendered.append(page)
    return rendered


class _Renderer:
    """One PDF's pages rendered on demand: the document is opened at the first page asked, if any is."""

    def __init__(
        self, read: Callable[[], bytes], text: str, page_starts: Sequence[int], ocr_languages: Sequence[str]
    ) -> None:
        self.read, self.ocr_languages = read, ocr_languages
        self.pages = page_texts(text, page_starts)
        self.data = b""
        self.document: Any = None

    def render(self, number: int) -> PageImage | None:
        import pypdfium2

        if self.document is None:
            self.data = self.read()
            self.document = pypdfium2.PdfDocument(self.data)
        if number > len(self.document):
            return None
        return _render_page(self.data, self.document[number - 1], number, *self.pages[number - 1], self.ocr_languages)

    def __enter__(self) -> _Renderer:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.document is not None:
            self.document.close()


def _render_page(
    data: bytes, page: Any, number: int, page_start: int, page_text: str, ocr_languages: Sequence[str]
) -> PageImage:
    width_pt, height_pt = page.get_size()
    scale = min(DPI / 72, MAX_WIDTH / width_pt)
    image = page.render(scale=scale, grayscale=True).to_pil().convert("L")
    png = encode(image, pictured=_has_pictures(page))
    boxes: list[tuple[int, int, int, int, int, int]] = []
    if page.get_rotation() == 0 and page_text:  # a rotated page's boxes would need turning: none, not wrong ones
        rendered, char_boxes = _renderer_text(page, scale, height_pt)
        if not rendered.strip() and ocr_languages and ocr.available():
            rendered, char_boxes = _recognized_text(data, number - 1, ocr_languages, scale)
        boxes = word_boxes(page_text, page_start, align(page_text, rendered), char_boxes)
    page.close()
    return PageImage(number, png, image.width, image.height, tuple(boxes))


def _recognized_text(data: bytes, index: int, languages: Sequence[str], scale: float) -> tuple[str, list[Box | None]]:
    """Tesseract's words of a page as a renderer text: each character boxed by its whole word."""
    factor = scale / (ocr.DPI / 72)
    chars: list[str] = []
    boxes: list[Box | None] = []
    for word in ocr.recognize(ocr.page_image(data, index), languages, f"page {index + 1}"):
        box = (word.left * factor, word.top * factor, word.right * factor, word.bottom * factor)
        chars.append(word.text + " ")
        boxes += [box] * len(word.text) + [None]
    return "".join(chars), boxes


def _renderer_text(page: Any, scale: float, height_pt: float) -> tuple[str, list[Box | None]]:
    """PDFium's text of the page, one character per index, and each character's box in pixels."""
    import pypdfium2.raw as raw

    textpage = page.get_textpage()
    left_pt, bottom_pt, _right, _top = page.get_cropbox()
    chars: list[str] = []
    boxes: list[Box | None] = []
    for i in range(textpage.count_chars()):
        code = raw.FPDFText_GetUnicode(textpage, i)
        generated = raw.FPDFText_IsGenerated(textpage, i) == 1
        chars.append(" " if generated or not code or 0xD800 <= code <= 0xDFFF else chr(code))
        left, bottom, right, top = textpage.get_charbox(i, loose=True)
        valid = right > left and top > bottom and not generated
        boxes.append(
            (
                (left - left_pt) * scale,
                (height_pt - (top - bottom_pt)) * scale,
                (right - left_pt) * scale,
                (height_pt - (bottom - bottom_pt)) * scale,
            )
            if valid
            else None
        )
    textpage.close()
    return "".join(chars), boxes


def _has_pictures(page: Any) -> bool:
    """Whether the page draws an image or a gradient (in a form too): its grays are not flat fills."""
    import pypdfium2.raw as raw

    kinds = [raw.FPDF_PAGEOBJ_IMAGE, raw.FPDF_PAGEOBJ_SHADING]
    return next(iter(page.get_objects(filter=kinds)), None) is not None


def encode(image: Any, pictured: bool) -> bytes:
    """The page as the smallest legible PNG: two-tone (with its flat fills) unless `pictured`, else four grays.

    The choice is the page's own (its histogram, whether it draws pictures), made the same way
    each time, so an image is decided by the page and `renderer_identity()` alone.
    """
    if not pictured:
        histogram = image.histogram()
        floor = FILL_SHARE * image.width * image.height
        fills = [v for v in range(1, 255) if histogram[v] >= floor]
        if len(fills) <= MAX_FILLS:
            return _two_tone(image, fills)
    return _four_grays(image)


def _two_tone(image: Any, fills: Sequence[int]) -> bytes:
    """Black and white at `INK_THRESHOLD`, the `fills` grays kept exactly: 1 bit a pixel, 2 with fills."""
    levels = [0, 255, *fills]
    table = [levels.index(v) if v in fills else (0 if v < INK_THRESHOLD else 1) for v in range(256)]
    return _palette_png(image.point(table), levels, 1 if not fills else 2)


def _four_grays(image: Any) -> bytes:
    """Four gray levels, 2 bits a pixel: a photo or a scan stays readable at a third of full gray's bytes."""
    top = GRAY_LEVELS - 1
    levels = [round(level * 255 / top) for level in range(GRAY_LEVELS)]
    return _palette_png(image.point([round(v * top / 255) for v in range(256)]), levels, 2)


def _palette_png(indexes: Any, levels: Sequence[int], bits: int) -> bytes:
    """A palette PNG of `bits` a pixel whose pixel values (`indexes`, mode L) index the grays `levels`."""
    indexed = indexes.convert("P")
    palette: list[int] = []
    for level in levels:
        palette += [level] * 3
    indexed.putpalette(palette)
    out = io.BytesIO()
    indexed.save(out, "PNG", bits=bits)
    return out.getvalue()


# -- the cache ---------------------------------------------------------------------------
def cache_folder(root: Path, blob: str, extractor_identity: str) -> Path:
    key = hashlib.sha256(f"{renderer_identity()}|{extractor_identity}".encode()).hexdigest()[:16]
    return root / CACHE_DIR / key / blob[:2] / blob


def load_cached(folder: Path, number: int) -> PageImage | None:
    """Page `number` from the cache, or None when it is missing or damaged."""
    try:
        entry = json.loads((folder / f"{number}.json").read_text(encoding="utf-8"))
        png = (folder / f"{number}.png").read_bytes()
        if hashlib.sha256(png).hexdigest() != entry["sha256"]:
            return None
        boxes = tuple(tuple(int(v) for v in box) for box in entry["boxes"])
        return PageImage(number, png, int(entry["w"]), int(entry["h"]), boxes)  # type: ignore[arg-type]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(folder: Path, page: PageImage) -> None:
    """Write one page, its image before its record (each a temporary file renamed into place): a
    record names its image's digest, so a half-written page is a missing one. A full disk only costs time."""
    record = {
        "renderer": renderer_identity(),
        "w": page.width,
        "h": page.height,
        "boxes": list(page.boxes),
        "sha256": hashlib.sha256(page.png).hexdigest(),
    }
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in ((f"{page.number}.png", page.png), (f"{page.number}.json", json.dumps(record).encode())):
            handle, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temp, folder / name)
            finally:
                if os.path.exists(temp):
                    os.unlink(temp)


def cached_render(
    root: Path | None,
    blob: str,
    read: Callable[[], bytes],
    text: str,
    page_starts: Sequence[int],
    identity: str,
    max_pages: int,
    *,
    keep: bool = True,
    max_bytes: int = 0,
    first: Collection[int] = (),
) -> list[PageImage]:
    """`render_pages` of the PDF `read()` returns, each page from the cache at `root` when it holds
    it under both identities (`identity` is the extractor's); the PDF is read only if a page is
    not there. With `keep` false nothing is written."""
    languages = ocr.languages_of(identity)
    with _Renderer(read, text, page_starts, languages) as renderer:
        if root is None:
            return _within(renderer.render, renderer.pages, max_pages, max_bytes, first)
        folder = cache_folder(root, blob, identity)

        def get(number: int) -> PageImage | None:
            page = load_cached(folder, number)
            if page is None:
                page = renderer.render(number)
                if page is not None and keep:
                    store(folder, page)
            return page

        return _within(get, renderer.pages, max_pages, max_bytes, first)
