"""AsciiDoc structure, read line by line: section titles, delimited blocks, paragraphs.

A delimited block (`----` listing, `....` literal, `====` example, `****` sidebar, `____`
quote, `++++` passthrough, `////` comment, `|===` table, `--` open block, a ``` fence)
runs to the line that repeats its delimiter and is one block, together with the block
attribute (`[source,python]`) and block title (`.Title`) lines directly above it. Section
titles are `=` to `======` followed by a space, or two-line (setext) titles, as man pages write
them: a line starting with a word character over a line of one of `=-~^+`, as long as it to
one character (`NAME` over `----` is a level-1 title, not a listing); `= Title` (level 0) is the
document title.
"""

from __future__ import annotations

import re

Block = tuple[int, int, int, str]  # (first line, last line, heading level or 0, heading text), 1-based
Heading = tuple[int, int, str]  # (line, level 1 to 6, title), 1-based

# The title ends at its last non-space: `.*\S` finds it in one pass (a lazy `.*?\s*$` tried every
# position of a long line against the spaces after it, quadratic in the line).
_TITLE = re.compile(r"^(={1,6})\s+(\S(?:.*\S)?)\s*$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|\|={3,}|--|```.*)\s*$")
_UNDERLINE = re.compile(r"^([=\-~^+])\1+\s*$")
_UNDERLINE_LEVEL = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}  # as many `=` as a one-line title has
_PREAMBLE = re.compile(r"^(\[[^\]]*\]|\.[^.\s].*)\s*$")  # block attributes or a block title


def blocks(lines: list[str]) -> list[Block]:
    """The document's blocks; `lines` are its lines without line ends."""
    found: list[Block] = []
    i, count = 0, len(lines)
    while i < count:
        if not lines[i].strip():
            i += 1
            continue
        heading = _TITLE.match(lines[i])
        if heading:
            found.append((i + 1, i + 1, len(heading.group(1)), heading.group(2)))
            i += 1
            continue
        two_line = _two_line_title(lines, i)
        if two_line:
            found.append((i + 1, i + 2, two_line[0], two_line[1]))
            i += 2
            continue
        start = i
        while i < count and _PREAMBLE.match(lines[i]) and not _DELIMITER.match(lines[i]):
            i += 1
        if i < count and _DELIMITER.match(lines[i]):
            end = _closing(lines, i)
            found.append((start + 1, end + 1, 0, ""))
            i = end + 1
            continue
        i = start
        while i + 1 < count and lines[i + 1].strip() and not _DELIMITER.match(lines[i + 1]):
            if _TITLE.match(lines[i + 1]):
                break
            i += 1
        found.append((start + 1, i + 1, 0, ""))
        i += 1
    return found


def _two_line_title(lines: list[str], i: int) -> tuple[int, str] | None:
    """(level, title) of a two-line title starting at line i, if one does (Asciidoctor's rule)."""
    if i + 1 >= len(lines):
        return None
    text, under = lines[i].rstrip(), _UNDERLINE.match(lines[i + 1])
    if not under or not (text[:1].isalnum() or text[:1] == "_") or _DELIMITER.match(text):
        return None
    if abs(len(text) - len(lines[i + 1].rstrip())) > 1:
        return None
    return _UNDERLINE_LEVEL[under.group(1)], text.strip()


def _closing(lines: list[str], i: int) -> int:
    """The line that closes the delimited block opened at i (the last line when it is never closed)."""
    opener = lines[i].rstrip()
    fence = opener.startswith("```")
    for n in range(i + 1, len(lines)):
        candidate = lines[n].rstrip()
        if candidate == opener or (fence and candidate == "```"):
            return n
    return len(lines) - 1


def title(lines: list[str]) -> str:
    """The document title: a level-0 `= Title` before any other block (after attribute lines)."""
    for n, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith((":", "//")):  # header attributes and comments may come first
            continue
        heading = _TITLE.match(line)
        if heading:
            return heading.group(2) if len(heading.group(1)) == 1 else ""
        two_line = _two_line_title(lines, n)
        return two_line[1] if two_line and two_line[0] == 1 else ""
    return ""


def outline(lines: list[str]) -> list[Heading]:
    """The section titles (`=` to `======` lines) outside delimited blocks, in order."""
    return [(first, level, text) for first, _last, level, text in blocks(lines) if level]
