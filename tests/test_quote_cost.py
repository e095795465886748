"""What a false quote costs: the narrowed search finds what the full scan finds, and skips the work it can.

A fabricated quote is searched for in the whole corpus at the cited commit. The index narrows the
documents by the quote's rare words, and a document's text is normalized without its offset map
until the quote is known to stand in it: these tests hold both shortcuts to the full answer.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from indexer import build
from indexer.citations import quote as quote_module
from indexer.citations import resolve as resolve_module
from indexer.citations.check import check_paths
from indexer.citations.quote import _by_distance, check_quote, exact_places, versions_holding
from indexer.citations.resolve import Resolver
from indexer.citations.verdicts import QuoteStatus
from indexer.index import store
from indexer.index.store import IndexReader
from indexer.text.citation import Citation
from indexer.text.model import Span
from indexer.text.normalize import (
    LIGATURES,
    QUOTE_FOLD,
    _normalized,
    normalize,
    normalize_for_match,
    normalize_spelling,
    normalized_text,
    offsets_near,
)
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo, arguments_of, index_of_texts

_CHARS = list("ab cé\t\n\r\u00a0\u3000e\u0301\u0308\u1100\u1161\u11a8-\u00ad\u20101\x85") + list(QUOTE_FOLD)
texts = st.text(
    alphabet=st.one_of(st.sampled_from(_CHARS + list(LIGATURES)), st.characters(blacklist_categories=("Cs",))),
    max_size=80,
)


@settings(max_examples=500, deadline=None)
@given(texts)
def test_the_text_alone_is_the_text_of_the_mapped_normalization(text: str) -> None:
    assert normalized_text(text) == normalize_for_match(text)[0]
    # The spelling a quote's words are looked up in: the same steps but the letter folds, whole strings too.
    assert normalize_spelling(text) == _normalized(text, fold_letters=False)[0].strip(" ")


@settings(max_examples=500, deadline=None)
@given(texts, st.data())
def test_the_map_of_a_stretch_is_the_whole_maps_there(text: str, data: st.DataObject) -> None:
    """Offsets mapped for the stretches that hold a place are the whole text's map at that place,
    however small the stretches (cut at whitespace, never where a fold could reach across)."""
    normalized, offsets = normalize_for_match(text)
    start = data.draw(st.integers(0, len(normalized)))
    end = data.draw(st.integers(start, len(normalized)))
    step = data.draw(st.integers(1, 40))
    base, near = offsets_near(text, start, end, step)
    assert base <= start and base + len(near) - 1 >= end
    assert near == offsets[base : base + len(near)]


# A small vocabulary, so that words repeat within and across documents at different rates.
_WORDS = st.one_of(
    st.sampled_from(["retention", "invoice", "kept", "for", "seven", "years", "the", "a", "copy", "site"]),
    st.sampled_from(["ﬁle", "well-known", "asyn-\nchronously", "re-sign", "resign", "Café", "e\u0301t\u00e9"]),
    st.text(alphabet="abcdefgh", min_size=1, max_size=9),
)
_SEPARATORS = st.sampled_from([" ", " ", " ", "\n", "\n\n", ", ", ". ", " “", "” ", " — ", "\t"])


@st.composite
def _documents(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(_WORDS, _SEPARATORS), min_size=4, max_size=60))
    return "".join(word + sep for word, sep in parts)


@settings(max_examples=200, deadline=None)
@given(documents=st.lists(_documents(), min_size=1, max_size=4), data=st.data())
def test_the_narrowed_search_finds_every_document_the_full_scan_finds(
    documents: list[str], data: st.DataObject
) -> None:
    """Any stretch of a document, as a quote: the index's candidates, confirmed, are what scanning every text gives."""
    chosen = documents[data.draw(st.integers(0, len(documents) - 1))]
    i = data.draw(st.integers(0, len(chosen) - 1))
    j = data.draw(st.integers(i + 1, len(chosen)))
    quote = chosen[i:j]
    wanted = normalize(quote)
    assume(wanted and wanted in normalized_text(chosen))
    full = {f"doc{n}.txt" for n, text in enumerate(documents) if wanted in normalized_text(text)}
    # The count that makes a word rare, drawn small too: then some words narrow and some do not.
    rare = data.draw(st.sampled_from([1, 2, 3, store.RARE_PASSAGES]))
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(store, "RARE_PASSAGES", rare):
        index = index_of_texts(Path(folder) / "index.sqlite", documents, max_chars=60)
        reader = IndexReader(index)
        try:
            # Versions the caller holds normalized skip the verbatim-pieces filter: any of them may.
            held = data.draw(st.sets(st.integers(1, len(documents))))
            candidates = {path for path, _version in versions_holding(reader, quote, 0, held.__contains__)}
        finally:
            reader.close()
    narrowed = {path for path in candidates if wanted in normalized_text(documents[int(path[3:-4])])}
    source = f"doc{documents.index(chosen)}.txt"
    assert source in narrowed and narrowed <= full
    # The words narrow as the quote spells them (`normalize_spelling`): a document left out holds
    # the quote only through a fold the quote does not share ("re-sign" for "resign", "ﬁle" for "file").
    spelled = normalize_spelling(quote)
    assert all(spelled not in normalize_spelling(documents[int(path[3:-4])]) for path in full - narrowed)


DOCS = {
    "corpus/retention.md": "# Retention\n\nInvoices are kept for seven years.\n\nEmail is kept for two years.\n",
    "corpus/other.md": "# Other\n\nBackups are copied to a second site every night.\n",
}


def test_a_fabricated_quote_maps_no_offsets_and_cuts_no_passages(
    corpus_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With an index, a quote that stands nowhere is answered on normalized texts alone and the index's passages."""
    corpus_repo.commit(DOCS)
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    mapped: list[str] = []
    cut: list[str] = []
    real_map, real_chunk = resolve_module.normalize_for_match, quote_module.chunk
    monkeypatch.setattr(resolve_module, "normalize_for_match", lambda text: mapped.append(text) or real_map(text))
    monkeypatch.setattr(quote_module, "chunk", lambda text, **options: cut.append(text) or real_chunk(text, **options))
    resolved = resolver.resolve(Citation(resolver.commit("HEAD"), "corpus/retention.md", lines=(3, 3)))
    # Its words stand in one passage in another order: the index's passages say which, none is cut here.
    verdict = check_quote("years seven for kept are Invoices", resolved, resolver)
    assert verdict.status == QuoteStatus.FAILED and verdict.near is not None
    assert mapped == [] and cut == []
    verdict = check_quote("years seven for kept copied Backups", resolved, resolver)
    assert verdict.status == QuoteStatus.FAILED and verdict.near is None
    assert mapped == [] and cut == []
    # A quote that stands is mapped back to exact offsets, in the one document that holds it, and
    # only in the stretch that holds it when it stands there once.
    stretches: list[str] = []
    real_near = quote_module.offsets_near
    monkeypatch.setattr(quote_module, "offsets_near", lambda text, *a: stretches.append(text) or real_near(text, *a))
    verdict = check_quote("copied to a second site", resolved, resolver)
    assert verdict.status == QuoteStatus.WRONG_REF
    assert verdict.suggestion is not None and verdict.suggestion.path == "corpus/other.md"
    assert verdict.suggestion.lines == (3, 3)
    assert mapped == [] and stretches == [DOCS["corpus/other.md"]]


def test_a_document_the_run_has_normalized_is_asked_again_without_reading_its_stored_text(
    corpus_repo: CorpusRepo,
) -> None:
    """The verbatim-pieces filter reads a candidate's stored text; a document whose normalized
    text the run holds already is asked the exact question instead, at no read."""
    corpus_repo.commit(DOCS)
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    resolved = resolver.resolve(Citation(resolver.commit("HEAD"), "corpus/retention.md", lines=(3, 3)))
    assert check_quote("copied to a second site", resolved, resolver).status == QuoteStatus.WRONG_REF
    reader = resolver.index()
    assert reader is not None
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    verdict = check_quote("Backups are copied to a second site every day", resolved, resolver)
    assert verdict.status == QuoteStatus.FAILED
    assert not any("SELECT text FROM versions" in s for s in statements)


# Documents whose words repeat across them, some only through a fold (a ligature, a hyphen at a
# line end, a compound's hyphen, typographic quotes): what the corpus text and the index's
# candidates might answer differently.
_FOLDED = {
    "corpus/a.md": "# Retention\n\nInvoices are kept for seven years, the ﬁle says.\n\nEmail is kept for two years.\n",
    "corpus/b.md": "# Copies\n\nThe file says invoices are kept for seven years.\n\n"
    "They re-sign it each asyn-\nchronously.\n",
    "corpus/c.txt": "They resign it each asynchronously. “Invoices are kept” for seven years — the file says.\n",
    "corpus/d.md": "# Other\n\nBackups are copied to a second site every night; email is kept for two years.\n",
}


def _corpus_text_always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quote_module, "QUOTE_SEARCH_CHARS", 10**9)  # made at the first quote asked


def _corpus_text_never(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quote_module, "CORPUS_TEXT_MAX_CHARS", -1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_corpus_text_finds_the_places_the_index_candidates_find(
    corpus_repo: CorpusRepo, data: st.DataObject
) -> None:
    """Any stretch of a document, as it stands or with its words in another order, and cited near
    any document or none: the exact places found with the run's corpus text are those found
    through the index's candidates alone (the same candidates, the same order, the same folds)."""
    if not (corpus_repo.root / ".pincite").exists():
        corpus_repo.commit(_FOLDED)
        build(corpus_repo.root, site=False)
    path = data.draw(st.sampled_from(sorted(_FOLDED)))
    text = _FOLDED[path]
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    quote = text[i:j]
    if data.draw(st.booleans()):
        quote = " ".join(reversed(quote.split()))
    assume(normalize(quote))
    near_path = data.draw(st.sampled_from([None, *sorted(_FOLDED)]))
    answers = []
    for setup in (_corpus_text_never, _corpus_text_always):
        with pytest.MonkeyPatch.context() as patch:
            setup(patch)
            resolver = Resolver(GitRepo(corpus_repo.root))
            head = resolver.commit("HEAD")
            near = resolver.resolve(Citation(head, near_path, lines=(1, 1))) if near_path else None
            # Twice: the second answer comes from what the first left in the run's memos.
            first = [c.text_form() for c in exact_places(quote, head, resolver, near=near)]
            again = [c.text_form() for c in exact_places(quote, head, resolver, near=near)]
            answers.append((first, again))
            resolver.close()
    assert answers[0] == answers[1]
    assert answers[0][0] == answers[0][1]


def test_false_quotes_after_the_corpus_text_ask_the_index_for_no_candidates(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A draft of fabricated quotes whose words all stand in the corpus: once the run has made the
    corpus text, a false quote costs one substring search, not a count of its words in the index
    and a read of its candidates; a misattributed quote is still answered through the candidates."""
    lines = [f"Invoice {n} of the ledger is kept for seven years by the clerk." for n in range(12)]
    head = corpus_repo.commit(
        {f"corpus/doc{n}.md": "\n\n".join(lines[n:] + lines[:n]) + "\n" for n in range(6)}
        | {"corpus/other.md": "Backups are copied to a second site every night.\n"}
    )
    build(corpus_repo.root, site=False)
    asked = arguments_of(monkeypatch, quote_module, "versions_holding", 1)  # after the reader
    note = tmp_path / "note.md"
    false = [" ".join(reversed(line.split())) for line in lines]
    cites = "".join(
        f'- "{quote}" corpus/doc{n % 6}.md@{head}#L{2 * (n % 12) + 1}\n' for n, quote in enumerate(false * 2)
    )
    note.write_text(cites + f'- "copied to a second site" corpus/doc0.md@{head}#L1\n', encoding="utf-8")
    report = check_paths([note], GitRepo(corpus_repo.root))
    summary = report.summary()
    assert summary["quote_failed"] == 24 and summary["quote_wrong_ref"] == 1
    # The corpus (seven small documents) costs less to normalize than one quote's index search:
    # the corpus text is made once the first false quote has asked the index, and after it only
    # the misattributed one asks it.
    assert asked == [false[0], "copied to a second site"]
    # Without the corpus text, every distinct false quote asks it.
    asked.clear()
    monkeypatch.setattr(quote_module, "CORPUS_TEXT_MAX_CHARS", -1)
    again = check_paths([note], GitRepo(corpus_repo.root))
    assert again.summary() == summary
    assert len(asked) == 12 + 1
    assert [r.to_json()["quote_check"] for r in again.records] == [r.to_json()["quote_check"] for r in report.records]


@st.composite
def passages_in_order(draw: st.DrawFn) -> tuple[Span, ...]:
    """Spans as the chunker cuts them: non-empty, in order, apart or touching."""
    spans, at = [], draw(st.integers(0, 5))
    for _ in range(draw(st.integers(0, 12))):
        start = at + draw(st.integers(0, 3))
        at = start + draw(st.integers(1, 6))
        spans.append(Span(start, at))
    return tuple(spans)


@settings(max_examples=500, deadline=None)
@given(passages_in_order(), st.integers(0, 80), st.integers(0, 20), st.integers(1, 4))
def test_the_nearest_passages_are_the_first_of_all_passages_by_distance(
    spans: tuple[Span, ...], start: int, length: int, most: int
) -> None:
    """A failed quote's near place looks at the passages around the cited span only: the same
    passages, in the same order, as sorting every passage by its distance from it."""
    cited = Span(start, start + length)
    assert _by_distance(spans, cited, most=most) == _by_distance(spans, cited)[:most]
