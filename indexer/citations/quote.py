"""Quote checks: does a citation's quote stand in its span, elsewhere in the corpus, or nowhere?

Matching uses the one normalization of `indexer.text.normalize`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

from indexer.citations.resolve import (
    CorpusText,
    Resolved,
    Resolver,
    VersionKey,
    span_citation,
    token_of,
    version_key,
)
from indexer.citations.verdicts import QuoteStatus
from indexer.errors import PinciteError, UsageError
from indexer.extract.text import passage_format
from indexer.index.documents import VersionText, version_form
from indexer.index.store import IndexReader
from indexer.shapes import QuoteVerdictJson
from indexer.text.chunk import WORD_KEPT_WHOLE, chunk
from indexer.text.citation import Citation
from indexer.text.kinds import TextFormat
from indexer.text.model import Span
from indexer.text.normalize import (
    QUOTE_FOLD,
    WORD_HYPHENS,
    normalize,
    normalize_for_match,
    normalize_spelling,
    normalized_text,
    offsets_near,
)
from indexer.vcs.repo import MODE_FILE, safe_repo_path

# -- quote check ------------------------------------------------------------------
MAX_LOCATIONS = 10
QUERY_WORDS = 8  # the rarest of the quote's longest words narrows; each costs one count, once per reader
QUERY_PIECES = 8  # then the candidates' texts must hold these verbatim (SQLite's instr, cheap)
_FOLD_TARGETS = frozenset(QUOTE_FOLD.values())


class AmbiguousQuote(UsageError):
    """A quote to cite stands at several places of the document: `candidates` cites each one."""

    def __init__(self, message: str, *, hint: str, candidates: tuple[Citation, ...]) -> None:
        super().__init__(message, hint=hint)
        self.candidates = candidates


@dataclass(frozen=True)
class QuoteVerdict:
    """The quote check of one citation: matched, wrong_ref, failed or unverifiable, and why.

    `found` holds every place the quote stands at the cited commit when it is not in the span
    (nearest first): the first is the suggested corrected citation. A `failed` quote whose words
    stand in the cited document in another spacing or order (a garbled text extraction reads
    "simple b ut ine xpressive") has that place as `near`: shown, never counted as a match.
    """

    status: QuoteStatus
    reason: str
    found: tuple[Citation, ...] = ()
    near: Citation | None = None  # beside `failed`: the quote's words in another spacing or order

    @property
    def suggestion(self) -> Citation | None:
        """Where the quote actually stands (a suggested corrected citation), if anywhere."""
        return self.found[0] if self.found else None

    def to_json(self) -> QuoteVerdictJson:
        return {
            "status": self.status,
            "reason": self.reason,
            "suggestion": self.suggestion.text_form() if self.suggestion else None,
            "found": [c.text_form() for c in self.found],
            "near": self.near.text_form() if self.near else None,
        }


def check_quote(quote: str, resolved: Resolved | None, resolver: Resolver, reason: str = "") -> QuoteVerdict:
    """Does `quote` stand in the resolved citation's span, elsewhere at its commit, or nowhere?"""
    wanted = normalize(quote)
    if resolved is None:
        return QuoteVerdict(QuoteStatus.UNVERIFIABLE, f"the citation is unresolvable: {reason}".rstrip(": "))
    if not wanted:
        return QuoteVerdict(QuoteStatus.UNVERIFIABLE, "the quote is empty")
    if wanted in normalized_text(resolved.text):
        return QuoteVerdict(QuoteStatus.MATCHED, "the quote stands in the cited span")
    found = exact_places(quote, resolved.commit, resolver, near=resolved)
    if found:
        where = found[0]
        return QuoteVerdict(
            QuoteStatus.WRONG_REF, f"the quote stands at {where.text_form()}, not in the cited span", found
        )
    reason = f"the quote stands nowhere in the corpus at {resolved.commit[:12]}"
    unsearched = _unsearched_paths(resolved.commit, resolver)
    if unsearched:
        # Still failed (loud), but say which documents could not be read rather than claim all were.
        reason += f" (not searched, no readable text: {', '.join(unsearched[:3])}"
        reason += f" and {len(unsearched) - 3} more)" if len(unsearched) > 3 else ")"
    near = near_place(wanted, resolved, resolver)
    if near is not None:
        place, how = near
        reason += f"; but its words stand at {place.text_form()} {how} (a garbled text extraction?)"
        return QuoteVerdict(QuoteStatus.FAILED, reason, near=place)
    return QuoteVerdict(QuoteStatus.FAILED, reason)


# -- near places beside a failed quote ---------------------------------------------------
NEAR_MIN_CHARS = 12  # a shorter quote stands somewhere in almost any spacing
NEAR_MIN_WORDS = 4  # fewer words stand together in many passages in some order
_WORD_RE = re.compile(r"\w+")


def near_place(wanted: str, resolved: Resolved, resolver: Resolver) -> tuple[Citation, str] | None:
    """Where the cited document holds the normalized quote's characters with other spaces, or
    else all its words in one passage in another order (the passage nearest the cited span);
    with how it differs. None when neither."""
    version = resolved.document
    span, how = _respaced(wanted, version, resolver), "in another spacing"
    if span is None:
        span, how = (
            _reordered(wanted, version, resolved.path, resolver, resolved.span),
            "in another order, in one passage",
        )
    if span is None:
        return None
    index = resolver.line_index(version)
    unit = resolved.citation.unit
    return span_citation(resolved.commit, resolved.path, span, index, unit, identity_token=token_of(version)), how


def _respaced(wanted: str, version: VersionText, resolver: Resolver) -> Span | None:
    """The span where `wanted`, every space left out, stands in the normalized text likewise."""
    compact = wanted.replace(" ", "")
    if len(compact) < NEAR_MIN_CHARS:
        return None
    at = _compact_text(version, resolver).find(compact)
    if at == -1:
        return None  # the usual answer, found without mapping a position per character
    normalized, offsets = resolver.normalized(version)
    kept = _non_space_positions(normalized)
    return Span(offsets[kept[at]], source_end(offsets, kept[at + len(compact) - 1] + 1, version.text))


def _compact_text(version: VersionText, resolver: Resolver) -> str:
    """The version's normalized text without its spaces, made once per version and run: many quotes
    failing in one run cite documents in any order, which a cache of the last few texts kept missing."""
    return resolver.memo.compact_texts.get_or_compute(
        version_key(version), lambda: _compact(resolver.normalized_text(version))
    )


def _compact(normalized: str) -> str:
    return normalized.replace(" ", "")


@lru_cache(maxsize=4)  # a check of many quotes failing in one document computes it once
def _non_space_positions(normalized: str) -> tuple[int, ...]:
    """The positions of the normalized text's characters other than spaces, in order."""
    return tuple(i for i, ch in enumerate(normalized) if ch != " ")


def _reordered(wanted: str, version: VersionText, path: str, resolver: Resolver, cited: Span) -> Span | None:
    """The passage of the document at `path` nearest the `cited` span that holds every word of
    `wanted` (in any order): the cited passage first, then the others by their distance from it.

    Passages are the index's own (one query per version and run) when it holds the version, else
    cut here. They are read only when the document's normalized text holds every word at all: a
    passage's words are substrings of it (a passage is a stretch of the document, and normalizing
    a stretch can only cut a word at its edge, never make a new one).
    """
    words = set(_WORD_RE.findall(wanted))
    if len(words) < NEAR_MIN_WORDS:
        return None
    text = version.text
    nearest = None
    if _holds_words(text[cited.start : cited.end], words):
        # The cited lines hold every word (a quote of them reordered): the passage that holds
        # those lines is the answer, found before the whole text is searched word by word.
        spans = _by_distance(_passage_spans(version, path, resolver), cited, most=2)
        nearest = next((s for s in spans if _holds_words(text[s.start : s.end], words)), None)
    if nearest is not None:
        return nearest
    normalized = resolver.normalized_text(version)
    if not all(word in normalized for word in words):
        return None  # the usual answer for a fabricated quote: no passage can hold them all
    spans = _by_distance(_passage_spans(version, path, resolver), cited)
    return next((s for s in spans if _holds_words(text[s.start : s.end], words)), None)


def _by_distance(spans: tuple[Span, ...], cited: Span, most: int | None = None) -> list[Span]:
    """The passages nearest the cited span first (those overlapping it at their order); the
    `most` nearest only, when given, from those around where the cited span starts.

    Passages stand in order and apart (indexer.text.chunk): of those starting at or before the
    cited span, each is farther than the next but one that ends where the next starts, at the
    cited span's start (both touch it: the first comes first); of those after, each is as far as
    or farther than the one before. The `most` nearest are among the `most` after and the `most`
    and one before.
    """

    def key(span: Span) -> tuple[int, int]:
        return (_distance(span, cited), span.start)

    if most is None:
        return sorted(spans, key=key)
    at = bisect_right(spans, cited.start, key=_start)
    return sorted(spans[max(0, at - most - 1) : at + most], key=key)[:most]


def _start(span: Span) -> int:
    return span.start


def _distance(passage: Span, cited: Span) -> int:
    """Characters between a passage and the cited span; 0 when they overlap or touch."""
    return max(passage.start - cited.end, cited.start - passage.end, 0)


def _holds_words(passage: str, words: set[str]) -> bool:
    """Whether the passage's normalized text has every one of `words` among its words."""
    # Without a hyphen or a character beyond ASCII, normalizing changes no word: skip it.
    plain = passage if passage.isascii() and "-" not in passage else normalize(passage)
    return all(word in plain for word in words) and words <= set(_WORD_RE.findall(plain))


def _passage_spans(version: VersionText, path: str, resolver: Resolver) -> tuple[Span, ...]:
    """The document's passages as the index cut them for the form of the cited `path`, or (without
    that version indexed) as it would; once per version, form and run.

    The path is the citation's, not `version.path`: the resolver's memos keep a (blob, identity)'s
    text as the first path that asked read it, and one blob at a .md and a .txt path is two cuts."""
    identity = version.extracted.identity
    form = version_form(path, identity, resolver.config.passage_max_chars)
    key = (*version_key(version), form)
    return resolver.memo.passage_spans.get_or_compute(key, lambda: _spans_of(version, path, form, resolver))


def _spans_of(version: VersionText, path: str, form: str, resolver: Resolver) -> tuple[Span, ...]:
    reader = resolver.index()
    if reader is not None:
        indexed = reader.passage_spans_of(version.blob, version.extracted.identity, form)
        if indexed:
            return tuple(Span(start, end) for start, end in indexed)
    fmt = passage_format(path, version.extracted.identity)
    return _cut(version.text, fmt, resolver.config.passage_max_chars, version.extracted.page_starts)


@lru_cache(maxsize=4)
def _cut(text: str, fmt: TextFormat, max_chars: int, page_starts: tuple[int, ...]) -> tuple[Span, ...]:
    passages = chunk(text, fmt=fmt, max_chars=max_chars, page_starts=page_starts)
    return tuple(Span(p.start, p.end) for p in passages)


def _unsearched_paths(commit: str, resolver: Resolver) -> list[str]:
    reader = resolver.index()
    seq = reader.commit_seq(commit) if reader else None
    if reader is None or seq is None:
        return []
    return resolver.memo.skipped.get_or_compute(seq, lambda: reader.skipped_paths_at(seq))


def exact_places(
    quote: str, commit: str, resolver: Resolver, *, near: Resolved | None = None, unit: str | None = None
) -> tuple[Citation, ...]:
    """Citations (at `commit`) of every place the quote stands, nearest to `near` first."""
    wanted = normalize(quote)
    if not wanted:
        return ()
    unit = unit or (near.citation.unit if near else "lines")
    key = (quote, commit, unit)
    known = resolver.memo.exact_places.peek(key)
    if known is not None and (near is None or not _holds(wanted, near, commit, resolver)):
        return known  # asked already, and `near` holds no place: no place is nearer it than another
    corpus = _corpus_text(commit, resolver)
    holding = corpus.holding(wanted) if corpus is not None else None
    if holding == set() and _narrows_to_texts(quote) and (near is None or not _holds(wanted, near, commit, resolver)):
        # A fabricated quote, told without a word count or a candidate read: the documents
        # `_candidates` would ask are among the corpus text's, and the cited one was asked here.
        return ()
    places = _exact_places(quote, wanted, commit, resolver, near, unit, corpus, holding)
    if near is None or all(c.path != near.path for c in places):
        # Ordered near a document that holds none of them, places keep the candidates' order: the
        # answer for any `near` that holds no place, and for none (the cited document, always a
        # candidate, then changes neither the candidates' order nor the cap).
        resolver.memo.exact_places.put_many([(key, places)])
    return places


def _exact_places(
    quote: str,
    wanted: str,
    commit: str,
    resolver: Resolver,
    near: Resolved | None,
    unit: str,
    corpus: CorpusText | None = None,
    holding: set[VersionKey] | None = None,
) -> tuple[Citation, ...]:
    """The places of `exact_places`, among the index's candidates; with the corpus text, a candidate
    it holds is asked only when it is among those it found holding the quote (`holding`)."""
    hits: list[tuple[int, int, Citation]] = []
    read = 0  # characters of the candidates' texts asked
    for rank, (path, blob) in enumerate(_candidates(quote, commit, resolver, near)):
        try:
            version = resolver.text(blob, path, commit)
        except PinciteError:
            continue
        key = version_key(version)
        if corpus is not None and holding is not None and key in corpus.keys and key not in holding:
            continue  # its text is in the corpus text, and does not hold the quote
        read += len(version.text)
        if wanted not in resolver.normalized_text(version):
            continue  # most candidates: the words stand there, not the quote
        index = resolver.line_index(version)
        for span in place_spans(wanted, version, resolver):
            if len(hits) >= MAX_LOCATIONS * 4:
                break
            cite = span_citation(commit, path, span, index, unit, quote=quote, identity_token=token_of(version))
            same = near is not None and path == near.path
            distance = abs(span.start - near.span.start) if same and near else 0
            hits.append((0 if same else rank + 1, distance, cite))
    hits.sort(key=lambda h: (h[0], h[1]))
    if not hits and corpus is None:
        _pay_rent(commit, resolver, QUOTE_SEARCH_CHARS + read)
    return tuple(h[2] for h in hits[:MAX_LOCATIONS])


def _indexed_seq(commit: str, resolver: Resolver) -> int | None:
    """`commit`'s place in the run's index, None without an index of it."""
    reader = resolver.index()
    return reader.commit_seq(commit) if reader is not None else None


def _pay_rent(commit: str, resolver: Resolver, chars: int) -> None:
    """Count what a quote found nowhere cost without the corpus text (`_corpus_text` weighs it)."""
    seq = _indexed_seq(commit, resolver)
    if seq is not None:
        resolver.memo.corpus_rent[seq] = resolver.memo.corpus_rent.get(seq, 0) + chars


# A quote searched through the index (its words counted, its candidates read) costs about what
# normalizing this many characters of text does: the corpus text is made once the quotes searched
# without it have cost what making it costs (`_corpus_text`).
QUOTE_SEARCH_CHARS = 200_000  # measured: about 2 ms a quote of common words, as long as normalizing this
CORPUS_TEXT_MAX_CHARS = 16_000_000  # never more: a larger corpus is searched through the index alone
CORPUS_TEXTS_KEPT = 2  # commits whose corpus text a run keeps (a draft citing many commits asks at each)


def _narrows_to_texts(quote: str) -> bool:
    """Whether the index's candidates for `quote` are all documents with text, as the corpus text's
    are: a quote with words or pieces to narrow by (`versions_holding`); one without (a quote of
    CJK text alone) is asked of every path at the commit, those the index holds no text for too."""
    spelled = normalize_spelling(quote)
    runs = spelled.split(" ")
    return any(map(_narrowing_word, runs[1:-1])) or any(map(_verbatim_piece, runs))


def _holds(wanted: str, near: Resolved, commit: str, resolver: Resolver) -> bool:
    """Whether the cited document (always a candidate, compared with every fold) holds `wanted`."""
    try:
        version = resolver.text(near.blob, near.path, commit)
    except PinciteError:
        return False  # unreadable: `_candidates` skips it too
    return wanted in resolver.normalized_text(version)


def _corpus_text(commit: str, resolver: Resolver) -> CorpusText | None:
    """The normalized texts of every readable document at `commit`, as the index lists them.

    The documents `_candidates` would ask are among these (the index narrows them), so a quote the
    corpus text does not hold stands in none of them, and a candidate it holds but not the quote
    need not be asked; which documents count as candidates stays the index's answer. Made once a
    run and commit, when renting has cost what buying costs: once the quotes the run searched at
    `commit` without it and found nowhere — what it would have answered at once — have cost
    (QUOTE_SEARCH_CHARS each, and the characters of the candidates each asked) the characters of
    the documents it has not normalized yet. Quotes that stand somewhere pay nothing towards it:
    they are answered through the index's candidates either way. A draft of many fabricated
    quotes then pays for the corpus text at most about twice, and each later quote is one substring
    search; a run with a failed quote or two, in a large corpus, never makes it. None until then,
    and without an index at `commit`.
    """
    reader, seq = resolver.index(), _indexed_seq(commit, resolver)
    if reader is None or seq is None:
        return None
    memo = resolver.memo
    if seq in memo.corpus_texts:
        return memo.corpus_texts[seq]
    rent = memo.corpus_rent.get(seq, 0)
    entries = memo.readable.get_or_compute(seq, lambda: reader.readable_at(seq))
    if sum(length for _path, _blob, length in entries) > CORPUS_TEXT_MAX_CHARS:
        return None
    done = memo.normalized_blobs
    missing = sum(length for _path, blob, length in entries if blob not in done)
    if rent < missing:
        return None
    texts: dict[VersionKey, str] = {}
    for path, blob, _length in entries:
        try:
            version = resolver.text(blob, path, commit)
        except PinciteError:
            continue  # unreadable here: `exact_places` skips it too
        key = version_key(version)
        if key not in texts:
            texts[key] = resolver.normalized_text(version)
    starts, at = [], 0
    for text in texts.values():
        starts.append(at)
        at += len(text) + 1
    corpus = CorpusText("\n".join(texts.values()), tuple(starts), tuple(texts))
    if len(memo.corpus_texts) >= CORPUS_TEXTS_KEPT:
        oldest = next(iter(memo.corpus_texts))  # dropped, so memory stays bounded; made again only
        del memo.corpus_texts[oldest]  # when quotes asked there have cost its making once more
        memo.corpus_rent[oldest] = 0
    memo.corpus_texts[seq] = corpus
    return corpus


def place_spans(wanted: str, version: VersionText, resolver: Resolver) -> Iterator[Span]:
    """The spans of the version's text where the normalized quote `wanted` stands, in order.

    A quote that stands once (the usual wrong reference) is mapped back through the offsets of
    the stretch that holds it (`offsets_near`); the whole document's map, which costs several
    times its normalized text, is made only when the quote stands more than once or the run
    made it already.
    """
    mapped = resolver.memo.normalized.peek(version_key(version))
    normalized = mapped[0] if mapped is not None else resolver.normalized_text(version)
    at = normalized.find(wanted)
    if mapped is None and at != -1 and normalized.find(wanted, at + 1) == -1:
        base, offsets = offsets_near(version.text, at, at + len(wanted))
        yield Span(offsets[at - base], source_end(offsets, at - base + len(wanted), version.text))
        return
    if at != -1:
        normalized, offsets = resolver.normalized(version)
        yield from match_spans(wanted, normalized, offsets, version.text)


def quote_spans(wanted: str, text: str, most: int) -> list[Span]:
    """Exact spans of `text` where the normalized quote `wanted` stands (at most `most`)."""
    normalized, offsets = normalize_for_match(text)
    return list(islice(match_spans(wanted, normalized, offsets, text), most))


def match_spans(wanted: str, normalized: str, offsets: list[int], text: str) -> Iterator[Span]:
    """The spans of the original `text` where `wanted` stands in its normalized form, in order."""
    at = normalized.find(wanted)
    while at != -1:
        yield Span(offsets[at], source_end(offsets, at + len(wanted), text))
        at = normalized.find(wanted, at + 1)


def source_end(offsets: list[int], end: int, text: str) -> int:
    """Where in the original text a match ending before normalized position `end` ends.

    Several normalized code points can come from one NFC segment or ligature (they share its
    start offset), so the end is the next source offset greater than the last matched one's;
    a hyphen left out between two letters (and the whitespace after it) that stands before
    that offset is not part of the match, so the span stops before it.
    """
    last = offsets[end - 1]
    after = next((offsets[k] for k in range(end, len(offsets)) if offsets[k] > last), len(text))
    cut = after
    while cut - 1 > last and text[cut - 1].isspace():
        cut -= 1
    return cut - 1 if cut - 1 > last and text[cut - 1] in WORD_HYPHENS else after


def _end_offset(offsets: list[int], end: int, text: str) -> int:
    # The site's browser test checks the page's script against this form.
    return source_end(offsets, end, text)


def _candidates(quote: str, commit: str, resolver: Resolver, near: Resolved | None) -> list[tuple[str, str]]:
    """(path, blob) of the documents at `commit` that may hold the quote, the cited one first."""
    found: dict[str, str] = {}
    if near is not None:
        found[near.path] = near.blob
    reader = resolver.index()
    seq = reader.commit_seq(commit) if reader else None
    if reader is not None and seq is not None:
        # A document this run has normalized is asked directly (exactly) rather than filtered first.
        normalized = resolver.memo.normalized_blobs

        def known(version_id: int) -> bool:
            return reader.version_blob(version_id) in normalized

        holding = resolver.memo.holding.get_or_compute(
            (quote, seq), lambda: versions_holding(reader, quote, seq, known)
        )
        for path, version_id in holding:
            blob = reader.version_blob(version_id)
            if blob:
                found.setdefault(path, blob)
        return list(found.items())
    for entry in resolver.corpus_entries(commit):
        if entry.mode in MODE_FILE:  # every file may hold text; binary ones are found unreadable when read
            found.setdefault(entry.path, entry.sha)
    return list(found.items())


def quote_words(normalized_quote: str, most: int = QUERY_WORDS) -> list[str]:
    """The quote's longest whole ASCII words, which every document holding it has in its passages.

    A word counts only between two spaces of the quote: at either end it may be cut, and next
    to punctuation or a non-ASCII character the document may hold another form (a folded quote,
    an accent NFC composed) that the word tokenizer splits differently. A longer word than
    `WORD_KEPT_WHOLE` could be cut by a passage boundary (indexer.text.chunk).
    Empty: nothing to narrow by.
    """
    inner = normalized_quote.split(" ")[1:-1]
    words = [w for w in inner if _narrowing_word(w)]
    return sorted(dict.fromkeys(words), key=len, reverse=True)[:most]


def _narrowing_word(run: str) -> bool:
    """Whether a run between two spaces of a quote is a word every document holding it has in its passages."""
    return run.isascii() and run.isalnum() and len(run) < WORD_KEPT_WHOLE


def quote_pieces(normalized_quote: str, most: int = QUERY_PIECES) -> list[str]:
    """The quote's longest runs between spaces that every document holding it has verbatim.

    Only ASCII runs without a character normalization folds to: the document may hold a
    typographic quote or dash where the quote has `'`, `"` or `-`, and any whitespace where
    the quote has a space.
    """
    pieces = [p for p in normalized_quote.split(" ") if _verbatim_piece(p)]
    return sorted(dict.fromkeys(pieces), key=len, reverse=True)[:most]


def _verbatim_piece(run: str) -> bool:
    """Whether a run between spaces of a quote stands verbatim in every document holding it."""
    return bool(run) and run.isascii() and not _FOLD_TARGETS.intersection(run)


def versions_holding(
    reader: IndexReader, quote: str, seq: int | None, unfiltered: Callable[[int], bool] | None = None
) -> list[tuple[str, int]]:
    """(path, version id) of the versions (at `seq`, or at any commit) that may hold the quote.

    The words and pieces looked up are the quote's as written (`normalize_spelling`): matching
    also leaves out hyphens inside words and folds ligatures, but the word index and the stored
    text hold the document's own spelling, which a quote copied from it shares.
    """
    spelled = normalize_spelling(quote)
    words, pieces = quote_words(spelled), quote_pieces(spelled)
    if words or pieces:
        return reader.versions_matching(words, pieces, seq, unfiltered)
    if seq is None:
        return [(pv.path, pv.version_id) for pv in reader.all_path_versions()]
    return [(pv.path, pv.version_id) for pv in reader.paths_at(seq)]


def cite_quote(resolver: Resolver, path: str, quote: str, rev: str, unit: str = "chars") -> Resolved:
    """A new citation of the one place in `path` at `rev` where `quote` stands, resolved."""
    commit = resolver.commit(rev)
    clean = safe_repo_path(path)
    wanted = normalize(quote)
    if not wanted:
        raise UsageError(f"--quote {quote!r} is empty", hint="quote the words you want to cite")
    version = resolver.text_at(commit, clean)
    index = resolver.line_index(version)
    normalized, offsets = resolver.normalized(version)
    spans = list(match_spans(wanted, normalized, offsets, version.text))
    where = f"{clean} at {commit[:12]}"
    if not spans:
        raise UsageError(
            f"the quote {quote!r} does not stand in {where}",
            hint="check the wording (matching folds whitespace, quotes, dashes, ligatures and hyphens inside "
            "words only), or search first",
        )
    if len(spans) > 1:
        listed = ", ".join(f"L{index.line_of(s.start)} (c{s.start}-{s.end})" for s in spans[:10])
        more = f" and {len(spans) - 10} more" if len(spans) > 10 else ""
        raise AmbiguousQuote(
            f"the quote {quote!r} stands {len(spans)} times in {where}: {listed}{more}",
            hint="quote more words to make it unique, or cite with --lines/--chars",
            candidates=tuple(span_citation(commit, clean, s, index, unit, quote=quote) for s in spans),
        )
    citation = span_citation(commit, clean, spans[0], index, unit, quote=quote, identity_token=token_of(version))
    resolved = resolver.resolve(citation)
    return resolved
