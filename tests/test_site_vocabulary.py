"""words.txt: the distinct words of the documents at the built commit, lowercased, most frequent first."""

from __future__ import annotations

import sys
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.site.vocabulary import ASCII_WORD, WORD, vocabulary


def _words_lowered_one_by_one(texts: list[str]) -> list[str]:
    """The contract, stated plainly: each word found, then lowered; ranked by count, then alphabetically."""
    counts = Counter(word.lower() for text in texts for word in WORD.findall(text))
    return [word for word, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def test_lowering_a_character_into_one_keeps_it_a_letter_or_not() -> None:
    # vocabulary() lowers a whole text before it looks for words when no character grows: that is
    # only the same as lowering each word when a letter stays a letter, and nothing else becomes one.
    changed = []
    for code_point in range(sys.maxunicode + 1):
        char = chr(code_point)
        lowered = char.lower()
        if len(lowered) == 1 and bool(WORD.fullmatch(char * 3)) != bool(WORD.fullmatch(lowered * 3)):
            changed.append(f"U+{code_point:04X}")
        if (
            lowered.isascii()
            and len(lowered) == 1
            and bool(WORD.fullmatch(char * 3)) != bool(ASCII_WORD.fullmatch(lowered * 3))
        ):
            changed.append(f"U+{code_point:04X} (ASCII)")
    assert changed == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("abcXYZ \n_1éÉİßſKΣσς中\u0307")), max_size=60),
        max_size=4,
    )
)
def test_words_are_the_lowered_words_of_the_texts(texts: list[str]) -> None:
    assert vocabulary(texts) == _words_lowered_one_by_one(texts)


def test_words_are_ranked_by_count_then_alphabetically() -> None:
    assert vocabulary(["Beta alpha beta", "ALPHA gamma Beta ok"]) == ["beta", "alpha", "gamma"]
