"""HTML extraction: main content as lines, charset policy, what never reaches the text, bad HTML."""

from __future__ import annotations

import codecs
import re
import unicodedata

import pytest
from extract_samples import ARTICLE, html_page
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.errors import ExtractionError
from indexer.extract.html import FALLBACK_NOTE, HtmlExtractor, decode_html, fold_whitespace
from indexer.extract.registry import extract

NOISE = (
    "<script>var secret = 'script text';</script>"
    "<style>.x { content: 'style text'; }</style>"
    "<!-- comment text -->"
    "<div hidden>hidden attribute text</div>"
    "<div style='display: none'>display none text</div>"
    "<span style='visibility:hidden'>visibility hidden text</span>"
    "<p aria-hidden='true'>aria hidden text</p>"
    "<template><p>template text</p></template>"
    "<noscript>noscript text</noscript>"
    "<form><input type='hidden' value='input value text'><textarea>textarea text</textarea></form>"
)


def test_main_content_with_block_structure_and_title() -> None:
    result = HtmlExtractor().extract(html_page(ARTICLE), "p.html")
    assert result.title == "Sample page"
    assert result.text.startswith("Expense claims\n\nClaims are submitted within thirty days")
    assert "\n\nThe finance team pays approved claims" in result.text
    assert result.text.endswith("with the reason.\n")
    assert result.notes == ()
    assert result.identity.startswith("html/1 readability-lxml=")


def test_scripts_styles_comments_and_hidden_elements_never_reach_the_text() -> None:
    for body in (ARTICLE.replace("</p>", NOISE + "</p>", 1), NOISE + "<p>Only a little text.</p>"):
        text = HtmlExtractor().extract(html_page(body), "n.html").text
        for marker in ("script", "style", "comment", "hidden", "template", "noscript", "input value", "textarea"):
            assert f"{marker} text" not in text, (marker, text)


def test_lists_tables_breaks_and_pre() -> None:
    extra = (
        "<ul><li>first item</li><li>second <b>bold</b>   item</li></ul>"
        "<table><tr><th>Date</th><th>Change</th></tr><tr><td>1 May</td><td>Rates raised</td></tr></table>"
        "<p>line one<br>line two</p><pre>  keep   this\n\n    indented </pre>"
    )
    body = ARTICLE.replace("</article>", extra + "</article>")
    text = HtmlExtractor().extract(html_page(body), "t.html").text
    assert "first item\nsecond bold item\n" in text
    assert "Date | Change\n1 May | Rates raised\n" in text
    assert "line one\nline two\n" in text
    assert "  keep   this\n\n    indented\n" in text


def test_whitespace_is_folded_and_text_is_nfc() -> None:
    body = "<p>Caf\u0065\u0301   au \n\t lait,   <em>décomposé</em>\u00a0ok</p>" * 3
    text = HtmlExtractor().extract(html_page(body), "w.html").text
    assert unicodedata.is_normalized("NFC", text)
    assert "Café au lait, décomposé\u00a0ok" in text
    assert all(line == line.strip(" \t") for line in text.split("\n"))
    edge = HtmlExtractor().extract(html_page(ARTICLE.replace("<p>", "<p>\u00a0 ", 1)), "e.html").text
    assert "\n\u00a0 Claims are submitted" in edge  # a no-break space is text, even at a line's start


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (codecs.BOM_UTF8 + "<p>naïve</p>".encode(), "naïve"),
        (codecs.BOM_UTF16_LE + "<p>naïve</p>".encode("utf-16-le"), "naïve"),
        (codecs.BOM_UTF16_BE + "<p>naïve</p>".encode("utf-16-be"), "naïve"),
        (b'<meta charset="windows-1252"><p>na\xefve \x93q\x94</p>', "naïve “q”"),
        (b"<meta charset=iso-8859-1><p>\x93quoted\x94</p>", "“quoted”"),  # browsers read latin-1 as cp1252
        (b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15"><p>\xa4</p>', "€"),
        ("<p>naïve</p>".encode(), "naïve"),  # no declaration: UTF-8
        (codecs.BOM_UTF8 + b'<meta charset="windows-1252"><p>na\xc3\xafve</p>', "naïve"),  # BOM wins
    ],
)
def test_charset_from_bom_then_meta_then_utf8(data: bytes, expected: str) -> None:
    text, _notes = decode_html(data, "c.html")
    assert expected in text


def test_wrong_charset_declaration_is_refused_not_guessed() -> None:
    data = b'<meta charset="utf-8">' + b"<p>caf\xe9 au lait, a long enough paragraph of text.</p>"
    with pytest.raises(ExtractionError, match=r"not valid utf-8 at byte \d+ .*<meta> charset 'utf-8'") as info:
        HtmlExtractor().extract(data, "wrong.html")
    assert "wrong.html" in str(info.value)


def test_unknown_charset_is_refused() -> None:
    with pytest.raises(ExtractionError, match="unknown charset 'klingon-8'"):
        HtmlExtractor().extract(b"<meta charset=klingon-8><p>text</p>", "k.html")


def test_legacy_declaration_over_utf8_bytes_is_noted() -> None:
    data = '<meta charset="iso-8859-1"><p>café and more text</p>'.encode()
    text, notes = decode_html(data, "m.html")
    assert "cafÃ©" in text  # decoded as declared, like a browser would
    assert notes and "valid UTF-8" in notes[0]


def test_megabytes_of_script_are_cut_not_indexed() -> None:
    script = "<script>" + "var tracking = {id: 1, payload: 'x'};\n" * 400_000 + "</script>"
    data = html_page(script + ARTICLE + script)
    assert len(data) > 20_000_000 // 2
    result = HtmlExtractor().extract(data, "heavy.html")
    assert "tracking" not in result.text
    assert "Claims are submitted" in result.text


def test_readability_finding_nothing_falls_back_to_body_and_says_so() -> None:
    links = "<ul>" + "".join(f"<li><a href='/doc{i}'>Document {i}</a></li>" for i in range(15)) + "</ul>"
    result = HtmlExtractor().extract(html_page(links), "links.html")
    assert FALLBACK_NOTE in result.notes
    assert "Document 0\nDocument 1\n" in result.text


def test_page_without_visible_text_has_no_extractable_text() -> None:
    with pytest.raises(ExtractionError, match="no extractable text"):
        HtmlExtractor().extract(html_page(NOISE), "empty.html")


def test_deeply_nested_html_is_refused_rather_than_truncated() -> None:
    body = "<p>Before the nesting.</p>" + "<div>" * 400 + "<p>deep</p>" + "</div>" * 400 + "<p>After.</p>"
    with pytest.raises(ExtractionError, match="Excessive depth") as info:
        HtmlExtractor().extract(html_page(body), "deep.html")
    assert "would be lost" in str(info.value)


def test_moderately_nested_html_keeps_all_text() -> None:
    deep = "<div>" * 200 + "<p>Deep but fine paragraph text.</p>" + "</div>" * 200
    body = ARTICLE.replace("</article>", deep + "</article>")
    text = HtmlExtractor().extract(html_page(body), "nested.html").text
    assert "Deep but fine paragraph text." in text


def test_registry_picks_html_for_htm() -> None:
    assert extract(html_page(ARTICLE), "web/Page.HTM").identity.startswith("html/1 ")


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé", min_size=1, max_size=9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=4, max_size=20), min_size=1, max_size=6))
def test_every_visible_word_appears_in_order(paragraphs: list[list[str]]) -> None:
    body = "".join(f"<p>{'  '.join(words)}</p>" for words in paragraphs)
    # The script's word has digits, which no generated word has: seeing it would mean the script leaked.
    text = HtmlExtractor().extract(html_page(body + "<script>var hidden42;</script>"), "h.html").text
    assert text.split() == [w for words in paragraphs for w in words]
    assert "hidden42" not in text


@given(st.text(alphabet=" \t\n\r\f\v\u00a0\u2028\x1cab"))
def test_fold_whitespace_folds_exactly_html_whitespace(text: str) -> None:
    assert fold_whitespace(text) == re.sub("[ \t\n\r\f]+", " ", text).strip(" ")
