"""reStructuredText structure, read line by line: section titles, paragraphs, literal blocks, directives.

docutils would parse the whole document tree (and costs many times more); passages only
need where blocks begin and end, which reST marks with blank lines, indentation and
adornment lines. A directive or comment (`.. name::`) with its indented body, and a
literal block after `::`, are single blocks, so a passage never cuts one in two unless it
is longer than a passage may be. Lines this reader does not claim are still covered by
the chunker's gap filling.
"""

from __future__ import annotations

import re

# (first line, last line, heading level (0: not a heading), heading text); lines are 1-based.
Block = tuple[int, int, int, str]

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")  # one punctuation character, repeated
_EXPLICIT = re.compile(r"^\s*\.\.(\s|$)")
_FIELD = re.compile(r"^:[^:\s][^:]*:(\s|$)")


def blocks(lines: list[str]) -> list[Block]:
    """The document's blocks; `lines` are its lines without line ends."""
    found: list[Block] = []
    styles: list[tuple[str, bool]] = []  # heading styles in order of first use: that order is the level
    i, count = 0, len(lines)
    while i < count:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        title = _title_at(lines, i)
        if title is not None:
            end, text, style = title
            if style not in styles:
                styles.append(style)
            found.append((i + 1, end + 1, styles.index(style) + 1, text))
            i = end + 1
            continue
        if _EXPLICIT.match(line):
            end = _indented_body(lines, i, _indent(line))
            found.append((i + 1, end + 1, 0, ""))
            i = end + 1
            continue
        end = i
        while end + 1 < count and lines[end + 1].strip() and _title_at(lines, end + 1) is None:
            end += 1
        found.append((i + 1, end + 1, 0, ""))
        if lines[end].rstrip().endswith("::"):  # a literal block follows: indented deeper than its paragraph
            literal_end = _indented_body(lines, end, _indent(line))
            if literal_end > end:
                start = _next_nonblank(lines, end + 1)
                assert start is not None  # _indented_body only moves past non-blank lines
                found.append((start + 1, literal_end + 1, 0, ""))
                end = literal_end
        i = end + 1
    return found


def _title_at(lines: list[str], i: int) -> tuple[int, str, tuple[str, bool]] | None:
    """(last line, title, style) of a section title starting at line i, if one does."""
    count = len(lines)
    over = _ADORNMENT.match(lines[i])
    if over and i + 2 < count and lines[i + 1].strip() and _same_adornment(lines[i], lines[i + 2]):
        return i + 2, lines[i + 1].strip(), (over.group(1), True)
    if over or _indent(lines[i]) or i + 1 >= count:
        return None
    under = _ADORNMENT.match(lines[i + 1])
    if under and len(lines[i + 1].rstrip()) >= len(lines[i].rstrip()) and not _EXPLICIT.match(lines[i]):
        return i + 1, lines[i].strip(), (under.group(1), False)
    return None


def _same_adornment(first: str, second: str) -> bool:
    return bool(_ADORNMENT.match(second)) and first.rstrip()[0] == second.rstrip()[0]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _indented_body(lines: list[str], i: int, indent: int) -> int:
    """The last line of the block starting at i: following lines indented deeper (or blank) belong to it."""
    last = i
    n = i + 1
    while n < len(lines) and (not lines[n].strip() or _indent(lines[n]) > indent):
        if lines[n].strip():
            last = n
        n += 1
    return last


def _next_nonblank(lines: list[str], i: int) -> int | None:
    while i < len(lines):
        if lines[i].strip():
            return i
        i += 1
    return None


def title(lines: list[str]) -> str:
    """The document title as docutils promotes it: the first section title, when nothing but
    comments, targets, substitution definitions or directives precede it, and, first of all,
    Sphinx's file-wide metadata (a field list: `:orphan:`, `:tocdepth: 2`), which Sphinx removes."""
    for n, (first, last, level, text) in enumerate(blocks(lines)):
        if level:
            return text
        if not _EXPLICIT.match(lines[first - 1]) and not (n == 0 and _is_field_list(lines[first - 1 : last])):
            return ""
    return ""


def _is_field_list(block: list[str]) -> bool:
    return all(_FIELD.match(line) or _indent(line) or not line.strip() for line in block)
