"""Quote checks: the one normalization (with exact offsets back) and matched / wrong_ref / failed / unverifiable."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from indexer import build
from indexer.citations.quote import (
    check_quote,
    exact_places,
    quote_pieces,
    quote_words,
    source_end,
    versions_holding,
)
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import QuoteStatus
from indexer.text.citation import Citation
from indexer.text.normalize import LIGATURES, QUOTE_FOLD, WHITESPACE, WORD_HYPHENS, normalize, normalize_for_match
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo, index_of_texts

texts = st.text(
    alphabet=st.one_of(
        st.sampled_from(
            list("ab cé\t\n\r\u00a0\u3000e\u0301\u0308\u1100\u1161\u11a8-\u00ad1") + list(QUOTE_FOLD) + list(LIGATURES)
        ),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=60,
)


def reference_normalize(text: str) -> str:
    """What the documentation promises, written the obvious (offset-free) way."""
    chars = list(unicodedata.normalize("NFC", text).translate(str.maketrans(LIGATURES)))
    joined, i = "", 0
    while i < len(chars):
        after = i + 1
        while after < len(chars) and chars[after].isspace():
            after += 1
        between_letters = i > 0 and chars[i - 1].isalpha() and after < len(chars) and chars[after].isalpha()
        if chars[i] in WORD_HYPHENS and between_letters:
            i = after  # the hyphen and the whitespace after it are left out
            continue
        joined += chars[i]
        i += 1
    return re.sub(r"\s+", " ", joined.translate(str.maketrans(QUOTE_FOLD)))


@settings(max_examples=400, deadline=None)
@given(texts)
def test_normalization_is_nfc_folded_quotes_dashes_and_spaces_nothing_else(text: str) -> None:
    normalized, offsets = normalize_for_match(text)
    assert normalized == reference_normalize(text)
    assert len(offsets) == len(normalized) + 1 and offsets[-1] == len(text)
    assert offsets == sorted(offsets) and all(0 <= o <= len(text) for o in offsets)


def reference_offsets(text: str) -> list[int]:
    """The offset map the documentation promises, for text NFC leaves alone and without ligatures or
    hyphens: a run of whitespace maps to where it starts, every other character to itself."""
    offsets: list[int] = []
    last = 0
    for run in re.finditer(r"\s+", text):
        offsets += [*range(last, run.start()), run.start()]
        last = run.end()
    return [*offsets, *range(last, len(text)), len(text)]


@settings(max_examples=400, deadline=None)
@given(texts)
def test_the_offset_map_sends_each_space_run_to_its_start(text: str) -> None:
    plain = text.translate(str.maketrans("", "", "".join(LIGATURES) + WORD_HYPHENS))
    composed = unicodedata.normalize("NFC", plain)
    assert normalize_for_match(composed)[1] == reference_offsets(composed)


def test_the_whitespace_list_is_exactly_what_str_isspace_accepts() -> None:
    assert set(WHITESPACE) == {chr(c) for c in range(0x110000) if chr(c).isspace()}


@settings(max_examples=400, deadline=None)
@given(texts, st.data())
def test_any_quoted_slice_maps_back_to_original_text_with_the_same_normalization(
    text: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    nfc = lambda part: unicodedata.normalize("NFC", part)  # noqa: E731
    # A slice that cuts a combining sequence in two is not a quote of this text.
    assume(nfc(text[:start]) + nfc(text[start:]) == nfc(text) and nfc(text[:end]) + nfc(text[end:]) == nfc(text))
    wanted = normalize(text[start:end])
    normalized, offsets = normalize_for_match(text)
    # A slice the normalization leaves out whole (a hyphen between two letters) quotes nothing.
    if not wanted or not any(start <= o < end for o in offsets[:-1]):
        return
    at = normalized.find(wanted)
    assert at != -1
    # Where the match stands in the original, found the way check and cite find it.
    citation_text = text[offsets[at] : source_end(offsets, at + len(wanted), text)]
    cited = normalize(citation_text)
    assert wanted in cited
    # A match that starts or ends inside a character normalized to several ("ﬀ" → "ff") cites that
    # whole character: a citation spans whole source characters, and only those at its two ends.
    widening = len(normalize(citation_text[0])) - 1 + len(normalize(citation_text[-1])) - 1
    assert len(cited) - len(wanted) <= widening


def test_normalization_examples() -> None:
    assert normalize("  “Seven”\u00a0years —\n  ‘not’ six ") == "\"Seven\" years - 'not' six"
    assert normalize("Cafe\u0301") == normalize("Café") == "Café"
    assert normalize("CASE") != normalize("case")  # nothing else is folded
    assert normalize("*emphasis*") == "*emphasis*"
    # A quote cut at a soft hyphen inside a word ("a\u00ada" holds "aa") ends as a "-" cut there does.
    assert normalize("\u00ada") == normalize("-a") == "a" and normalize("a\u00ad") == "a"


def test_quote_words_are_whole_ascii_words_between_spaces() -> None:
    # The ends may be cut words; punctuation and accents may stand in another form in the text.
    assert quote_words('kept for "seven" long years, or more') == ["long", "for", "or"]
    assert quote_words("a b") == []
    assert quote_words("Café au lait noir") == ["lait", "au"]
    assert quote_words("a b, c d") == ["c"]
    assert quote_words("x " + "y" * 40 + " z") == []  # a long word may be cut by a passage boundary


def test_quote_pieces_are_ascii_runs_the_text_holds_verbatim() -> None:
    # A space may be any whitespace in the text, and ' " - may be typographic there.
    assert quote_pieces('ention kept for "seven" years, perio', most=3) == ["ention", "years,", "perio"]
    assert quote_pieces("it's all-in Café au") == ["au"]


_SEPARATORS = st.sampled_from(
    [
        [" ", "\n", " ", ", ", ". "],
        ["\u00a0", "\u3000", "\u00a0", "\r", "\u2014", "“"],  # a long line with no space to cut at
        [" ", "\u00a0", "\t", "\n\n", "’", "\u0301 "],
    ]
)
_WORDS = st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789", min_size=1, max_size=40),
    st.sampled_from(
        ["Café", "e\u0301t\u00e9", "数据", "保存期間", "naïve", "don't", "ﬁle", "well-known", "asyn-\nchronously"]
    ),
)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    separators = draw(_SEPARATORS)
    parts = draw(st.lists(st.tuples(_WORDS, st.sampled_from(separators)), min_size=6, max_size=80))
    return "".join(word + sep for word, sep in parts)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(_documents(), min_size=1, max_size=3), data=st.data())
def test_a_version_holding_a_quote_is_among_those_with_its_words(texts: list[str], data: st.DataObject) -> None:
    """The word lookup that narrows quote search never drops a version holding the quote."""
    import tempfile
    from pathlib import Path

    from indexer.index.store import IndexReader

    chosen = data.draw(st.integers(0, len(texts) - 1))
    text = texts[chosen]
    # A quote from one break to a later one: quotes are mostly whole words (any slice would do,
    # but most slices have no word between two spaces to look up).
    breaks = [0, *(k for k, ch in enumerate(text) if not ch.isalnum()), len(text)]
    first = data.draw(st.integers(0, len(breaks) - 1))
    i, j = breaks[first], breaks[data.draw(st.integers(min(first + 4, len(breaks) - 1), len(breaks) - 1))]
    wanted = normalize(text[i:j])
    assume(wanted and wanted in normalize_for_match(text)[0])
    with tempfile.TemporaryDirectory() as folder:
        reader = IndexReader(index_of_texts(Path(folder) / "index.sqlite", texts, max_chars=100))
        try:
            found = {path for path, _version in versions_holding(reader, text[i:j], 0)}
        finally:
            reader.close()
    assert f"doc{chosen}.txt" in found


# -- verdicts ---------------------------------------------------------------------------------
DOCS = {
    "corpus/retention.md": "# Retention\n\nInvoices are kept for “seven years”.\n\nEmail is kept for two years.\n",
    "corpus/other.md": "# Other\n\nBackups are copied to a second site — every night.\n",
}


@pytest.fixture(params=["with index", "without index"])
def resolver(request: pytest.FixtureRequest, corpus_repo: CorpusRepo) -> Resolver:
    corpus_repo.commit(DOCS)
    if request.param == "with index":
        build(corpus_repo.root, site=False)
        assert Resolver(GitRepo(corpus_repo.root)).index() is not None
    return Resolver(GitRepo(corpus_repo.root))


def _resolved(resolver: Resolver, path: str, lines: tuple[int, int]):  # type: ignore[no-untyped-def]
    return resolver.resolve(Citation(resolver.commit("HEAD"), path, lines=lines))


def test_matched_after_normalization(resolver: Resolver) -> None:
    verdict = check_quote('kept for "seven years"', _resolved(resolver, "corpus/retention.md", (3, 3)), resolver)
    assert verdict.status == QuoteStatus.MATCHED


def test_wrong_ref_in_the_same_document_gives_the_right_place(resolver: Resolver) -> None:
    verdict = check_quote("Email is kept for two  years.", _resolved(resolver, "corpus/retention.md", (3, 3)), resolver)
    assert verdict.status == QuoteStatus.WRONG_REF
    assert verdict.suggestion is not None and verdict.suggestion.lines == (5, 5)
    assert verdict.suggestion.path == "corpus/retention.md" and verdict.suggestion.commit == resolver.commit("HEAD")


def test_wrong_ref_in_another_document_in_chars(resolver: Resolver) -> None:
    head = resolver.commit("HEAD")
    resolved = resolver.resolve(Citation(head, "corpus/retention.md", chars=(0, 11)))
    verdict = check_quote("second site - every night", resolved, resolver)
    assert verdict.status == QuoteStatus.WRONG_REF and verdict.suggestion is not None
    found = resolver.resolve(verdict.suggestion)
    assert found.path == "corpus/other.md" and found.text == "second site — every night"


def test_failed_when_the_quote_stands_nowhere(resolver: Resolver) -> None:
    verdict = check_quote("kept for eight years", _resolved(resolver, "corpus/retention.md", (3, 3)), resolver)
    assert verdict.status == QuoteStatus.FAILED and "nowhere" in verdict.reason


def test_failed_names_the_documents_it_could_not_search(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({**DOCS, "corpus/latin1.txt": "kept for eight years, caf\xe9".encode("latin-1")})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    verdict = check_quote("kept for eight years", _resolved(resolver, "corpus/retention.md", (3, 3)), resolver)
    assert verdict.status == QuoteStatus.FAILED
    assert "not searched, no readable text: corpus/latin1.txt" in verdict.reason


def test_unverifiable_when_the_citation_is_unresolvable(resolver: Resolver) -> None:
    verdict = check_quote("anything", None, resolver, "commit 'abcd' is not a commit in this repository")
    assert verdict.status == QuoteStatus.UNVERIFIABLE and "abcd" in verdict.reason


def test_locate_lists_every_place_nearest_first(resolver: Resolver) -> None:
    head = resolver.commit("HEAD")
    places = exact_places("kept for", head, resolver, near=_resolved(resolver, "corpus/retention.md", (5, 5)))
    assert [c.lines for c in places] == [(5, 5), (3, 3)]


def test_locate_reads_a_declared_latin1_document_without_an_index(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit(
        {
            ".gitattributes": "corpus/*.txt encoding=iso-8859-1\n",
            "corpus/guia.txt": "Horário\n\nO escritório abre às 8h00.\n".encode("latin-1"),
        }
    )
    resolver = Resolver(GitRepo(corpus_repo.root))
    places = exact_places("escritório abre às 8h00", resolver.commit("HEAD"), resolver, unit="chars")
    assert [(c.path, c.chars) for c in places] == [("corpus/guia.txt", (11, 34))]
