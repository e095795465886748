"""The rendered Markdown view's source lines: what select-to-cite and the drift highlight read.

Every block of the rendered view names the source lines it came from (`data-line-start`,
`data-line-end`, left out when it is the first). A reader who selects words in a block cites those lines, so each word a
block shows must stand on the lines it names, a block's lines must lie inside its parent's,
and they must end on a line with text (not on the blank lines or link definitions after it).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.site.markdown import markdown_view

WORD = re.compile(r"w\d+")


class _Blocks(HTMLParser):
    """Each element with source lines: its tag, its lines, its parent's index, the words inside it."""

    VOID = frozenset({"br", "hr", "img"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[dict[str, object]] = []
        self.stack: list[tuple[str, int | None]] = []  # open tags, with the block each one is

    def _parent(self) -> int | None:
        return next((index for _, index in reversed(self.stack) if index is not None), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        index = None
        if "data-line-start" in values:
            index = len(self.blocks)
            self.blocks.append(
                {
                    "tag": tag,
                    "first": int(values["data-line-start"] or 0),
                    "last": int(values.get("data-line-end", values["data-line-start"]) or 0),
                    "parent": self._parent(),
                    "words": [],
                }
            )
        if tag not in self.VOID:
            self.stack.append((tag, index))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, index in self.stack:
            if index is not None:
                words = self.blocks[index]["words"]
                assert isinstance(words, list)
                words.extend(WORD.findall(data))


def _words(draw: st.DrawFn, counter: list[int], most: int = 6) -> str:
    count = draw(st.integers(1, most))
    words = []
    for _ in range(count):
        counter[0] += 1
        words.append(f"w{counter[0]}")
    styled = draw(st.sampled_from(["{}", "*{}*", "**{}**", "`{}`", "[{}](other.md)", "~~{}~~", "{}<sup>x</sup>"]))
    words[0] = styled.format(words[0])
    return " ".join(words)


@st.composite
def _block(draw: st.DrawFn, counter: list[int], depth: int = 0) -> list[str]:
    """A block's source lines (without its indentation)."""
    kinds = ["paragraph", "heading", "fence", "table", "html", "rule", "definition"]
    if depth < 2:
        kinds += ["list", "quote"]
    kind = draw(st.sampled_from(kinds))
    if kind == "paragraph":
        return [_words(draw, counter) for _ in range(draw(st.integers(1, 3)))]
    if kind == "heading":
        return ["#" * draw(st.integers(1, 4)) + " " + _words(draw, counter, 3)]
    if kind == "fence":
        return ["```rust", *(_words(draw, counter) for _ in range(draw(st.integers(0, 3)))), "```"]
    if kind == "table":
        rows = draw(st.integers(0, 3))
        return [
            "| a | b |",
            "|:--|--:|",
            *(f"| {_words(draw, counter, 2)} | {_words(draw, counter, 2)} |" for _ in range(rows)),
        ]
    if kind == "html":
        return [
            "<details>",
            f"<summary>{_words(draw, counter, 2)}</summary>",
            "",
            _words(draw, counter),
            "",
            "</details>",
        ]
    if kind == "rule":
        return ["---"] if draw(st.booleans()) else ["***"]
    if kind == "definition":
        counter[0] += 1
        return [f"[ref{counter[0]}]: https://example.org/{counter[0]}"]
    if kind == "quote":
        inner = _document_lines(draw, counter, depth + 1, most=2)
        return [("> " + line).rstrip() for line in inner]
    marker = draw(st.sampled_from(["-", "*", "1."]))
    loose = draw(st.booleans())
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        item = _document_lines(draw, counter, depth + 1, most=2)
        pad = " " * (len(marker) + 1)
        lines += [marker + " " + item[0], *((pad + line) if line else "" for line in item[1:])]
        if loose:
            lines.append("")
    return lines


def _document_lines(draw: st.DrawFn, counter: list[int], depth: int = 0, most: int = 6) -> list[str]:
    lines: list[str] = []
    for n in range(draw(st.integers(1, most))):
        if n:
            lines += [""] * draw(st.integers(1, 2))
        lines += draw(_block(counter, depth))
    return lines


@st.composite
def markdown_documents(draw: st.DrawFn) -> str:
    return "\n".join(_document_lines(draw, [0])) + "\n"


@settings(max_examples=300, deadline=None)
@given(markdown_documents())
# A rule in a quoted list item was read as front matter to the next rule (an empty block ending on ">").
@example("> - w1\n>\n>   ---\n>\n> - w2\n>\n> - ```rust\n>   ```\n>\n\n---\n")
def test_every_word_of_a_block_stands_on_the_source_lines_it_names(text: str) -> None:
    html, _ = markdown_view(text)
    parser = _Blocks()
    parser.feed(str(html))
    parser.close()
    lines = text.split("\n")
    for block in parser.blocks:
        first, last = block["first"], block["last"]
        assert isinstance(first, int) and isinstance(last, int)
        assert 1 <= first <= last <= len(lines), block
        named = lines[first - 1 : last]
        assert named[-1].strip(" >"), (block, named)  # a block ends on a line with text
        source_words = set(WORD.findall("\n".join(named)))
        assert isinstance(block["words"], list)
        missing = [word for word in block["words"] if word not in source_words]
        assert not missing, (block["tag"], first, last, missing, text)
        parent = block["parent"]
        if parent is not None:
            outer = parser.blocks[parent]
            assert isinstance(outer["first"], int) and isinstance(outer["last"], int)
            assert outer["first"] <= first and last <= outer["last"], (outer, block, text)


def test_front_matter_is_read_only_at_the_start_and_a_rule_elsewhere_stays_a_rule() -> None:
    html, _ = markdown_view("> - item\n>\n>   ---\n>\n> - next\n\n---\n")
    assert "front matter" not in html and html.count("<hr") == 2
    html, _ = markdown_view("---\ntitle: A page\n---\n\n# A page\n\n- item\n\n  ---\n")
    assert html.count("front matter") == 1 and "language-yaml" in html and html.count("<hr") == 1


def test_a_tight_list_ends_on_its_last_item_not_on_the_definitions_after_it() -> None:
    text = "- one\n- two\n\n[a]: https://example.org/a\n[b]: https://example.org/b\n"
    html, _ = markdown_view(text)
    assert '<ul data-line-start="1" data-line-end="2">' in html
    assert '<li data-line-start="2">two</li>' in html  # one line: named once


def test_a_heading_with_an_image_is_titled_by_its_text() -> None:
    _, headings = markdown_view("### Orphaned goals ![Help wanted][]\n\n[Help wanted]: https://example.org/h.svg\n")
    assert headings == [(3, "h-orphaned-goals", "Orphaned goals")]


RAW_TEXT_OPENERS = ["<script>", "<style>", "<iframe src=x>", "<textarea>", "<noscript>", "<xmp>", "<plaintext>"]


@settings(max_examples=200, deadline=None)
@given(markdown_documents(), st.data())
def test_raw_text_left_open_inside_a_block_never_takes_the_blocks_after_it(text: str, data: st.DataObject) -> None:
    words = list(WORD.finditer(text))
    chosen = words[data.draw(st.integers(0, len(words) - 1))] if words else None
    if chosen is None:
        return
    opener = data.draw(st.sampled_from(RAW_TEXT_OPENERS))
    # After a word, never at a line's start: there `<script>` would begin an HTML block, which
    # CommonMark runs to its end tag however far that is.
    edited = text[: chosen.end()] + " " + opener + text[chosen.end() :]
    html, _ = markdown_view(edited)
    parser = _Blocks()
    parser.feed(str(html))
    parser.close()
    shown = set(WORD.findall(re.sub(r"<[^>]*>", " ", str(html))))
    after_block = edited.find("\n\n", chosen.end())
    later = WORD.findall(edited[after_block:]) if after_block != -1 else []
    lost = [word for word in later if word not in shown]
    assert not lost, (opener, lost, edited, str(html))
    assert "<script" not in html and "<iframe" not in html and "<style" not in html
