"""The heading scan of a plain Markdown text within one passage cuts it as the parse does.

`chunk` finds such a text's headings by a line scan (`_plain_markdown_headings`) and sends any
text the scan cannot vouch for to pyromark's parse; `_chunk(..., scan=False)` always parses.
The two must give the same passages, every field, for any text.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.text.chunk import _chunk, _plain_markdown_headings, chunk, chunk_spans

BOUND = 100_000  # every generated text is within one passage


def both_ways(text: str, max_chars: int = BOUND) -> None:
    scanned = _chunk(text, "markdown", max_chars, (), scan=True)
    parsed = _chunk(text, "markdown", max_chars, (), scan=False)
    assert scanned == parsed
    assert chunk_spans(text, fmt="markdown", max_chars=max_chars) == scanned


def scans(text: str) -> bool:
    return _plain_markdown_headings(text) is not None


# Pieces of a line: what a heading line may start, hold and end with, and what else a line may be.
HEADING_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from("abc XYZ 09 東京 😀 é # ## ( ) . , : ; ' \" / = - + ? % @"),
        st.sampled_from("*_[]`<>&~|{}!$^\\\t\u00a0\u3000\x0b\x0c\x1c\x85\u2028\x01\x7f\r"),
    ),
    max_size=14,
)
HEADINGS = st.builds(
    lambda indent, marks, gap, body, closing, trailing: indent + marks + gap + body + closing + trailing,
    st.sampled_from(["", "", "", " ", "   ", "    ", "\t"]),
    st.sampled_from(["#", "##", "###", "######", "#######"]),
    st.sampled_from([" ", " ", "  ", "", "\t", "\u00a0"]),
    HEADING_TEXT,
    st.sampled_from(["", "", " #", " ###", "#", " \\#", "  #  ", " # x"]),
    st.sampled_from(["", "", " ", "   "]),
)
OTHER_LINES = st.sampled_from(
    [
        "",
        "",
        "  ",
        "plain words here",
        "> Archiving utility.",
        "> More information: <https://example.org/tar#top>.",
        "> # a heading in a quote",
        ">",
        "- Create an archive [f]rom a file:",
        "- # a heading in a list item",
        "1. numbered",
        "10) numbered",
        "  continued in the item",
        "`tar cf {{path/to/target.tar}} | grep x`",
        "東京の説明 😀 Café",
        "trailing spaces   ",
        "***",
        "___",
        "```",
        "~~~",
        "```sh",
        "    indented code",
        "\tcode after a tab",
        "===",
        "=",
        "  ==  ",
        "---\t",
        "===\x0c",
        "---\x0b",
        "---",
        "- - -",
        "  --  ",
        "-",
        "| a | b |",
        "|---|:-:|",
        "a | b",
        "<div>",
        "<!-- a comment",
        "-->",
        "> <div>",
        "- <p>",
        "[ref]: https://example.org/x",
        "[ref]:",
        "- [ref]: /url 'a title",
        "'",
        "\\# not a heading",
        "a line\\",
        "\ufeff# after a BOM",
        "a\rb",
        "a\r# b",
        "a\r===",
        "a\x0cb",
        "\x0c",
        "\u3000",
        "\x1c",
        "x\x00y",
    ]
)
PLAIN_HEADINGS = st.builds(
    lambda marks, gap, body, closing: marks + gap + body + closing,
    st.sampled_from(["#", "##", "###", "######"]),
    st.sampled_from([" ", "  ", " " * 5]),
    st.text(alphabet="abc XYZ09東京é#().,:'/=-+?", max_size=12),
    st.sampled_from(["", " #", " ##  ", "#", "   "]),
)
PLAIN_LINES = st.sampled_from(
    [
        "",
        "> Archiving utility.",
        "> More information: <https://example.org/x#y>.",
        "- Create an archive [f]rom a file:",
        "`tar cf {{path/to/target.tar}}`",
        "words and 東京",
        "***",
        "> # in a quote",
        "- # in a list",
        "trailing  ",
        "#",
        "###",
    ]
)


@st.composite
def documents(draw: st.DrawFn, risky: tuple[int, int] = (0, 3)) -> str:
    """Plain lines (headings of plain words between tldr-like lines) and `risky` (least, most)
    lines of anything, each of which may make the text one the scan must leave to the parse."""
    lines = draw(st.lists(st.one_of(PLAIN_HEADINGS, PLAIN_LINES), max_size=16))
    anything = st.one_of(HEADINGS, OTHER_LINES, st.text(max_size=20))
    for line in draw(st.lists(anything, min_size=risky[0], max_size=risky[1])):
        lines.insert(draw(st.integers(min_value=0, max_value=len(lines))), line)
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return newline.join(lines) + draw(st.sampled_from(["", newline]))


@settings(max_examples=1000, deadline=None)
@given(documents())
def test_the_scan_cuts_any_text_as_the_parse_does(text: str) -> None:
    both_ways(text)


@settings(max_examples=1000, deadline=None)
@given(documents(risky=(1, 1)))
def test_the_scan_cuts_a_text_with_one_odd_line_as_the_parse_does(text: str) -> None:
    both_ways(text)


# What may underline a paragraph line (a setext heading, a table's delimiter row) to the parser.
UNDERLINES = st.one_of(
    st.builds(
        lambda indent, marks, tail: indent + marks + tail,
        st.sampled_from(["", " ", "   ", "    "]),
        st.sampled_from(["=", "===", "-", "---", "- -", "|-", "-:", "|---|", ":-:|-"]),
        st.sampled_from(["", " ", "\t", "\x0b", "\x0c", "\r", " |", "\t "]),
    ),
    st.text(alphabet="=-|: \t\x0b\x0c\r", min_size=1, max_size=6),
)


@settings(max_examples=500, deadline=None)
@given(documents(risky=(0, 0)), st.sampled_from(["words", "`tar cf x`", "a | b", "# A"]), UNDERLINES, st.data())
def test_the_scan_cuts_a_line_under_another_as_the_parse_does(
    text: str, above: str, underline: str, data: st.DataObject
) -> None:
    lines = text.split("\n")
    lines.insert(data.draw(st.integers(min_value=0, max_value=len(lines))), f"{above}\n{underline}")
    both_ways("\n".join(lines))


@settings(max_examples=500, deadline=None)
@given(documents(risky=(0, 0)))
def test_the_scan_cuts_a_plain_text_as_the_parse_does(text: str) -> None:
    assert scans(text)
    both_ways(text)


@settings(max_examples=300, deadline=None)
@given(documents(), st.integers(min_value=20, max_value=400))
def test_the_scan_is_the_parse_at_any_bound(text: str, max_chars: int) -> None:
    both_ways(text, max_chars)


def test_a_tldr_page_is_scanned_with_its_headings() -> None:
    page = (
        "# tar\n\n> Archiving utility.\n> More information: <https://www.gnu.org/software/tar#x>.\n\n"
        "- [c]reate an archive and write it to a [f]ile:\n\n`tar cf {{path/to/target.tar}} {{path/to/file}}`\n\n"
        "## Options ##\n\n- List:\n\n`tar tvf {{a.tar}} | less`\n"
    )
    headings = _plain_markdown_headings(page)
    assert headings is not None
    assert headings == [(0, 1, "tar"), (page.index("## Options"), 2, "Options")]
    both_ways(page)
    assert [p.heading for p in chunk(page, fmt="markdown", max_chars=1200)] == ["tar", "tar › Options"]


@pytest.mark.parametrize(
    "text",
    [
        "# A\n\n```\n# not a heading\n```\n",
        "# A\n~~~\n# not a heading\n~~~\n",
        "# A\n\tcode\n",
        "# A\n\\# not a heading\n",
        "# A\nx\x00y\n",
        "# A\na\x0bb\n",
        "# A\n\x0c\n# B\n",
        "\ufeff# after a byte-order mark\n",
        "# A\nfoo\rbar\n",
        "# A\n    indented code\n",
        "- item\n  # in the item\n",
        "10. item\n   # in the item\n",
        "Title\n=====\n",
        "Title\n-----\n",
        "a | b\n--|--\n# B\n",
        "<div>\n# not a heading\n</div>\n",
        "> <div>\n# B\n",
        "[ref]:\n# B\n",
        "- [ref]: /url 'title\n# B\n'\n",
        "# A *emphasis*\n",
        "# A [link](x)\n",
        "# A `code`\n",
        "# A &amp; B\n",
        "# A <b>\n",
        "# A\u00a0B\n",
        "# A\u3000B\n",
        "#\tA\n",
        "#hashtag\n",
        "####### seven\n",
        "# A \\#\n",
    ],
)
def test_what_the_scan_cannot_vouch_for_goes_to_the_parse(text: str) -> None:
    assert not scans(text)
    both_ways(text)


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("# A #\nx\n", "A"),
        ("# A#\nx\n", "A#"),
        ("## A ## B ##   \nx\n", "A ## B"),
        ("# #\nx\n", ""),
        ("#\nx\n", ""),
        ("###   \nx\n", ""),
        ("# C# (language)\nx\n", "C# (language)"),
        ("# 東京 😀\r\nx\r\n", "東京 😀"),
    ],
)
def test_a_scanned_heading_is_named_as_the_parse_names_it(text: str, heading: str) -> None:
    assert scans(text)
    assert chunk(text, fmt="markdown", max_chars=1200)[0].heading == heading
    both_ways(text)
