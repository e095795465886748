"""Quote checks: does a citation's quote stand in its span, elsewhere in the corpus, or nowhere?

Matching uses the one normalization of `indexer.text.normalize`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from indexer.citations.resolve import Resolved, Resolver, span_citation, token_of
from indexer.citations.verdicts import QuoteStatus
from indexer.errors import PinciteError, UsageError
from indexer.index.store import IndexReader
from indexer.text.chunk import WORD_KEPT_WHOLE
from indexer.text.citation import Citation
from indexer.text.model import Span
from indexer.text.normalize import QUOTE_FOLD, normalize, normalize_for_match
from indexer.vcs.repo import MODE_FILE, safe_repo_path

# -- quote check ------------------------------------------------------------------
MAX_LOCATIONS = 10
QUERY_WORDS = 3  # the longest words narrow best; each more costs a lookup (about a millisecond)
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
    (nearest first): the first is the suggested corrected citation.
    """

    status: QuoteStatus
    reason: str
    found: tuple[Citation, ...] = ()

    @property
    def suggestion(self) -> Citation | None:
        """Where the quote actually stands (a suggested corrected citation), if anywhere."""
        return self.found[0] if self.found else None

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "reason": self.reason,
            "suggestion": self.suggestion.text_form() if self.suggestion else None,
            "found": [c.text_form() for c in self.found],
        }


def check_quote(quote: str, resolved: Resolved | None, resolver: Resolver, reason: str = "") -> QuoteVerdict:
    """Does `quote` stand in the resolved citation's span, elsewhere at its commit, or nowhere?"""
    wanted = normalize(quote)
    if resolved is None:
        return QuoteVerdict(QuoteStatus.UNVERIFIABLE, f"the citation is unresolvable: {reason}".rstrip(": "))
    if not wanted:
        return QuoteVerdict(QuoteStatus.UNVERIFIABLE, "the quote is empty")
    if wanted in normalize_for_match(resolved.text)[0]:
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
    return QuoteVerdict(QuoteStatus.FAILED, reason)


def _unsearched_paths(commit: str, resolver: Resolver) -> list[str]:
    reader = resolver.index()
    seq = reader.commit_seq(commit) if reader else None
    return reader.skipped_paths_at(seq) if reader is not None and seq is not None else []


def exact_places(
    quote: str, commit: str, resolver: Resolver, *, near: Resolved | None = None, unit: str | None = None
) -> tuple[Citation, ...]:
    """Citations (at `commit`) of every place the quote stands, nearest to `near` first."""
    wanted = normalize(quote)
    if not wanted:
        return ()
    unit = unit or (near.citation.unit if near else "lines")
    hits: list[tuple[int, int, Citation]] = []
    for rank, (path, blob) in enumerate(_candidates(wanted, commit, resolver, near)):
        try:
            version = resolver.text(blob, path, commit)
        except PinciteError:
            continue
        normalized, offsets = resolver.normalized(version)
        index = resolver.line_index(version)
        for span in match_spans(wanted, normalized, offsets, len(version.text)):
            if len(hits) >= MAX_LOCATIONS * 4:
                break
            cite = span_citation(commit, path, span, index, unit, quote=quote, identity_token=token_of(version))
            same = near is not None and path == near.path
            distance = abs(span.start - near.span.start) if same and near else 0
            hits.append((0 if same else rank + 1, distance, cite))
    hits.sort(key=lambda h: (h[0], h[1]))
    return tuple(h[2] for h in hits[:MAX_LOCATIONS])


def quote_spans(wanted: str, text: str, most: int) -> list[Span]:
    """Exact spans of `text` where the normalized quote `wanted` stands (at most `most`)."""
    normalized, offsets = normalize_for_match(text)
    return list(islice(match_spans(wanted, normalized, offsets, len(text)), most))


def match_spans(wanted: str, normalized: str, offsets: list[int], text_length: int) -> Iterator[Span]:
    """The spans of the original text where `wanted` stands in its normalized form, in order."""
    at = normalized.find(wanted)
    while at != -1:
        yield Span(offsets[at], source_end(offsets, at + len(wanted), text_length))
        at = normalized.find(wanted, at + 1)


def source_end(offsets: list[int], end: int, text_length: int) -> int:
    """Where in the original text a match ending before normalized position `end` ends.

    Several normalized code points can come from one NFC segment (they share its start
    offset), so the end is the next source offset greater than the last matched one's.
    """
    last = offsets[end - 1]
    for k in range(end, len(offsets)):
        if offsets[k] > last:
            return offsets[k]
    return text_length


def _end_offset(offsets: list[int], end: int, text: str) -> int:
    # The site's browser test checks the page's script against this form.
    return source_end(offsets, end, len(text))


def _candidates(wanted: str, commit: str, resolver: Resolver, near: Resolved | None) -> list[tuple[str, str]]:
    """(path, blob) of the documents at `commit` that may hold the quote, the cited one first."""
    found: dict[str, str] = {}
    if near is not None:
        found[near.path] = near.blob
    reader = resolver.index()
    seq = reader.commit_seq(commit) if reader else None
    if reader is not None and seq is not None:
        holding = resolver.memo.holding.get_or_compute((wanted, seq), lambda: versions_holding(reader, wanted, seq))
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
    words = [w for w in inner if w.isascii() and w.isalnum() and len(w) < WORD_KEPT_WHOLE]
    return sorted(dict.fromkeys(words), key=len, reverse=True)[:most]


def quote_pieces(normalized_quote: str, most: int = QUERY_PIECES) -> list[str]:
    """The quote's longest runs between spaces that every document holding it has verbatim.

    Only ASCII runs without a character normalization folds to: the document may hold a
    typographic quote or dash where the quote has `'`, `"` or `-`, and any whitespace where
    the quote has a space.
    """
    pieces = [p for p in normalized_quote.split(" ") if p.isascii() and not _FOLD_TARGETS.intersection(p)]
    return sorted(dict.fromkeys(p for p in pieces if p), key=len, reverse=True)[:most]


def versions_holding(reader: IndexReader, normalized_quote: str, seq: int | None) -> list[tuple[str, int]]:
    """(path, version id) of the versions (at `seq`, or at any commit) that may hold the quote."""
    words, pieces = quote_words(normalized_quote), quote_pieces(normalized_quote)
    if words or pieces:
        return reader.versions_matching(words, pieces, seq)
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
    spans = list(match_spans(wanted, normalized, offsets, len(version.text)))
    where = f"{clean} at {commit[:12]}"
    if not spans:
        raise UsageError(
            f"the quote {quote!r} does not stand in {where}",
            hint="check the wording (matching folds whitespace, quotes and dashes only), or search first",
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
