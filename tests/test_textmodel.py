"""Text decoding policy and offset/line arithmetic, checked against git itself."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.errors import ExtractionError
from indexer.text.model import LineIndex, Span, decode_text_blob


def test_bom_is_dropped_and_crlf_kept() -> None:
    text = decode_text_blob("\ufeffa\r\nb".encode(), "x.md")
    assert text == "a\r\nb"


def test_non_utf8_names_the_file() -> None:
    with pytest.raises(ExtractionError, match=r"latin\.txt: not valid UTF-8"):
        decode_text_blob("Café".encode("latin-1"), "latin.txt")


@given(st.text(alphabet=st.sampled_from("ab\n\r😀東 "), max_size=60))
def test_line_index_round_trips(text: str) -> None:
    lines = LineIndex(text)
    for offset in range(len(text) + 1):
        line, column = lines.column_of(offset)
        assert lines.offset_of(line, column) == offset
    if text:
        first, last = lines.lines_of_span(Span(0, len(text)))
        assert first == 1
        assert last == text[: len(text) - 1].count("\n") + 1


def test_lines_agree_with_git_show(corpus_repo) -> None:  # type: ignore[no-untyped-def]
    content = "\ufeffalpha\r\nbeta 😀\r\n\r\ngamma\rstill gamma\n"
    corpus_repo.commit({"corpus/a.md": content}, "add")
    shown = subprocess.run(
        ["git", "show", "HEAD:corpus/a.md"], cwd=corpus_repo.root, capture_output=True, check=True
    ).stdout.decode("utf-8-sig")
    text = decode_text_blob((corpus_repo.root / "corpus/a.md").read_bytes(), "corpus/a.md")
    assert text == shown
    lines = LineIndex(text)
    git_lines = shown.split("\n")
    for number in range(1, lines.line_count + 1):
        assert text[lines.line_start(number) : lines.line_end(number)] == git_lines[number - 1]
    assert lines.line_count == 4
