"""The changed words inside a hunk's changed lines (indexer/text/word_diff.py)."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from indexer.text.word_diff import MAX_TOKENS, hunk_marks, line_marks


def _marked(lines: list[str]) -> list[tuple[int, str]]:
    return [(n, lines[n][start:end]) for n, start, end in hunk_marks(lines)]


def test_a_substituted_word_is_marked_on_both_lines() -> None:
    lines = ["-Records are kept for seven years.", "+Records are kept for ten years."]
    assert _marked(lines) == [(0, "seven"), (1, "ten")]


def test_an_inserted_word_is_marked_without_the_space_around_it() -> None:
    lines = ["-kept after departure.", "+kept after the departure date."]
    assert _marked(lines) == [(1, "the"), (1, "date")]


def test_changed_words_parted_by_a_space_are_one_mark() -> None:
    assert _marked(["-a b c d e f", "+a x y d e f"]) == [(0, "b c"), (1, "x y")]


def test_a_whitespace_change_is_marked() -> None:
    assert _marked(["-one  two three", "+one two three"]) == [(0, "  "), (1, " ")]


def test_cjk_characters_are_words_of_their_own_and_offsets_are_code_points() -> None:
    lines = ["-东京 🎌 保留期限为七年", "+东京 🎌 保留期限为八年"]
    assert _marked(lines) == [(0, "七"), (1, "八")]
    assert hunk_marks(lines) == [(0, 11, 12), (1, 11, 12)]


def test_unrelated_lines_unpaired_lines_and_notes_get_no_marks() -> None:
    assert hunk_marks(["-Unrelated.", "+Something else entirely."]) == []
    assert hunk_marks(["+only an added line"]) == []
    lines = ["-last line one", "-last line two", "+last line 1", "\\ No newline at end of file"]
    assert _marked(lines) == [(0, "one"), (2, "1")]


def test_a_line_past_the_token_bound_gets_no_marks() -> None:
    long = " ".join(["w"] * MAX_TOKENS)
    assert line_marks(long + " a", long + " b") == ([], [])


@given(st.text(max_size=60), st.text(max_size=60))
def test_marks_lie_inside_their_line_in_order_and_identical_lines_get_none(old: str, new: str) -> None:
    old, new = old.replace("\n", " "), new.replace("\n", " ")
    lines = ["-" + old, "+" + new]
    marks = hunk_marks(lines)
    for n, start, end in marks:
        assert 1 <= start < end <= len(lines[n])
    for (n1, _s1, e1), (n2, s2, _e2) in pairwise(marks):
        assert n1 < n2 or e1 < s2  # sorted, apart
    assert hunk_marks(["-" + old, "+" + old]) == []
