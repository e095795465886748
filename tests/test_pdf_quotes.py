"""A sentence copied from an indexed PDF, as a viewer copies it, is found: cite, then check."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from extract_samples import pdf_of_pages
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import api, build
from indexer.citations.quote import check_quote, cite_quote
from indexer.citations.resolve import Resolved, Resolver
from indexer.citations.verdicts import QuoteStatus
from indexer.extract import registry
from indexer.extract.base import ExtractedText, Limits
from indexer.extract.pdf import PdfExtractor
from indexer.text.normalize import normalize
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

# fpdf2 wraps these at the cell's width; the explicit line ends put a line-end hyphen where a
# typesetter would: a word hyphenated at the margin and a compound split after its own hyphen.
PAGES = [
    [
        "Messages are delivered asyn-\nchronously to every replica of the log.",
        "A Single-\nprocess design keeps the scheduler simple and its state in one place.",
        "The efficient offline flow suffices for the first prototype of the office tool.",
    ],
    [
        "Each well-known failure is retried three times before the operator is paged.",
        "Leases expire after thirty seconds unless the holder renews them first.",
        # A justified line's last hyphen set apart, as pypdf gives a Supreme Court slip opinion's.
        "The Choctaw and Chicka -\nsaw Nations offered to sell water to the district.",
    ],
]
SENTENCES = [
    "Messages are delivered asynchronously to every replica of the log.",
    "A Single-process design keeps the scheduler simple and its state in one place.",
    "The efficient offline flow suffices for the first prototype of the office tool.",
    "Each well-known failure is retried three times before the operator is paged.",
    "Leases expire after thirty seconds unless the holder renews them first.",
    "The Choctaw and Chickasaw Nations offered to sell water to the district.",
]
PATH = "corpus/paper.pdf"
# What viewers and fonts put in place of letters.
LIGATURE_OF = {"ffi": "\ufb03", "ffl": "\ufb04", "ff": "\ufb00", "fi": "\ufb01", "fl": "\ufb02"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Resolver, list[Resolved]]]:
    repo = CorpusRepo(tmp_path_factory.mktemp("pdfquotes") / "repo")
    repo.commit({PATH: pdf_of_pages(PAGES)})
    build(repo.root, site=False)
    resolver = Resolver(GitRepo(repo.root))
    yield resolver, [cite_quote(resolver, PATH, sentence, "HEAD") for sentence in SENTENCES]


@pytest.mark.parametrize(
    ("quote", "sentence"),
    [
        ("asynchronously to every", 0),
        ("asyn- chronously to every", 0),
        ("asyn-\nchronously to every", 0),
        ("A Single-process design", 1),
        ("A Singleprocess design", 1),
        ("A Single-\nprocess design", 1),
        ("The e\ufb03cient o\ufb04ine \ufb02ow su\ufb03ces", 2),
        ("Each well-known failure", 3),
        ("Each well-\nknown failure", 3),
        ("The Choctaw and Chickasaw Nations offered", 5),
        ("Chicka-\nsaw Nations offered", 5),
    ],
)
def test_a_quote_as_a_viewer_copies_it_is_matched(
    indexed: tuple[Resolver, list[Resolved]], quote: str, sentence: int
) -> None:
    resolver, cited = indexed
    found = cite_quote(resolver, PATH, quote, "HEAD")
    assert cited[sentence].span.start <= found.span.start < found.span.end <= cited[sentence].span.end
    assert check_quote(quote, cited[sentence], resolver).status == QuoteStatus.MATCHED


def test_the_span_of_a_quote_ending_at_a_line_end_hyphen_stops_before_it(
    indexed: tuple[Resolver, list[Resolved]],
) -> None:
    resolver, _cited = indexed
    text = resolver.resolve(cite_quote(resolver, PATH, "Messages are delivered asyn", "HEAD").citation).text
    assert text.startswith("Messages") and text.endswith("asyn")


def test_other_words_are_still_a_fabrication(indexed: tuple[Resolver, list[Resolved]]) -> None:
    resolver, cited = indexed
    for quote in ("delivered synchronously to every", "A Single process design", "Each well known failure"):
        assert check_quote(quote, cited[0], resolver).status == QuoteStatus.FAILED


@st.composite
def viewer_copies(draw: st.DrawFn, sentence: str) -> str:
    """`sentence` as a PDF viewer copies it from some typesetting: lines broken at spaces, words
    hyphenated at a line end, compounds broken after their hyphen, some letters as ligatures."""
    out: list[str] = []
    for k, ch in enumerate(sentence):
        letters_around = 0 < k < len(sentence) - 1 and sentence[k - 1].isalpha() and sentence[k + 1].isalpha()
        if ch == " " and draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(["\n", " \n", "\n  "])))
        elif ch == "-" and letters_around and draw(st.booleans()):
            out.append("-\n")
        elif ch.isalpha() and letters_around and sentence[k + 1].isalpha() and draw(st.integers(0, 9)) == 0:
            out.append(ch + draw(st.sampled_from(["-\n", "\u00ad\n", "-\n   "])))
        else:
            out.append(ch)
    copied = "".join(out)
    for letters, ligature in LIGATURE_OF.items():
        if letters in copied and draw(st.booleans()):
            copied = copied.replace(letters, ligature)
    return copied


def test_any_sentence_rewrapped_as_viewers_copy_it_is_matched_and_never_failed(
    indexed: tuple[Resolver, list[Resolved]],
) -> None:
    resolver, cited = indexed

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.integers(0, len(SENTENCES) - 1), st.data())
    def rewrapped(number: int, data: st.DataObject) -> None:
        quote = data.draw(viewer_copies(SENTENCES[number]))
        assert check_quote(quote, cited[number], resolver).status == QuoteStatus.MATCHED, quote
        elsewhere = cited[(number + 1) % len(SENTENCES)]
        verdict = check_quote(quote, elsewhere, resolver)
        assert verdict.status == QuoteStatus.WRONG_REF, quote
        assert verdict.suggestion is not None and verdict.suggestion.chars is not None
        assert cited[number].span.start <= verdict.suggestion.chars[0] < cited[number].span.end

    rewrapped()

    # And every sentence as the index holds it (its own line breaks and joined words), re-wrapped.
    text = resolver.text_at(cited[0].commit, PATH).text
    indexed_sentences = [m.group(0) for m in re.finditer(r"[A-Z][^.]*\.", text)]
    assert len(indexed_sentences) == len(SENTENCES)

    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(indexed_sentences), st.data())
    def rewrapped_from_the_index(sentence: str, data: st.DataObject) -> None:
        quote = data.draw(viewer_copies(" ".join(sentence.split())))
        found = cite_quote(resolver, PATH, quote, "HEAD")
        assert check_quote(quote, found, resolver).status == QuoteStatus.MATCHED, quote
        assert normalize(found.text) == normalize(sentence)

    rewrapped_from_the_index()


def test_each_cited_span_holds_its_sentence(indexed: tuple[Resolver, list[Resolved]]) -> None:
    # The span counts code points of the extracted text: its text, normalized, is the sentence's.
    _resolver, cited = indexed
    for sentence, resolved in zip(SENTENCES, cited, strict=True):
        assert normalize(resolved.text) == normalize(sentence)


class CountingPdf(PdfExtractor):
    """The PDF extractor, counting the extractions it performs."""

    def __init__(self) -> None:
        super().__init__()
        self.performed = 0

    def extract(self, data: bytes, path: str, limits: Limits | None = None) -> ExtractedText:
        self.performed += 1
        return super().extract(data, path, limits)


@pytest.fixture
def counting() -> Iterator[CountingPdf]:
    extractor = CountingPdf()
    registry.register(extractor)
    try:
        yield extractor
    finally:
        registry.unregister(extractor)


def test_after_a_build_citing_a_pdf_extracts_nothing(corpus_repo: CorpusRepo, counting: CountingPdf) -> None:
    corpus_repo.commit({PATH: pdf_of_pages(PAGES)})
    build(corpus_repo.root, site=False)
    assert counting.performed == 1
    first = api.cite(PATH, corpus_repo.root, quote=SENTENCES[0])
    assert counting.performed == 1  # the index's text, as verify reads it: the first cite costs no extraction
    api.cite(PATH, corpus_repo.root, quote=SENTENCES[1])
    api.resolve(first.resolved.citation, corpus_repo.root)
    assert counting.performed == 1


def test_without_an_index_the_first_cite_extracts_once_and_the_cache_serves_the_rest(
    corpus_repo: CorpusRepo, counting: CountingPdf
) -> None:
    corpus_repo.commit({PATH: pdf_of_pages(PAGES)})
    api.cite(PATH, corpus_repo.root, quote=SENTENCES[0])
    assert counting.performed == 1
    api.cite(PATH, corpus_repo.root, quote=SENTENCES[1])
    assert counting.performed == 1


GARBLED = (
    "# Notes\n\nThe design is simple b ut ine xpressive for most of its users.\n\n"
    "A second paragraph tells of quick brown foxes that jump over dogs.\n"
)


def test_a_failed_quote_whose_words_stand_garbled_gets_a_near_place(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/notes.md": GARBLED})
    resolver = Resolver(GitRepo(corpus_repo.root))
    cited = cite_quote(resolver, "corpus/notes.md", "The design is", "HEAD")  # in characters
    respaced = check_quote("simple but inexpressive for", cited, resolver)
    assert respaced.status == QuoteStatus.FAILED and respaced.near is not None
    assert respaced.near.chars is not None
    start, end = respaced.near.chars
    assert GARBLED[start:end] == "simple b ut ine xpressive for"
    assert "in another spacing" in respaced.reason and respaced.to_json()["near"] == respaced.near.text_form()
    reordered = check_quote("brown quick dogs over foxes", cited, resolver)
    assert reordered.status == QuoteStatus.FAILED and reordered.near is not None
    assert reordered.near.chars is not None and "quick brown foxes" in GARBLED[slice(*reordered.near.chars)]
    assert "in another order" in reordered.reason
    for fabricated in ("simple and expressive for", "brown quick dogs over cats"):
        verdict = check_quote(fabricated, cited, resolver)
        assert verdict.status == QuoteStatus.FAILED and verdict.near is None


def test_the_near_place_in_another_order_is_the_passage_nearest_the_cited_span(corpus_repo: CorpusRepo) -> None:
    """Two passages hold the reordered words: the one the citation points into is named, not the first."""
    text = "# One\n\nQuick brown foxes jump over lazy dogs.\n\n# Two\n\nQuick brown foxes jump over lazy dogs again.\n"
    corpus_repo.commit({"corpus/twice.md": text})
    resolver = Resolver(GitRepo(corpus_repo.root))
    cited = cite_quote(resolver, "corpus/twice.md", "again", "HEAD")
    verdict = check_quote("dogs lazy over jump foxes brown Quick", cited, resolver)
    assert verdict.status == QuoteStatus.FAILED and verdict.near is not None and verdict.near.chars is not None
    assert verdict.near.chars[0] >= text.index("# Two")
    first = cite_quote(resolver, "corpus/twice.md", "# One", "HEAD")
    verdict = check_quote("dogs lazy over jump foxes brown Quick", first, resolver)
    assert verdict.near is not None and verdict.near.chars is not None
    assert verdict.near.chars[1] <= text.index("# Two")
