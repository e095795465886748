"""Cut a document's text into passages that follow its structure.

Invariant (tested by property tests): `passage.text == text[passage.start:passage.end]`,
passages do not overlap, and together they cover every non-blank line; a line too long for
one passage is cut at a space, or else never inside an ASCII word of under WORD_KEPT_WHOLE
characters (the `passage_max_chars` setting is at least three times that). Markdown blocks
are the top-level blocks of a CommonMark parse with GFM tables (pyromark, which gives each
block's source range); lines no block claims (link reference definitions, for instance)
become blocks of their own, so nothing is lost. A Markdown text within one passage is cut at
its headings alone; when its lines are plain (`_LINE_START`), a line scan finds them instead of
the parse, with the same passages (tests/test_chunk_scan.py).
reStructuredText and AsciiDoc blocks come from their line readers (indexer.text.rst,
indexer.text.asciidoc). Plain text and extracted text are cut at blank lines. Passages
never cross a PDF page boundary.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from operator import not_
from typing import Any

import pyromark

from indexer.text import asciidoc, rst
from indexer.text.kinds import TextFormat
from indexer.text.model import LineIndex, line_starts
from indexer.text.passage import Passage, SpanFields

HEADING_SEPARATOR = " › "
# A cut inside a long line never splits an ASCII word shorter than this (when passages are longer).
WORD_KEPT_WHOLE = 32


@dataclass(slots=True)
class _Block:
    first: int  # 1-based line numbers, inclusive
    last: int
    heading_level: int = 0
    heading_text: str = ""


# A Rust CommonMark parser: the block structure of a document costs a tenth of what it did
# with markdown-it-py, which was most of a cold build (BENCHMARKS.md, issue 14).
_MARKDOWN_OPTIONS = pyromark.Options.ENABLE_TABLES


def cut_key(fmt: TextFormat, max_chars: int) -> str:
    """What decides how `chunk` cuts a text of format `fmt` besides its text: the format, the bound
    and, for Markdown, the parser's version (a release of it may read a block otherwise)."""
    parser = f";pyromark={pyromark.__version__}" if fmt == "markdown" else ""
    return f"{fmt};max={max_chars}{parser}"


def chunk(
    text: str,
    *,
    markdown: bool = False,
    max_chars: int,
    page_starts: tuple[int, ...] = (),
    fmt: TextFormat | None = None,
) -> list[Passage]:
    """Passages of `text`; its structure is read by `fmt` ("plain" when not given, or
    "markdown" when only `markdown` is set)."""
    return [
        Passage(ordinal, start, end, first, last, heading, text[start:end], page_start, page_end)
        for ordinal, start, end, first, last, heading, page_start, page_end in chunk_spans(
            text, markdown=markdown, max_chars=max_chars, page_starts=page_starts, fmt=fmt
        )
    ]


def chunk_spans(
    text: str,
    *,
    markdown: bool = False,
    max_chars: int,
    page_starts: tuple[int, ...] = (),
    fmt: TextFormat | None = None,
) -> list[SpanFields]:
    """`chunk`'s passages as their fields without their text, as the index's writer takes them:
    a build's workers make no `Passage` and no copy of its text."""
    return _chunk(text, fmt or ("markdown" if markdown else "plain"), max_chars, page_starts, scan=True)


def _chunk(text: str, fmt: TextFormat, max_chars: int, page_starts: tuple[int, ...], *, scan: bool) -> list[SpanFields]:
    """`chunk_spans`; `scan`: a plain Markdown text within one passage may be cut at headings a line
    scan finds instead of the parse's (the same passages: tests/test_chunk_scan.py)."""
    if scan and fmt == "markdown" and len(text) <= max_chars and not page_starts:
        passages = _plain_markdown_passages(text)
        if passages is not None:
            return passages
    split = text.split("\n")
    lines = LineIndex(text, split)
    line_texts = split[: lines.line_count]  # each line without its "\n", as LineIndex cuts them
    blank = list(map(not_, map(str.strip, line_texts)))  # a blank line strips to ""
    blocks = _structure_blocks(text, fmt, line_texts, blank, lines)
    blocks = _fill_gaps(blocks, blank)
    blocks = _split_at_pages(blocks, lines, page_starts)
    return _group(text, lines, blocks, max_chars, page_starts)


def _structure_blocks(
    text: str, fmt: TextFormat, line_texts: list[str], blank: list[bool], lines: LineIndex
) -> list[_Block]:
    if fmt == "markdown":
        return _markdown_blocks(text, blank, lines)
    if fmt == "plain":
        return []
    # A CRLF line keeps its "\r" in line_texts; the line readers look at stripped content.
    reader = rst.blocks if fmt == "rst" else asciidoc.blocks
    result: list[_Block] = []
    for first, last, level, heading in reader([line.rstrip("\r") for line in line_texts]):
        block = _trimmed(first, last, blank)
        if block is not None:
            block.heading_level, block.heading_text = level, heading
            result.append(block)
    return result


def _markdown_blocks(text: str, blank: list[bool], lines: LineIndex) -> list[_Block]:
    """The document's top-level blocks, each with its lines (and, for a heading, its level and text)."""
    source = text.encode("utf-8")
    # "\n" is one byte in UTF-8: the same lines as `lines`, at the same offsets in an ASCII text.
    starts = lines.starts if len(source) == len(text) else byte_line_starts(source)
    blocks: list[_Block] = []
    # About two hundred events a document, most of them inline: only a top-level event makes a
    # block, and what a block holds is passed over by `_block_end` (a heading's is read).
    # Events are dicts or strings (typed as unions); the loops read them by shape.
    events: Iterator[tuple[Any, Any]] = iter(pyromark.events_with_range(text, options=_MARKDOWN_OPTIONS))
    for event, where in events:
        start, end = where["start"], where["end"]
        block = _trimmed(bisect_right(starts, start), bisect_right(starts, max(start, end - 1)), blank)
        opens = type(event) is dict and "Start" in event
        level = _heading_level(event["Start"]) if opens and block is not None else 0
        if block is not None:
            blocks.append(block)
        if level:
            assert block is not None
            inner = _heading_inner(events)
            block.heading_level = level
            block.heading_text = source[min(inner) : max(inner)].decode("utf-8").strip() if inner else ""
        elif opens:
            _block_end(events)
    return blocks


# A Markdown text within one passage is cut at its top-level headings alone (`_group`), so only
# they need finding. In a "plain" text an ATX heading is exactly a line of one to six "#" and a
# space or its end: nothing can hold such a line (a list item, a fence, an HTML block, a table, a
# link definition's next lines) and no other line can be a heading (a setext underline). What could
# make it otherwise sends the text to the parse, and generously: a string of `_NOT_PLAIN_ANYWHERE`
# anywhere, a lone "\r" (a line end to the parser), or a line `_LINE_START` finds that is not a
# "#" line (its group 1) or a "#" line that is not all `_PLAIN_HEADING`.
_NOT_PLAIN_ANYWHERE = (
    "```",  # a fence, in any container, holds its lines
    "~~~",
    "\t",  # indentation the parser counts in columns
    "\\#",  # an escaped "#"
    "\x00",  # the parser reads a NUL as U+FFFD
    "\x0b",  # white space to the parser
    "\x0c",
    "\ufeff",  # a byte-order mark the parser may pass over
)
_LONE_CR = re.compile(r"\r(?!\n)")
_LINE_START = re.compile(  # searched in "\n" + text: each line start is a "\n"
    r"\n(?:(#[^\n]*)"  # a "#" line
    r"| {1,3}#"  # a "#" line a list item could hold
    r"| {4}"  # indented code, or a list item's deeper lines
    r"|[ =]*=[ =]*\r?(?=\n|\Z)|[ |:-]*-[ |:-]*\r?(?=\n|\Z)"  # setext underlines, table delimiters, breaks
    r"|[ >*+.)0-9-]*(?:<|\[[^\]\n]*\]:))"  # an HTML block or a link definition, also in a quote or a list
)
# The whole of a "#" line that is a heading: its text has no white space but spaces, no control
# character and no character markup or an entity could start with, so the parse's text (its
# children's source, stripped) is the line's, stripped of its closing "#"s.
_PLAIN_HEADING = re.compile(r"(#{1,6})((?:[ ](?:[ ]|[^\s\x00-\x1f\x7f\\`*_\[\]<>&~|{}!$^])*)?)\r?")


def _plain_markdown_headings(text: str) -> list[tuple[int, int, str]] | None:
    """(where its line starts, level, text) of each ATX heading of a plain Markdown text (see
    `_LINE_START`), or None for a text the parse must read."""
    if any(map(text.__contains__, _NOT_PLAIN_ANYWHERE)) or ("\r" in text and _LONE_CR.search(text)):
        return None
    headings: list[tuple[int, int, str]] = []
    for found in _LINE_START.finditer("\n" + text):  # found.start(): in text, where the line starts
        heading = _PLAIN_HEADING.fullmatch(found[1]) if found[1] is not None else None
        if heading is None:
            return None
        inner = heading[2].rstrip(" ")
        unclosed = inner.rstrip("#")
        if not unclosed or unclosed.endswith(" "):
            inner = unclosed  # a closing sequence: "#"s after a space, at the end
        headings.append((found.start(), len(heading[1]), inner.strip()))
    return headings


def _plain_markdown_passages(text: str) -> list[SpanFields] | None:
    """What `_group` makes of a plain Markdown text within one passage, or None (see `_LINE_START`):
    a passage from each heading (and one for what comes first) to the last non-blank line before
    the next, named by the headings it is under."""
    headings = _plain_markdown_headings(text)
    if headings is None:
        return None
    passages: list[SpanFields] = []
    trail: list[tuple[int, str]] = []
    first = text[: headings[0][0] if headings else len(text)]
    if first.strip():  # what comes before the first heading: from its first non-blank line
        lead = len(first) - len(first.lstrip())
        passages.append(_plain_passage(text, 0, first.rfind("\n", 0, lead) + 1, len(first), ""))
    for n, (start, level, name) in enumerate(headings):
        trail[:] = [(lvl, t) for lvl, t in trail if lvl < level]
        trail.append((level, name))
        until = headings[n + 1][0] if n + 1 < len(headings) else len(text)
        heading = HEADING_SEPARATOR.join(t for _, t in trail)
        passages.append(_plain_passage(text, len(passages), start, until, heading))
    return passages


def _plain_passage(text: str, ordinal: int, start: int, until: int, heading: str) -> SpanFields:
    """The passage from `start` (a non-blank line's start) to the end of the last non-blank line
    before `until`, without a final "\r"."""
    last = start + len(text[start:until].rstrip())  # just past the last non-blank character
    end = text.find("\n", last, until)
    end = until if end < 0 else end
    if text[end - 1] == "\r":
        end -= 1
    first_line = text.count("\n", 0, start) + 1
    last_line = first_line + text.count("\n", start, max(start, end - 1))
    return ordinal, start, end, first_line, last_line, heading, None, None


def _block_end(events: Iterator[tuple[Any, Any]]) -> None:
    """Pass over the events of an opened block, its closing event the last."""
    depth = 1
    for event, _where in events:
        if type(event) is dict:
            if "End" in event:
                depth -= 1
                if not depth:
                    return
            elif "Start" in event:
                depth += 1


def _heading_inner(events: Iterator[tuple[Any, Any]]) -> list[int]:
    """Byte offsets of what an opened heading holds (its children's ranges); passes over its events."""
    inner: list[int] = []
    depth = 1
    for event, where in events:
        closes = type(event) is dict and "End" in event
        if closes:
            depth -= 1
            if not depth:
                break
            continue
        if depth == 1:
            inner += (where["start"], where["end"])
        if type(event) is dict and "Start" in event:
            depth += 1
    return inner


def byte_line_starts(source: bytes) -> list[int]:
    """Where each line of UTF-8 `source` starts: pyromark's ranges are byte offsets."""
    return line_starts(source.split(b"\n"))


def _heading_level(started: Any) -> int:
    """1-6 for what a heading's start event names (`{"Heading": {"level": "H2", ...}}`), else 0."""
    if type(started) is not dict or "Heading" not in started:
        return 0
    return int(started["Heading"]["level"][1:])


def _trimmed(first: int, last: int, blank: list[bool]) -> _Block | None:
    last = min(last, len(blank))
    if first <= last and not blank[first - 1] and not blank[last - 1]:
        return _Block(first, last)  # most blocks: no blank line at either end
    while first <= last and blank[first - 1]:
        first += 1
    while last >= first and blank[last - 1]:
        last -= 1
    return _Block(first, last) if first <= last else None


def _fill_gaps(blocks: list[_Block], blank: list[bool]) -> list[_Block]:
    """Keep token blocks in order without overlap; make runs of unclaimed lines blocks."""
    filled: list[_Block] = []
    claimed = 0  # the last line of the last token block kept: the kept blocks never overlap
    for block in sorted(blocks, key=_first_line):
        if block.first <= claimed:
            block.first = claimed + 1
            if block.first > block.last:
                continue
        if block.first > claimed + 1:
            _unclaimed_runs(claimed + 1, block.first - 1, blank, filled)
        filled.append(block)
        claimed = block.last
    _unclaimed_runs(claimed + 1, len(blank), blank, filled)
    return filled


def _first_line(block: _Block) -> int:
    return block.first


def _unclaimed_runs(first: int, last: int, blank: list[bool], blocks: list[_Block]) -> None:
    """Append a block for each run of non-blank lines among the unclaimed lines first..last."""
    n = first
    while n <= last:
        if blank[n - 1]:
            n += 1
            continue
        start = n
        while n <= last and not blank[n - 1]:
            n += 1
        blocks.append(_Block(start, n - 1))


def _split_at_pages(blocks: list[_Block], lines: LineIndex, page_starts: tuple[int, ...]) -> list[_Block]:
    if not page_starts:
        return blocks
    page_lines = {lines.line_of(offset) for offset in page_starts}
    result: list[_Block] = []
    for block in blocks:
        first = block.first
        for n in range(block.first + 1, block.last + 1):
            if n in page_lines:
                result.append(_Block(first, n - 1, block.heading_level, block.heading_text))
                first = n
        result.append(_Block(first, block.last, block.heading_level, block.heading_text))
    return result


def _group(
    text: str, lines: LineIndex, blocks: list[_Block], max_chars: int, page_starts: tuple[int, ...]
) -> list[SpanFields]:
    """Passages of the blocks, in order: a group of blocks ends at a heading, before a block that
    would take it past `max_chars` or that starts a page; a group is cut into `_pieces`."""
    starts = lines.starts
    passages: list[SpanFields] = []
    trail: list[tuple[int, str]] = []
    heading = ""  # the trail's names, joined: they change at a heading only
    page_lines = {lines.line_of(offset) for offset in page_starts}
    # A text no longer than a passage, without pages, is cut at its headings alone: no group outgrows it.
    whole = len(text) <= max_chars and not page_starts
    first = last = 0  # the group's lines; 0: no group

    for block in blocks:
        if block.heading_level:
            if first:
                _add_passages(text, starts, first, last, max_chars, heading, page_starts, passages)
                first = 0
            trail[:] = [(lvl, t) for lvl, t in trail if lvl < block.heading_level]
            trail.append((block.heading_level, block.heading_text))
            heading = HEADING_SEPARATOR.join(t for _, t in trail)
        elif first and not whole:
            size = _span_end(text, starts, block.last) - starts[first - 1]
            if size > max_chars or block.first in page_lines:
                _add_passages(text, starts, first, last, max_chars, heading, page_starts, passages)
                first = 0
        if not first:
            first = block.first
        last = block.last
    if first:
        _add_passages(text, starts, first, last, max_chars, heading, page_starts, passages)
    return passages


def _add_passages(
    text: str,
    starts: list[int],
    first: int,
    last: int,
    max_chars: int,
    heading: str,
    page_starts: tuple[int, ...],
    passages: list[SpanFields],
) -> None:
    """Append the passages of lines first..last (a passage per piece) to `passages`."""
    for start, end in _pieces(text, starts, first, last, max_chars):
        passages.append(_span(starts, len(passages), start, end, heading, page_starts))


def _span_end(text: str, starts: list[int], line: int) -> int:
    """Just past the content of `line` (1-based, of the line `starts`), before its "\\r\\n" or "\\n"."""
    end = starts[line] - 1 if line < len(starts) else len(text)
    if end > starts[line - 1] and text[end - 1] == "\r":
        end -= 1
    return end


def _pieces(text: str, starts: list[int], first: int, last: int, max_chars: int) -> list[tuple[int, int]]:
    """Spans of whole lines first..last, cut at line ends (or inside a huge line) to fit."""
    start = starts[first - 1]
    end_of_all = _span_end(text, starts, last)
    if end_of_all - start <= max_chars:  # most groups: one piece
        return [(start, end_of_all)] if text[start:end_of_all].strip() else []
    pieces: list[tuple[int, int]] = []
    while start < end_of_all:
        if end_of_all - start <= max_chars:
            pieces.append((start, end_of_all))
            break
        limit = start + max_chars
        cut = text.rfind("\n", start, limit)
        if cut > start:
            end = cut - 1 if text[cut - 1] == "\r" else cut  # the end of the line `cut` ends
            pieces.append((start, max(end, start + 1)))
            start = cut + 1
        else:
            space = max(text.rfind(" ", start + max_chars // 2, limit), text.rfind("\t", start + max_chars // 2, limit))
            cut = space + 1 if space > start else _before_short_word(text, start, limit)
            pieces.append((start, cut))
            start = cut
        while start < end_of_all and text[start] in "\r\n":  # blank lines start no piece
            start += 1
    return [(s, e) for s, e in pieces if text[s:e].strip()]


def _before_short_word(text: str, start: int, limit: int) -> int:
    """`limit`, or the start of the ASCII word it would split if that word is short.

    Quote lookup finds a version by the whole words of the quote in its passages
    (indexer.index.store), so a cut must not split one.
    """
    run = limit
    while run > start and limit - run < WORD_KEPT_WHOLE and _ascii_word_char(text[run - 1]):
        run -= 1
    inside_word = _ascii_word_char(text[limit]) and run < limit
    return run if inside_word and run > start and not _ascii_word_char(text[run - 1]) else limit


def _ascii_word_char(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _span(
    starts: list[int], ordinal: int, start: int, end: int, heading: str, page_starts: tuple[int, ...]
) -> SpanFields:
    """The passage [start, end) with its lines (and pages), but its text."""
    first_line, last_line = bisect_right(starts, start), bisect_right(starts, max(start, end - 1))
    if not page_starts:
        return ordinal, start, end, first_line, last_line, heading, None, None
    first_page, last_page = bisect_right(page_starts, start) + 1, bisect_right(page_starts, max(start, end - 1)) + 1
    return ordinal, start, end, first_line, last_line, heading, first_page, last_page
