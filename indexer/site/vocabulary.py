"""The words the corpus holds, for the search page's "did you mean" when a query finds nothing.

`words.txt` lists the distinct words of the documents at the built commit, most frequent first,
one a line (lowercased; 3 to 24 letters; at most `MAX_WORDS`). The search page downloads it only
after a query with no results and suggests the nearest words by edit distance, in the browser.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

MAX_WORDS = 10_000
WORD = re.compile(r"[^\W\d_]{3,24}")
ASCII_WORD = re.compile(r"[a-z]{3,24}")  # WORD in lowered ASCII text, found a third faster


def word_counts(text: str) -> Counter[str]:
    """How often each word stands in one text, lowercased."""
    lowered = text.lower()
    if len(lowered) == len(text) and "\u03a3" not in text:
        # Each character was lowered into one character, a letter into a letter and nothing
        # else into one (tests check every code point), and none by its neighbours (only a
        # capital sigma is): the words of the lowered text are the lowered words, in one pass.
        return Counter((ASCII_WORD if lowered.isascii() else WORD).findall(lowered))
    return Counter(w.lower() for w in WORD.findall(text))


def ranked(counts: Mapping[str, int]) -> list[str]:
    """Distinct words, most frequent first (ties alphabetical), at most MAX_WORDS."""
    # Alphabetical first, then by count (a stable sort keeps ties alphabetical): C-level keys only.
    return sorted(sorted(counts), key=counts.__getitem__, reverse=True)[:MAX_WORDS]


def vocabulary(texts: Iterable[str]) -> list[str]:
    """The ranked words of all `texts` together."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(word_counts(text))
    return ranked(counts)


def words_file(words: list[str]) -> bytes:
    return "".join(f"{w}\n" for w in words).encode("utf-8")
