"""The one normalization quote checks use, with a map back to exact offsets.

`normalize_for_match(text)` applies, in order, and nothing else:
1. Unicode NFC;
2. the ligatures of Unicode's Alphabetic Presentation Forms (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ, Armenian ﬓ–ﬗ)
   folded to their letters, as PDF fonts and viewers produce them;
3. a hyphen (-, soft hyphen U+00AD, ‐ U+2010, ‑ U+2011) between two letters left out together
   with any whitespace after it: a reader copying "asyn-\nchronously" or "Single-\nprocess"
   from a PDF cannot tell a line-end hyphenation from a compound's hyphen, so "asynchronously",
   "asyn- chronously", "Single-process" and "Singleprocess" all compare equal to them;
4. typographic quotes folded to ASCII (‘ ’ ‚ ‛ ′ → ', “ ” „ ‟ ″ « » → ");
5. dashes and the minus sign folded to "-" (‒ – — ― − ﹘ ﹣ －, and the hyphens step 3 left);
6. every run of whitespace (str.isspace: spaces, tabs, line ends, no-break spaces) folded
   to one space.
Case, punctuation other than the above, and Markdown markup are left alone.

The offset map has one entry per normalized code point plus a final one: entry i is the
offset in the original text where normalized code point i came from, and the last entry
is len(text). A match normalized[i:j] therefore stands at text[map[i]:map[j]] (a folded
whitespace run at the end of a match is included whole). `normalized_text(text)` is the same
text without the map, for asking whether a quote stands in a text before asking where.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

QUOTE_FOLD = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
}


# Every character str.isspace() accepts (a test checks the list against it).
WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
WHITESPACE += "\u2028\u2029\u202f\u205f\u3000"
_SPACES_AFTER_SPACE = re.compile(r"(?<= ) +")
# Step 2: each ligature to the letters of its compatibility decomposition (a test checks them).
LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
    "\ufb13": "\u0574\u0576",
    "\ufb14": "\u0574\u0565",
    "\ufb15": "\u0574\u056b",
    "\ufb16": "\u057e\u0576",
    "\ufb17": "\u0574\u056d",
}
# Step 3: the hyphens that may stand inside a word (the dashes of step 5 never join words).
WORD_HYPHENS = "-\u00ad\u2010\u2011"
_LETTER_FOLDS = re.compile(f"[{re.escape(WORD_HYPHENS)}][{re.escape(WHITESPACE)}]*|[{''.join(LIGATURES)}]")


_HYPHEN_FOLDS = re.compile(f"-[{re.escape(WHITESPACE)}]*")  # `_LETTER_FOLDS` where "-" is the only one present
# One code point for one: quotes and dashes folded, every whitespace character made a space.
_ONE_FOR_ONE = {**QUOTE_FOLD, **dict.fromkeys(WHITESPACE.replace(" ", ""), " ")}


def normalize_for_match(text: str) -> tuple[str, list[int]]:
    """`text` normalized for quote matching, and the map back to its offsets (see module docstring)."""
    return _normalized(text, fold_letters=True)


def normalized_text(text: str) -> str:
    """`normalize_for_match(text)[0]` without the offset map, by the same steps on whole strings.

    Whether a quote stands in a text is asked far more often than where: a fabricated quote
    is looked for in every candidate document, and building a map per code point cost more
    than the search. A test checks the two agree on any text.
    """
    return _normalized_string(text, fold_letters=True)


def _normalized_string(text: str, *, fold_letters: bool) -> str:
    """`_normalized(text, fold_letters=…)[0]`, by the steps on whole strings (no map)."""
    composed = text if text.isascii() else unicodedata.normalize("NFC", text)
    folds = _letter_folds_in(composed) if fold_letters else None
    if folds is not None:
        composed = folds.sub(_fold_letter, composed)
    if composed.isspace():
        return " "
    folded = " ".join(composed.split())  # str.split() splits at runs of str.isspace characters
    if composed[:1].isspace():
        folded = " " + folded
    if composed[-1:].isspace():
        folded += " "
    return _fold_chars(folded)


# Where a text can be cut so that its normalized halves, joined, are its normalized whole: after a
# whitespace run that follows neither a word hyphen (step 3 could drop it with the run) nor the
# text's start, and before a printable ASCII character (NFC composes nothing across it).
_CUT = re.compile(f"(?<=[^{re.escape(WHITESPACE + WORD_HYPHENS)}])[{re.escape(WHITESPACE)}]+(?=[!-~])")
MAP_STEP = 256  # characters of slack before and after the stretch `offsets_near` maps


def offsets_near(text: str, start: int, end: int, step: int = MAP_STEP) -> tuple[int, list[int]]:
    """`(base, offsets)`: `offsets[i]` is `normalize_for_match(text)[1][base + i]` for every normalized
    position from `base` to past `end`, `base <= start`; computed for a stretch of `text` only.

    Citing the one place where a quote stands needs the map there, not in the whole document: the
    text is cut (`_CUT`) a little before where normalized position `start` would stand if nothing
    folded, the normalized length of what comes before counted without a map (backing off when a
    fold made it longer than `start`), and only the stretch from the cut to past `end` is mapped.
    The last entry is where the next stretch starts (or `len(text)`), as in the whole map.
    """
    guess = max(0, start - step)
    while True:
        a = _cut_after(text, guess) if guess else 0
        base = len(normalized_text(text[:a])) if a else 0
        if base <= start:
            break
        guess = max(0, guess - 2 * (base - start) - step)  # folds made the text before longer: back off
    b = _cut_after(text, a + (end - base) + step)  # past `end` by `step`: a shrinking fold is made up for
    while base + len(normalized_text(text[a:b])) < end and b < len(text):
        b = _cut_after(text, b + (b - a))  # whitespace runs folded: the stretch must reach further
    local = normalize_for_match(text[a:b])[1]
    return base, [a + offset for offset in local]


def _cut_after(text: str, at: int) -> int:
    """The first cut of `text` at or after `at` (see `_CUT`), or `len(text)`."""
    if at >= len(text):
        return len(text)
    found = _CUT.search(text, at)
    return found.end() if found is not None else len(text)


def _fold_chars(text: str) -> str:
    """Steps 4 and 5, and every whitespace character made a space: one code point for one.

    Each character present is replaced on its own: `str.translate` with a table looks up every
    code point of a text that is not ASCII, which took milliseconds per document.
    """
    if text.isascii() and text.isprintable():
        return text  # none of them is there: each is a control character or not ASCII
    for char, folded in _ONE_FOR_ONE.items():
        if char in text:
            text = text.replace(char, folded)
    return text


def _letter_folds_in(text: str) -> re.Pattern[str] | None:
    """The pattern of steps 2 and 3 for a text, the fastest that finds every fold it holds; None without any."""
    if not text.isascii() and any(char in text for char in (*LIGATURES, *WORD_HYPHENS[1:])):
        return _LETTER_FOLDS
    return _HYPHEN_FOLDS if "-" in text else None


def _normalized(text: str, *, fold_letters: bool) -> tuple[str, list[int]]:
    composed, origin = _nfc_with_origin(text)
    lettered, lettered_origin = _fold_letters(composed) if fold_letters else (composed, None)
    if lettered_origin is not None:
        origin = lettered_origin if origin is None else [origin[i] for i in lettered_origin]
    folded = _fold_chars(lettered)  # positions unchanged
    # Only the spaces after the first of a run go: the rest of the text keeps its positions,
    # so the map is built from a few ranges rather than character by character.
    out: list[str] = []
    positions: list[int] = []
    last = 0
    for run in _SPACES_AFTER_SPACE.finditer(folded):
        out.append(folded[last : run.start()])
        positions.extend(range(last, run.start()))
        last = run.end()
    out.append(folded[last:])
    positions.extend(range(last, len(folded)))
    offsets = positions if origin is None else [origin[i] for i in positions]
    offsets.append(len(text))
    return "".join(out), offsets


# A quote is compared by the quote check, the corpus search, the near place and the recovery in
# turn, each normalizing it again: a failed quote paid for that five times.
@lru_cache(maxsize=256)
def normalize(text: str) -> str:
    """The normalized text alone, ends stripped: how a quote is compared.

    A word hyphen (`WORD_HYPHENS`: "-", a soft hyphen…) at either end next to a letter goes too
    (at the start, with the space after it): a quote cut at a word's hyphen ("asyn-",
    "- chronously") stands where step 3 left that hyphen out of the document's text.
    """
    quote = normalized_text(text).strip(" ")
    if len(quote) > 1 and quote[-1] in WORD_HYPHENS and quote[-2].isalpha():
        quote = quote[:-1]
    unhyphenated = quote[1:].lstrip(" ")
    if quote[:1] and quote[:1] in WORD_HYPHENS and unhyphenated[:1].isalpha():
        quote = unhyphenated
    return quote


def normalize_spelling(text: str) -> str:
    """`text` normalized without steps 2 and 3, ends stripped: its words spelled as written.

    Narrowing a quote search by its words looks these up in the word index: a quote copied
    from a document spells "Single-process" or "ﬁle" as the document does, while step 3 and 2
    would turn them into words ("Singleprocess", "file") the document's index never saw.
    """
    return _normalized_string(text, fold_letters=False).strip(" ")


def _fold_letters(text: str) -> tuple[str, list[int] | None]:
    """Steps 2 and 3 on NFC text, and (unless nothing changed) where each code point came from.

    A ligature's letters all come from the ligature; a left-out hyphen and its whitespace have
    no entry, so a match that ends before them and one that starts after them stay exact.
    """
    out: list[str] = []
    origin: list[int] = []
    last = 0
    folds = _letter_folds_in(text)
    for found in folds.finditer(text) if folds is not None else ():
        start, end = found.span()
        letters = _fold_letter(found)
        if letters == found.group():
            continue
        out.append(text[last:start])
        origin.extend(range(last, start))
        out.append(letters)
        origin.extend([start] * len(letters))
        last = end
    if not last:
        return text, None
    out.append(text[last:])
    origin.extend(range(last, len(text)))
    return "".join(out), origin


def _fold_letter(found: re.Match[str]) -> str:
    """What steps 2 and 3 make of one match of `_LETTER_FOLDS`: a ligature's letters, nothing for
    a hyphen (and the whitespace after it) between two letters, else the match itself."""
    text, (start, end) = found.string, found.span()
    if text[start] in LIGATURES:
        return LIGATURES[text[start]]
    if start > 0 and end < len(text) and text[start - 1].isalpha() and text[end].isalpha():
        return ""
    return found.group()


def _nfc_with_origin(text: str) -> tuple[str, list[int] | None]:
    """NFC of `text` and, unless it is `text` itself, where each code point came from."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text, None
    # NFC only ever rewrites a starter together with the characters that combine with it,
    # so normalizing segment by segment gives the same text and tells where each came from.
    out: list[str] = []
    origin: list[int] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or _starts_segment(text[i]):
            segment = unicodedata.normalize("NFC", text[start:i])
            out.append(segment)
            origin.extend(start + consumed for consumed in _segment_origins(text[start:i], segment))
            start = i
    return "".join(out), origin


def _segment_origins(source: str, composed: str) -> list[int]:
    """For each code point of `composed` (the NFC of `source`), where in `source` it starts.

    A code point starts where the source characters that produced the ones before it end: the
    shortest source prefix whose NFC already holds them. A mark NFC leaves standing (a second
    accent on a letter that took the first) so keeps an offset of its own, and a quote may end
    before it.
    """
    origins: list[int] = []
    consumed = 0
    for j in range(len(composed)):
        origins.append(consumed)
        while consumed < len(source) and unicodedata.normalize("NFC", source[:consumed])[: j + 1] != composed[: j + 1]:
            consumed += 1
    return origins


def _starts_segment(ch: str) -> bool:
    return unicodedata.combining(ch) == 0 and ch not in _composing_followers()


@lru_cache(maxsize=1)
def _composing_followers() -> frozenset[str]:
    """Characters of combining class 0 that NFC can still merge into the character before them."""
    found = {chr(c) for c in range(0x1161, 0x1176)} | {chr(c) for c in range(0x11A8, 0x11C3)}  # Hangul V, T
    for code in range(0x110000):
        decomposition = unicodedata.decomposition(chr(code))
        if not decomposition or decomposition.startswith("<"):
            continue
        parts = decomposition.split()
        if len(parts) == 2:
            second = chr(int(parts[1], 16))
            if unicodedata.combining(second) == 0:
                found.add(second)
    return frozenset(found)
