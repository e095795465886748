"""Pages as printed: the renderer's character boxes mapped onto the extracted text's code points."""

from __future__ import annotations

import io
import itertools
import unicodedata

import pytest
from extract_samples import pdf_of_pages, two_column_pdf
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from indexer.extract.pdf import PdfExtractor
from indexer.extract.pdf_pages import (
    MIN_BLOCK,
    align,
    cached_render,
    decode_boxes,
    encode,
    encode_boxes,
    page_bytes,
    page_order,
    page_texts,
    render_pages,
)

pytest.importorskip("pypdfium2")


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def test_align_maps_equal_words_and_a_joined_hyphenation() -> None:
    extracted = "The retention period is five years.\n"
    rendered = "The reten-\r\ntion period is ﬁve years."
    mapping = align(extracted, rendered)
    for i, j in mapping.items():
        assert fold(rendered[j]) in fold(extracted[i]) or fold(extracted[i]) in fold(rendered[j])
    assert extracted.index("tion") in mapping
    assert mapping[extracted.index("tion")] == rendered.index("tion")
    # The renderer's ligature folds to the letters pypdf's text holds: both take its box.
    assert mapping[extracted.index("fi")] == mapping[extracted.index("fi") + 1] == rendered.index("ﬁ")


def test_align_gives_no_box_to_words_the_renderer_does_not_have() -> None:
    mapping = align("alpha beta zebra gamma\n", "alpha beta gamma")
    assert not any(i in mapping for i in range(11, 16))  # "zebra"


@given(st.text(alphabet="abcde \n", max_size=60), st.text(alphabet="abcde \n", max_size=60))
def test_align_never_maps_a_character_to_another(extracted: str, rendered: str) -> None:
    mapping = align(extracted, rendered)
    assert len(set(mapping.values())) == len(mapping)
    for i, j in mapping.items():
        assert extracted[i] == rendered[j]
    # Matched characters keep their order (a map from one reading of a page to another).
    pairs = sorted(mapping.items())
    assert all(a[1] < b[1] for a, b in itertools.pairwise(pairs))


def test_short_runs_do_not_count() -> None:
    assert align("ab", "ab") == {}
    assert len(align("a" * MIN_BLOCK, "a" * MIN_BLOCK)) == MIN_BLOCK


def test_boxes_of_a_two_column_pdf_lie_over_their_words() -> None:
    from PIL import Image

    data = two_column_pdf()
    extracted = PdfExtractor().extract(data, "two.pdf")
    pages = render_pages(data, extracted.text, extracted.page_starts, max_pages=10)
    assert [p.number for p in pages] == [1, 2]
    words = sum(len(t.split()) for _, t in page_texts(extracted.text, extracted.page_starts))
    assert sum(len(p.boxes) for p in pages) == words  # every word of this clean PDF has its box
    first = pages[0]
    image = Image.open(io.BytesIO(first.png)).convert("L")
    assert (image.width, image.height) == (first.width, first.height)
    columns = set()
    for start, end, x0, y0, x1, y1 in first.boxes:
        assert extracted.text[start:end].strip() == extracted.text[start:end]
        assert 0 <= x0 < x1 <= first.width and 0 <= y0 < y1 <= first.height
        assert image.crop((x0, y0, x1, y1)).getextrema()[0] < 128  # ink under every box
        columns.add(x0 < first.width / 2)
    assert columns == {True, False}


def test_page_limit_and_encoding_round_trip() -> None:
    data = pdf_of_pages([["first page words here"], ["second page words here"], ["third"]])
    extracted = PdfExtractor().extract(data, "three.pdf")
    pages = render_pages(data, extracted.text, extracted.page_starts, max_pages=2)
    assert [p.number for p in pages] == [1, 2]
    start = extracted.page_starts[0]
    assert decode_boxes(encode_boxes(pages[1].boxes, start), start) == list(pages[1].boxes)
    assert extracted.text[pages[1].boxes[0][0] : pages[1].boxes[0][1]] == "second"


def test_rendering_is_cached_per_blob_identities_and_page(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = pdf_of_pages([["cached page words"], ["second cached page"]])
    extracted = PdfExtractor().extract(data, "c.pdf")
    args = ("b" * 40, lambda: data, extracted.text, extracted.page_starts, extracted.identity, 5)
    first = cached_render(tmp_path, *args)
    entries = sorted(p.name for p in (tmp_path / ".pincite/cache/pages").rglob("*.*"))
    assert entries == ["1.json", "1.png", "2.json", "2.png"]
    again = cached_render(tmp_path, "b" * 40, lambda: b"not a pdf: the cache answers", *args[2:])
    assert again == first
    folder = next((tmp_path / ".pincite/cache/pages").rglob("1.png")).parent
    (folder / "1.png").write_bytes(b"damaged")
    assert cached_render(tmp_path, *args) == first  # a damaged page is rendered again
    assert (folder / "1.png").read_bytes() == first[0].png


def test_a_byte_budget_stops_rendering_and_a_cached_page_serves_any_budget(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = pdf_of_pages([["first page words here"], ["second page words here"], ["third page words"]])
    extracted = PdfExtractor().extract(data, "three.pdf")
    whole = render_pages(data, extracted.text, extracted.page_starts, max_pages=3)
    starts = [start for start, _text in page_texts(extracted.text, extracted.page_starts)]
    two = page_bytes(whole[0], starts[0]) + page_bytes(whole[1], starts[1])
    cut = render_pages(data, extracted.text, extracted.page_starts, max_pages=3, max_bytes=two)
    assert [p.number for p in cut] == [1, 2]
    assert render_pages(data, extracted.text, extracted.page_starts, 3, max_bytes=two - 1) == whole[:1]
    unreadable = lambda: b"not a pdf: the cache answers"  # noqa: E731
    args = (extracted.text, extracted.page_starts, extracted.identity, 3)
    assert cached_render(tmp_path, "c" * 40, lambda: data, *args, max_bytes=two) == cut
    # A smaller budget is served from the cached pages; a larger one renders only the page not there.
    assert cached_render(tmp_path, "c" * 40, unreadable, *args, max_bytes=two - 1) == cut[:1]
    assert cached_render(tmp_path, "c" * 40, lambda: data, *args, max_bytes=10 * two) == whole
    assert cached_render(tmp_path, "c" * 40, unreadable, *args) == whole


def test_the_pages_asked_first_are_rendered_first_and_take_the_budget_before_the_others() -> None:
    assert page_order(5, 10, first={4, 2, 9}) == [2, 4, 1, 3, 5]  # a page the PDF has not is no page
    assert page_order(5, 2, first={4}) == [4, 1]
    assert page_order(3, 3) == [1, 2, 3]
    data = pdf_of_pages([["first page words here"], ["second page words here"], ["third page words"]])
    extracted = PdfExtractor().extract(data, "three.pdf")
    whole = render_pages(data, extracted.text, extracted.page_starts, max_pages=3)
    third = page_bytes(whole[2], page_texts(extracted.text, extracted.page_starts)[2][0])
    cut = render_pages(data, extracted.text, extracted.page_starts, 3, max_bytes=third, first={3})
    assert [p.number for p in cut] == [3] and cut[0] == whole[2]


def _page(fill: int) -> Image.Image:
    """A page of black text strokes (with anti-aliased grays) on white, and a flat `fill` rectangle."""
    image = Image.new("L", (200, 300), 255)
    for y in range(20, 120, 10):
        image.paste(0, (20, y, 180, y + 2))
        image.paste(90, (20, y + 2, 40, y + 3))  # an anti-aliased edge: a gray of few pixels (under 1%)
    image.paste(fill, (20, 150, 180, 280))
    return image


def test_a_page_of_text_and_a_flat_fill_keeps_its_fill_exactly_and_thresholds_the_rest() -> None:
    png = encode(_page(fill=200), pictured=False)
    with Image.open(io.BytesIO(png)) as image:
        grays = {color for _count, color in image.convert("L").getcolors() or ()}
        assert grays == {0, 200, 255}  # the edge's 90 is black now, the fill is still 200
        assert image.convert("L").getpixel((100, 200)) == 200
    text_only = encode(_page(fill=255), pictured=False)
    with Image.open(io.BytesIO(text_only)) as image:
        assert {color for _count, color in image.convert("L").getcolors() or ()} == {0, 255}
    assert len(text_only) < len(encode(_page(fill=255), pictured=True))


def test_a_page_that_draws_a_picture_keeps_four_grays() -> None:
    with Image.open(io.BytesIO(encode(_page(fill=200), pictured=True))) as image:
        assert {color for _count, color in image.convert("L").getcolors() or ()} <= {0, 85, 170, 255}
        assert image.convert("L").getpixel((100, 200)) == 170
