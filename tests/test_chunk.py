"""Passages: exact slices of the text that cover it, with agreeing line ranges."""

from __future__ import annotations

import dataclasses
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.text import chunk as chunk_mod
from indexer.text.chunk import HEADING_SEPARATOR, WORD_KEPT_WHOLE, chunk, chunk_spans
from indexer.text.kinds import TextFormat
from indexer.text.model import LineIndex, Span
from indexer.text.passage import SpanFields

LINE_PIECES = st.sampled_from(
    [
        "",
        "   ",
        "# Heading",
        "## Sub heading 東京",
        "plain words here",
        "- list item",
        "1. numbered",
        "```",
        "code = 1",
        "| a | b |",
        "|---|---|",
        "[ref]: https://example.org/x",
        "> quoted 😀 text",
        "Café naïve façade",
        "\t indented",
        "x" * 700,
        "Section title",
        "=============",
        "-----",
        ".. note::",
        ".. raw:: html",
        "   indented body",
        "Example::",
        "== AsciiDoc section",
        "= Document title",
        "----",
        "....",
        "[source,python]",
        ".Block title",
        "|===",
        "--",
        "<div>",
        "<!-- a comment",
        "-->",
        "<pre>",
        "</pre>",
    ]
)

FORMATS = st.sampled_from(["markdown", "rst", "asciidoc", "plain"])


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.one_of(LINE_PIECES, st.text(max_size=60)), max_size=40))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines)
    if draw(st.booleans()):
        text += newline
    return text


def _check_invariants(text: str, fmt: TextFormat, max_chars: int) -> None:
    passages = chunk(text, fmt=fmt, max_chars=max_chars)
    lines = LineIndex(text)
    covered = [False] * len(text)
    previous_end = 0
    for p in passages:
        assert text[p.start : p.end] == p.text
        assert p.start >= previous_end, "passages overlap or are out of order"
        previous_end = p.end
        assert p.text.strip(), "a passage is blank"
        assert p.line_start == lines.line_of(p.start)
        assert p.line_end == lines.line_of(max(p.start, p.end - 1))
        for i in range(p.start, p.end):
            covered[i] = True
    for i, ch in enumerate(text):
        if not ch.isspace():
            assert covered[i], f"non-blank character {ch!r} at {i} is in no passage"


@settings(max_examples=300, deadline=None)
@given(documents(), FORMATS, st.integers(min_value=20, max_value=2000))
def test_passages_are_exact_slices_that_cover_the_text(text: str, fmt: TextFormat, max_chars: int) -> None:
    _check_invariants(text, fmt, max_chars)


@settings(max_examples=200, deadline=None)
@given(st.text(), FORMATS, st.integers(min_value=5, max_value=300))
def test_arbitrary_unicode_text_keeps_the_invariants(text: str, fmt: TextFormat, max_chars: int) -> None:
    _check_invariants(text, fmt, max_chars)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="abcXYZ019", min_size=1, max_size=45), min_size=1, max_size=60),
    st.sampled_from(["\u00a0", "\u3000", "-", ".", "\r"]),
    FORMATS,
    st.integers(min_value=100, max_value=300),
)
def test_a_long_line_is_never_cut_inside_a_short_word(
    words: list[str], separator: str, fmt: TextFormat, max_chars: int
) -> None:
    # Quote lookup finds versions by whole words in their passages (indexer.index.store).
    text = separator.join(words)
    passages = chunk(text, fmt=fmt, max_chars=max_chars)
    for before, after in itertools.pairwise(passages):
        cut = after.start
        if before.end == cut and text[cut - 1].isalnum() and text[cut].isalnum():
            word_start, word_end = cut, cut
            while word_start > 0 and text[word_start - 1].isalnum():
                word_start -= 1
            while word_end < len(text) and text[word_end].isalnum():
                word_end += 1
            assert word_end - word_start >= WORD_KEPT_WHOLE, f"{text[word_start:word_end]!r} was cut"


@settings(max_examples=100, deadline=None)
@given(documents(), FORMATS, st.integers(min_value=20, max_value=500))
def test_passages_are_bounded_in_length(text: str, fmt: TextFormat, max_chars: int) -> None:
    for p in chunk(text, fmt=fmt, max_chars=max_chars):
        assert len(p.text) <= max_chars


def _reference_spans(text: str, fmt: TextFormat, max_chars: int, page_starts: tuple[int, ...]) -> list[SpanFields]:
    """What `chunk_spans` gives, the slow way: the chunker's blocks grouped a block at a time and cut
    a character at a time, every line number asked of a `LineIndex`."""
    lines = LineIndex(text)
    line_texts = text.split("\n")[: lines.line_count]
    blank = [not line.strip() for line in line_texts]
    blocks = chunk_mod._structure_blocks(text, fmt, line_texts, blank, lines)
    blocks = chunk_mod._split_at_pages(chunk_mod._fill_gaps(blocks, blank), lines, page_starts)
    page_lines = {lines.line_of(offset) for offset in page_starts}
    whole = len(text) <= max_chars and not page_starts

    def content_end(line: int) -> int:  # before the line's "\n", and its "\r"
        end = lines.line_end(line)
        return end - 1 if end > lines.line_start(line) and text[end - 1] == "\r" else end

    def pieces(start: int, end_of_all: int) -> list[tuple[int, int]]:
        found = []
        while start < end_of_all:
            if end_of_all - start <= max_chars:
                found.append((start, end_of_all))
                break
            newlines = [i for i in range(start + 1, start + max_chars) if text[i] == "\n"]
            if newlines:  # whole lines, up to the last line end that fits
                cut = newlines[-1]
                found.append((start, max(content_end(lines.line_of(cut)), start + 1)))
                start = cut + 1
            else:
                limit = start + max_chars
                spaces = [i for i in range(start + max_chars // 2, limit) if text[i] in " \t" and i > start]
                cut = spaces[-1] + 1 if spaces else chunk_mod._before_short_word(text, start, limit)
                found.append((start, cut))
                start = cut
            while start < end_of_all and text[start] in "\r\n":
                start += 1
        return [(s, e) for s, e in found if text[s:e].strip()]

    spans: list[SpanFields] = []
    trail: list[tuple[int, str]] = []
    group: list[tuple[int, int]] = []
    for block in [*blocks, None]:  # None: the end, which closes the last group
        heading_level = block.heading_level if block is not None else 0
        closes = block is None or heading_level > 0
        if block is not None and group and not whole and not closes:
            size = content_end(block.last) - lines.line_start(group[0][0])
            closes = size > max_chars or block.first in page_lines
        if closes and group:
            name = HEADING_SEPARATOR.join(t for _, t in trail)
            for start, end in pieces(lines.line_start(group[0][0]), content_end(group[-1][1])):
                first, last = lines.lines_of_span(Span(start, end))
                pages = [1 + sum(1 for p in page_starts if p <= offset) for offset in (start, max(start, end - 1))]
                page_start, page_end = (pages[0], pages[1]) if page_starts else (None, None)
                spans.append((len(spans), start, end, first, last, name, page_start, page_end))
            group = []
        if block is None:
            break
        if heading_level:
            trail = [(level, t) for level, t in trail if level < heading_level] + [(heading_level, block.heading_text)]
        group.append((block.first, block.last))
    return spans


@settings(max_examples=400, deadline=None)
@given(documents(), FORMATS, st.integers(min_value=20, max_value=400), st.data())
def test_passages_are_the_slow_references(text: str, fmt: TextFormat, max_chars: int, data: st.DataObject) -> None:
    # The grouping and cutting run per block and per passage on long texts: its arithmetic on line
    # starts must give what asking a LineIndex does, pages included.
    page_starts = tuple(sorted(set(data.draw(st.lists(st.integers(0, max(len(text) - 1, 0)), max_size=3)))))
    page_starts = page_starts if text else ()
    assert chunk_mod._chunk(text, fmt, max_chars, page_starts, scan=False) == _reference_spans(
        text, fmt, max_chars, page_starts
    )
    expected = chunk_spans(text, fmt=fmt, max_chars=max_chars, page_starts=page_starts)
    passages = chunk(text, fmt=fmt, max_chars=max_chars, page_starts=page_starts)
    assert [(*span[:6], text[span[1] : span[2]], *span[6:]) for span in expected] == [
        dataclasses.astuple(p) for p in passages
    ]


WORDS = st.text(st.characters(categories=["L", "N", "So"]), min_size=1, max_size=12)


PROSE_LINES = st.lists(st.one_of(st.lists(WORDS, min_size=1, max_size=6).map(" ".join), LINE_PIECES), max_size=12)


@settings(max_examples=200, deadline=None)
@given(PROSE_LINES, st.lists(WORDS, min_size=1, max_size=4), st.sampled_from(["#", "##", "######"]))
def test_a_markdown_heading_after_any_text_names_its_passages(before: list[str], words: list[str], marks: str) -> None:
    # The parser reports UTF-8 byte ranges: non-ASCII text before the heading must not shift it.
    if any(line.startswith(("```", "<", "\t", "   ")) for line in before):
        return  # an open fence, HTML block or indented code would hold the heading line
    title = " ".join(words)
    text = "\n".join(before) + f"\n\n{marks} {title}\n\nThe body.\n"
    last = chunk(text, fmt="markdown", max_chars=2000)[-1]
    assert last.text.startswith(f"{marks} {title}\n")
    assert last.heading.endswith(title)


def test_markdown_passages_follow_headings_and_carry_the_trail() -> None:
    text = "# Handbook\n\nIntro.\n\n## On-call\n\nPager rotates.\n\n### Escalation\n\nCall the lead.\n"
    passages = chunk(text, markdown=True, max_chars=1000)
    assert [p.heading for p in passages] == [
        "Handbook",
        f"Handbook{HEADING_SEPARATOR}On-call",
        f"Handbook{HEADING_SEPARATOR}On-call{HEADING_SEPARATOR}Escalation",
    ]
    assert passages[1].text == "## On-call\n\nPager rotates."
    assert (passages[2].line_start, passages[2].line_end) == (9, 11)


def test_link_reference_definitions_are_not_lost() -> None:
    text = "Para.\n\n[ref]: https://example.org\n"
    passages = chunk(text, markdown=True, max_chars=10)
    assert any("[ref]" in p.text for p in passages)


def test_crlf_line_ends_stay_outside_passage_ends() -> None:
    text = "one\r\ntwo\r\n\r\nthree\r\n"
    passages = chunk(text, markdown=False, max_chars=10)
    assert [p.text for p in passages] == ["one\r\ntwo", "three"]


def test_a_huge_line_is_cut_inside_the_line() -> None:
    text = ("word " * 1000).strip()
    passages = chunk(text, markdown=False, max_chars=100)
    assert len(passages) > 10
    assert all(p.line_start == p.line_end == 1 for p in passages)
    assert "".join(text[p.start : p.end] for p in passages).replace(" ", "") == text.replace(" ", "")


def test_passages_do_not_cross_pages() -> None:
    text = "page one line\npage one more\n\fpage two line\n"
    page_two = text.index("\f")
    passages = chunk(text, markdown=False, max_chars=1000, page_starts=(page_two,))
    assert [(p.page_start, p.page_end) for p in passages] == [(1, 1), (2, 2)]


RST = """\
=================
 Proposal title
=================

Abstract
========

A first paragraph
over two lines.

Example::

    code = 1

    more = 2

.. note::

   A directive body

   with two paragraphs.

Details
-------

Last words.
"""


def test_rst_passages_follow_sections_and_keep_blocks_whole() -> None:
    passages = chunk(RST, fmt="rst", max_chars=60)
    headings = {p.heading for p in passages}
    assert "Proposal title › Abstract" in headings
    assert "Proposal title › Abstract › Details" in headings
    texts = [p.text for p in passages]
    # The literal block and the directive, blank lines and all, each stand whole in one passage.
    assert any("    code = 1\n\n    more = 2" in t for t in texts)
    assert any(t.startswith(".. note::\n\n   A directive body\n\n   with two paragraphs.") for t in texts)
    assert not any("Last words" in t and "note" in t for t in texts)  # a section title starts a new passage


ADOC = """\
= Book title
:toc:

== Chapter one

A paragraph.

[source,python]
.Listing title
----
def f():

    return 1
----

=== Deeper

|===
| a | b

| c | d
|===
"""


def test_asciidoc_passages_follow_sections_and_keep_delimited_blocks_whole() -> None:
    passages = chunk(ADOC, fmt="asciidoc", max_chars=80)
    listing = "[source,python]\n.Listing title\n----\ndef f():\n\n    return 1\n----"
    table = "|===\n| a | b\n\n| c | d\n|==="
    assert any(p.text.endswith(listing) for p in passages)
    [holding_table] = [p for p in passages if table in p.text]
    assert holding_table.heading == "Book title › Chapter one › Deeper"
