"""The changed words inside the changed lines of a diff hunk, as GitHub marks them.

git's zero-context hunk lists its removed lines, then its added ones. The i-th removed line is
paired with the i-th added line; inside each pair the words (runs of word characters), whitespace
runs and single punctuation marks (and each CJK character) are compared, and the code-point ranges that differ are the
marks: `[start, end)` in the hunk's line *with* its `-`/`+` sign, so that a page can wrap them
around exactly those characters (the diff pages here, the drift banner in the browser from the
history files).

A line with no partner, or a pair that shares less than half of its characters (two unrelated
lines: marking nearly everything says nothing), or a line past `MAX_TOKENS` tokens gets no marks;
its whole line is the change. Deterministic and bounded: difflib's matcher without its junk
heuristic, on at most `MAX_TOKENS` tokens a side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

MAX_TOKENS = 400
MIN_SHARED = 0.5  # a pair shares at least this share of the longer line's characters, or no marks
# Han, kana and hangul are written without spaces: each character is a word of its own there.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|\s+|[^\w\s]")

_WORD = re.compile(r"\w")
MAX_JOINED_GAP = 3  # unchanged marks between two changes that still make them one (`ten <b>days`)

Mark = tuple[int, int, int]  # (line index in the hunk, start, end): code points of that line


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def line_marks(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The changed ranges of a removed line's text and of its added partner (signs not included)."""
    a, b = _tokens(old), _tokens(new)
    if len(a) > MAX_TOKENS or len(b) > MAX_TOKENS:
        return [], []
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    blocks = matcher.get_matching_blocks()
    shared = sum(len("".join(a[i : i + n])) for i, _j, n in blocks)
    if shared < MIN_SHARED * max(len(old), len(new)):
        return [], []
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    a_at, b_at = _offsets(a), _offsets(b)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            _add(old_ranges, a, a_at, i1, i2)
        if j2 > j1:
            _add(new_ranges, b, b_at, j1, j2)
    return _trimmed(old, old_ranges), _trimmed(new, new_ranges)


def _trimmed(text: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges without the whitespace at their ends (a range of whitespace alone stays: that is the change)."""
    out = []
    for start, end in ranges:
        part = text[start:end]
        if part.strip():
            start += len(part) - len(part.lstrip())
            end -= len(part) - len(part.rstrip())
        out.append((start, end))
    return out


def _offsets(tokens: list[str]) -> list[int]:
    at = [0]
    for token in tokens:
        at.append(at[-1] + len(token))
    return at


def _add(ranges: list[tuple[int, int]], tokens: list[str], at: list[int], first: int, last: int) -> None:
    """Append tokens[first:last] as a range, joined to the range before when no word parts them
    (a space, or a few marks such as `<`, `)`): `ten <b>days` is one change, not three."""
    start, end = at[first], at[last]
    gap = "".join(tokens[_index(at, ranges[-1][1]) : first]) if ranges else "x"
    if ranges and (gap.isspace() or (len(gap) <= MAX_JOINED_GAP and not _WORD.search(gap))):
        ranges[-1] = (ranges[-1][0], end)
    else:
        ranges.append((start, end))


def _index(at: list[int], offset: int) -> int:
    return at.index(offset)


def hunk_marks(lines: Sequence[str]) -> list[Mark]:
    """The marks of a hunk's lines (`-old`, `+new`, `\\ notes`): (line index, start, end), sign counted."""
    removed = [n for n, line in enumerate(lines) if line.startswith("-")]
    added = [n for n, line in enumerate(lines) if line.startswith("+")]
    marks: list[Mark] = []
    for r, a in zip(removed, added, strict=False):
        old_ranges, new_ranges = line_marks(lines[r][1:], lines[a][1:])
        marks.extend((r, s + 1, e + 1) for s, e in old_ranges)
        marks.extend((a, s + 1, e + 1) for s, e in new_ranges)
    return sorted(marks)
