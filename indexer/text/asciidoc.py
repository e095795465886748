"""AsciiDoc structure, read line by line: section titles, delimited blocks, paragraphs.

A delimited block (`----` listing, `....` literal, `====` example, `****` sidebar, `____`
quote, `++++` passthrough, `////` comment, `|===` table, `--` open block, a ``` fence)
runs to the line that repeats its delimiter and is one block, together with the block
attribute (`[source,python]`) and block title (`.Title`) lines directly above it. Section
titles are `=` to `======` followed by a space; `= Title` (level 0) is the document title.
"""

from __future__ import annotations

import re

Block = tuple[int, int, int, str]  # (first line, last line, heading level or 0, heading text), 1-based
Heading = tuple[int, int, str]  # (line, level 1 to 6, title), 1-based

# The title ends at its last non-space: `.*\S` finds it in one pass (a lazy `.*?\s*$` tried every
# position of a long line against the spaces after it, quadratic in the line).
_TITLE = re.compile(r"^(={1,6})\s+(\S(?:.*\S)?)\s*$")
_DELIMITER = re.compile(r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|\|={3,}|--|```.*)\s*$")
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
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith((":", "//")):  # header attributes and comments may come first
            continue
        heading = _TITLE.match(line)
        return heading.group(2) if heading and len(heading.group(1)) == 1 else ""
    return ""


def outline(lines: list[str]) -> list[Heading]:
    """The section titles (`=` to `======` lines) outside delimited blocks, in order."""
    return [(first, level, text) for first, _last, level, text in blocks(lines) if level]
