"""Local quote search across history: where do these words stand now, and when did they go?

`QuoteSearcher.search(quote, target, ...)` answers from the repository and its index:

1. exact places at the target (`quote.exact_places`: candidates from the index by the quote's words,
   confirmed by comparing the normalized quote with the normalized text, mapped back to
   exact offsets), each with a ready new citation;
2. near matches, only when there is no exact place and the quote has at most
   FUZZY_MAX_WORDS words: a bounded fuzzy search over the cited document's passages and
   the best bm25 passages, scored by `similarity` (the share of characters the two texts
   have in common in order, 2·LCS / total length). Suggestions, never verified citations.
   The comparison's cost grows with the product of the two lengths, so a longer quote gets
   exact places and last seen only; its step says so;
3. last seen, only when there is no exact place: the last commit at which the quote stood
   at the cited path and the commit that removed or changed it (subject, message, the
   hunks that touched it), read from the index's path version intervals instead of a
   `git log -S` walk.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING

from rapidfuzz.distance import Indel

from indexer.citations.drift import touching_hunks
from indexer.citations.memo import Memo
from indexer.citations.quote import (
    MAX_LOCATIONS,
    exact_places,
    match_spans,
    quote_words,
    source_end,
    versions_holding,
)
from indexer.citations.resolve import Resolver, span_citation
from indexer.citations.verdicts import ChangeKind
from indexer.errors import PinciteError, RepositoryError
from indexer.index.documents import diffs_committed_blob
from indexer.index.store import PathVersion
from indexer.text.citation import Citation, token_for
from indexer.text.model import LineIndex, Span
from indexer.text.normalize import normalize, normalize_for_match, normalize_spelling, normalized_text
from indexer.vcs.repo import Hunk

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs startup time
    from indexer.shapes import LastSeenJson, NearMatchJson, QuoteSearchJson

FUZZY_THRESHOLD = 0.6  # below this a "near match" is noise
FUZZY_LIMIT = 3  # near matches reported
FUZZY_CANDIDATES = 12  # bm25 passages considered for near matches
FUZZY_RANKED = 500  # of the newest passages holding a rare word: bm25 scores every one it ranks
FUZZY_SCORED = 4  # candidates compared character by character (the bound on fuzzy work)
FTS_WORDS = 12  # longest words of the quote that pick bm25 candidates for near matches
FTS_RARE_WORDS = 4  # of them, the rarest in the index are searched
ANCHORS = 3  # word-level matching blocks tried as anchors of a near match
FUZZY_MAX_WORDS = 200  # longest quote (in words) near matching compares: bounds its work
_WORD = re.compile(r"\w+")
_NONSPACE = re.compile(r"\S+")


@dataclass(frozen=True)
class NearMatch:
    """Text at the target that resembles the quote: a suggestion, never a verified citation."""

    path: str
    start: int
    end: int
    lines: tuple[int, int]
    similarity: float
    text: str
    word_diff: str  # the quote against this text, as `[-removed-]{+added+}`
    citation: Citation

    def to_json(self) -> NearMatchJson:
        return {
            "path": self.path,
            "chars": [self.start, self.end],
            "lines": list(self.lines),
            "similarity": round(self.similarity, 3),
            "text": self.text,
            "word_diff": self.word_diff,
            "citation": self.citation.text_form(),
            "exact": False,
            "label": f"suggestion (fuzzy, {self.similarity:.0%} similar; not verified)",
        }


@dataclass(frozen=True)
class LastSeen:
    """Where the quote last stood at the cited path, and the commit that took it away."""

    path: str
    last_commit: str
    removed_by: str
    subject: str
    message: str
    change: ChangeKind  # modified, deleted or renamed (by git's rename detection)
    new_path: str | None
    hunks: tuple[Hunk, ...]

    def to_json(self) -> LastSeenJson:
        return {
            "path": self.path,
            "last_commit": self.last_commit,
            "removed_by": self.removed_by,
            "subject": self.subject,
            "message": self.message,
            "change": self.change,
            "new_path": self.new_path,
            "diff": [h.to_json() for h in self.hunks],
        }


@dataclass(frozen=True)
class QuoteSearchResult:
    """Everything the local search found for one quote at one target commit."""

    quote: str
    target: str
    places: tuple[Citation, ...]
    near: tuple[NearMatch, ...]
    last_seen: LastSeen | None
    steps: tuple[str, ...] = ()
    # Not in the JSON (the steps say it there): what a one-line summary needs to stay true.
    scope: str | None = None  # the one document searched; None: the whole corpus at the target
    near_searched: bool = False  # near matches were looked for (an index holding the target, a short quote)

    def to_json(self) -> QuoteSearchJson:
        return {
            "quote": self.quote,
            "target_commit": self.target,
            "places": [p.text_form() for p in self.places],
            "near": [n.to_json() for n in self.near],
            "last_seen": self.last_seen.to_json() if self.last_seen else None,
        }


WORD_FILTER_AFTER = 32  # versions of one path


class QuoteSearcher:
    """Searches the repository and its index for quotes; caches the texts it normalizes."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.repo = resolver.repo
        self.reader = resolver.index()
        self._normalized: Memo[int, tuple[str, list[int]]] = Memo()  # version id -> normalized text, offsets
        self._scores: Memo[tuple[str, str, int, int, int, str, str], NearMatch | None] = Memo()  # per passage
        self._plain: Memo[int, str] = Memo()  # version id -> normalized text alone (whether a quote stands)
        self._texts: Memo[int, str | None] = Memo()  # version id -> its indexed text
        self._answers: Memo[tuple[str, str, str | None, str | None, str, bool], QuoteSearchResult] = Memo()
        self._followed: Memo[tuple[str, str, str], str | None] = Memo()  # (path, pinned, target) -> path there
        self._versions_at: Memo[tuple[str, int], PathVersion | None] = Memo()  # (path, commit seq) -> version
        commits = self.reader.commits() if self.reader else []
        self._commits = dict(enumerate(commits))
        self._seq_of = {c.sha: seq for seq, c in enumerate(commits)}

    def search(
        self,
        quote: str,
        target: str,
        *,
        cited_path: str | None = None,
        pinned: str | None = None,
        unit: str = "lines",
        fuzzy: bool = True,
    ) -> QuoteSearchResult:
        """Every exact place of `quote` at commit `target`; else near matches and where it was last seen.

        `cited_path` and `pinned` (the citation's path and full commit) let the search say
        when the quote left that path; new citations are written in `unit`. Answers are
        remembered: many citations of one passage cost one search.
        """
        key = (quote, target, cited_path, pinned, unit, fuzzy)
        return self._answers.get_or_compute(key, lambda: self._search(quote, target, cited_path, pinned, unit, fuzzy))

    def _search(
        self, quote: str, target: str, cited_path: str | None, pinned: str | None, unit: str, fuzzy: bool
    ) -> QuoteSearchResult:
        wanted = normalize(quote)
        if not wanted:
            return QuoteSearchResult(quote, target, (), (), None, ("empty quote: nothing to search",))
        seq = self._seq_of.get(target)
        steps: list[str] = []
        followed = self._followed_path(cited_path, pinned, target, seq) if self.reader and seq is not None else None
        if followed is not None:
            # Where the cited document still stands, the quote found in it is the answer: places in
            # other documents would never be applied (a moved citation stays in its document).
            places = self.exact_in(quote, target, followed, unit)
            steps.append(f"exact search in {followed}, the cited document at the target: {len(places)} place(s)")
            if places:
                return QuoteSearchResult(quote, target, places, (), None, tuple(steps))
        steps.append("exact search at the target (candidates by the quote's words, confirmed on normalized text)")
        places = exact_places(quote, target, self.resolver, unit=unit)
        steps.append(f"exact: {len(places)} place(s)")
        if places:
            return QuoteSearchResult(quote, target, places, (), None, tuple(steps))
        if self.reader is None or seq is None:
            steps.append(f"the index does not hold {target[:12]}: no near matches or history (run `pincite build`)")
            return QuoteSearchResult(quote, target, (), (), None, tuple(steps))
        near: tuple[NearMatch, ...] = ()
        words = wanted.count(" ") + 1
        if fuzzy and words > FUZZY_MAX_WORDS:
            steps.append(
                f"fuzzy search skipped: the quote has {words} words and near matching compares at most "
                f"{FUZZY_MAX_WORDS} (exact places and last seen are still searched)"
            )
        elif fuzzy:
            steps.append(f"fuzzy search over at most {FUZZY_CANDIDATES} passages (similarity: 2·LCS / length)")
            near = tuple(self._near(wanted, target, seq, cited_path, pinned, unit))
            steps.append(f"fuzzy: {len(near)} near match(es) with similarity >= {FUZZY_THRESHOLD}")
        last_seen = None
        if cited_path is not None:
            steps.append(f"history of {cited_path} from the index's path version intervals")
            pinned_seq = self._seq_of.get(pinned) if pinned else None
            last_seen = self._last_seen(quote, cited_path, pinned_seq, seq)
            steps.append(
                f"last seen at {last_seen.last_commit[:12]}, {last_seen.change} by {last_seen.removed_by[:12]}"
                if last_seen
                else f"not found at {cited_path} in the indexed history"
            )
        return QuoteSearchResult(
            quote, target, (), near, last_seen, tuple(steps), near_searched=fuzzy and words <= FUZZY_MAX_WORDS
        )

    # fuzzy -------------------------------------------------------------------------
    def _near(
        self, wanted: str, target: str, seq: int, cited_path: str | None, pinned: str | None, unit: str
    ) -> list[NearMatch]:
        """Near matches among the cited path's passages and the best bm25 passages at the target."""
        assert self.reader is not None
        candidates: dict[tuple[str, int], tuple[int, Span, str]] = {}
        followed = self._followed_path(cited_path, pinned, target, seq)
        at_target = self._version_at(followed, seq) if followed else None
        if followed is not None and at_target is not None:
            for p in self.reader.passages_of(at_target.version_id):
                candidates[(followed, p.start)] = (at_target.version_id, Span(p.start, p.end), p.text)
            in_document = self._scored(wanted, candidates, target, unit)
            if in_document:
                return in_document  # the cited words were edited in place: elsewhere is not searched
        query = fts_words_query(wanted, self.reader.passages_with)
        if query is not None:
            ranked = self.reader.search_passages(
                query, seq, FUZZY_CANDIDATES, None, snippets=False, rank_newest=FUZZY_RANKED
            )
            for path, version_id, p, _snippet in ranked:
                candidates[(path, p.start)] = (version_id, Span(p.start, p.end), p.text)
        return self._scored(wanted, candidates, target, unit)

    def _scored(
        self, wanted: str, candidates: dict[tuple[str, int], tuple[int, Span, str]], target: str, unit: str
    ) -> list[NearMatch]:
        """The best near matches among candidate passages, the few sharing most words compared closely."""
        quote_words = set(wanted.lower().split(" "))
        ranked = sorted(
            candidates.items(), key=lambda item: (-len(quote_words & set(item[1][2].lower().split())), item[0])
        )
        scored: dict[tuple[str, int, int], NearMatch] = {}
        for (path, _start), (version_id, passage, _text) in ranked[:FUZZY_SCORED]:
            key = (wanted, path, version_id, passage.start, passage.end, target, unit)
            # The cited document's passages, scored first, rank first again among the corpus's.
            match = self._scores.get_or_compute(
                key, partial(self._score, wanted, path, version_id, passage, target, unit)
            )
            if match is not None and match.similarity >= FUZZY_THRESHOLD:
                scored[(match.path, match.start, match.end)] = match
        best = sorted(scored.values(), key=lambda m: (-m.similarity, m.path, m.start))
        return best[:FUZZY_LIMIT]

    def exact_in(self, quote: str, target: str, path: str, unit: str) -> tuple[Citation, ...]:
        """Every exact place of the quote (after normalization) in one document at the target."""
        wanted = normalize(quote)
        try:
            version = self.resolver.text_at(target, path)
        except PinciteError:
            return ()
        if wanted not in self.resolver.normalized_text(version):
            return ()  # asked before where: the map of offsets costs more than the answer
        normalized, offsets = self.resolver.normalized(version)
        index = self.resolver.line_index(version)
        spans = islice(match_spans(wanted, normalized, offsets, version.text), MAX_LOCATIONS)
        return tuple(span_citation(target, path, span, index, unit, quote=quote) for span in spans)

    def _followed_path(self, path: str | None, pinned: str | None, target: str, seq: int) -> str | None:
        """The cited path at the target, renames followed; None when it is gone or unknown.

        Once per (path, pinned, target) and run: a deep search asks it for the exact search in the
        cited document and again for its near matches, and many citations of one document ask alike.
        """
        if path is None or pinned is None:
            return path
        return self._followed.get_or_compute((path, pinned, target), lambda: self._follow(path, pinned, target, seq))

    def _follow(self, path: str, pinned: str, target: str, seq: int) -> str | None:
        assert self.reader is not None
        if self._version_at(path, seq) is not None:
            return path  # still there: no need to ask git about renames
        lineage = self.resolver.lineage(pinned, path, target)
        if lineage is not None:
            return lineage.path  # followed step by step through the indexed history
        try:
            return self.repo.path_change(pinned, target, path).new_path
        except RepositoryError:  # an unknown pinned commit: verify reports it
            return None

    def _version_at(self, path: str, seq: int) -> PathVersion | None:
        """The path's version at commit `seq`, asked of the index once per run: following the cited
        path and reading its passages for near matches ask it alike."""
        reader = self.reader
        assert reader is not None
        return self._versions_at.get_or_compute((path, seq), lambda: reader.version_of(path, seq))

    def _score(
        self, wanted: str, path: str, version_id: int, passage: Span, target: str, unit: str
    ) -> NearMatch | None:
        assert self.reader is not None
        text = self._text(version_id)
        if text is None:
            return None
        # A window around the passage leaves room for a quote that crosses its edges;
        # only the window is normalized, not the whole document.
        base = max(0, passage.start - 2 * len(wanted))
        window = text[base : passage.end + 2 * len(wanted)]
        norm, offsets = normalize_for_match(window)
        found = best_window(wanted, norm, FUZZY_THRESHOLD)
        if found is None:
            return None
        a, b, ratio = found
        span = Span(base + offsets[a], base + source_end(offsets, b, window))
        original = text[span.start : span.end]
        index = LineIndex(text)
        recorded = self.reader.version_identity(version_id)
        token = token_for(*recorded) if recorded is not None else None
        citation = span_citation(target, path, span, index, unit, identity_token=token)
        citation = replace(citation, blob=self.reader.version_blob(version_id))
        diff = word_diff(wanted, normalize_spelling(original))
        return NearMatch(path, span.start, span.end, index.lines_of_span(span), ratio, original, diff, citation)

    # history -----------------------------------------------------------------------
    def _last_seen(self, quote: str, path: str, pinned_seq: int | None, target_seq: int) -> LastSeen | None:
        assert self.reader is not None
        wanted = normalize(quote)
        history = [pv for pv in self.reader.history_of(path) if pv.first_seq <= target_seq]
        if pinned_seq is not None:
            history = [pv for pv in history if pv.last_seq >= pinned_seq]
        if quote_words(normalize_spelling(quote)) and len(history) > WORD_FILTER_AFTER:
            # Only versions with the quote's words in their passages can hold it. The query looks
            # at the whole corpus's history, so for a path with few versions reading them is cheaper.
            holding = {vid for p, vid in versions_holding(self.reader, quote, None) if p == path}
            history = [pv for pv in history if pv.version_id in holding]
        present: PathVersion | None = None
        for pv in history:
            if wanted in self._plain_text(pv.version_id):
                present = pv
        if present is None or present.last_seq >= target_seq:
            return None
        last = self._commits[present.last_seq].sha
        remover = self._commits[present.last_seq + 1]
        after = self.reader.version_of(path, present.last_seq + 1)
        new_path: str | None
        if after is not None:
            status, new_path = ChangeKind.MODIFIED, path
        else:  # gone from the path: git's rename detection tells a move from a deletion
            change = self.repo.path_change(last, remover.sha, path)
            status, new_path = ChangeKind(change.status), change.new_path
        hunks = self._removing_hunks(present, after, wanted, status)
        message = self._message(remover.sha)
        return LastSeen(path, last, remover.sha, remover.subject, message, status, new_path, hunks)

    def _message(self, commit: str) -> str:
        """The full commit message, read through the persistent object reader (no process)."""
        raw = self.repo.read_blob(commit)  # any object id reads; this one is a commit
        _headers, _sep, message = raw.partition(b"\n\n")
        return message.decode("utf-8", errors="replace").strip()

    def _removing_hunks(
        self, present: PathVersion, after: PathVersion | None, wanted: str, status: ChangeKind
    ) -> tuple[Hunk, ...]:
        if after is not None:
            new_blob = self._diffable_blob(after.version_id)
        elif status == ChangeKind.RENAMED:
            return ()  # the words left with the file; the exact search reports the new path
        else:
            new_blob = self.repo.hash_object(b"")
        # Through the resolver's memo: `prefetch_hunks` diffed the steps of drifted citations already.
        hunks = self.resolver.blob_hunks(self._diffable_blob(present.version_id), new_blob)
        text = self._text(present.version_id) or ""
        normalized, offsets = self._normalized_text(present.version_id)
        span = next(match_spans(wanted, normalized, offsets, text), None)
        if span is None:
            return tuple(hunks)
        first, last = LineIndex(text).lines_of_span(span)
        return touching_hunks(first, last, hunks) or tuple(hunks)

    def _diffable_blob(self, version_id: int) -> str:
        """A blob git can diff that holds the indexed text (docs/design.md#d4)."""
        assert self.reader is not None
        version = self.reader.version(version_id)
        if diffs_committed_blob(version.source_class, version.identity):
            return version.blob
        return self.repo.hash_object((version.text or "").encode("utf-8"))

    # texts -------------------------------------------------------------------------
    def _text(self, version_id: int) -> str | None:
        reader = self.reader
        assert reader is not None
        return self._texts.get_or_compute(version_id, lambda: reader.version(version_id).text)

    def _plain_text(self, version_id: int) -> str:
        """The version's normalized text without its offset map: each version of the cited path is
        asked whether it holds the quote, and only the last that does is mapped (`_removing_hunks`)."""
        mapped = self._normalized.peek(version_id)
        if mapped is not None:
            return mapped[0]
        return self._plain.get_or_compute(version_id, lambda: normalized_text(self._text(version_id) or ""))

    def _normalized_text(self, version_id: int) -> tuple[str, list[int]]:
        return self._normalized.get_or_compute(version_id, lambda: normalize_for_match(self._text(version_id) or ""))


# -- helpers -------------------------------------------------------------------------
def fts_words_query(normalized_quote: str, passages_with: Callable[[str], int] | None = None) -> str | None:
    """Any of the quote's words, for bm25-ranked near-match candidates.

    Of its longest words, the rarest (`passages_with` counts the passages holding one) when
    given: a near match shares most of the quote's words, rare ones included, and a common
    word would have bm25 score most of the index before the best few come out.
    """
    words = sorted(set(_WORD.findall(normalized_quote)), key=lambda w: (-len(w), w))[:FTS_WORDS]
    if passages_with is not None:
        words = sorted(words, key=lambda w: (passages_with(w), w))[:FTS_RARE_WORDS]
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words)


def best_window(wanted: str, window: str, floor: float = 0.0) -> tuple[int, int, float] | None:
    """(start, end, ratio) of the part of `window` that best matches `wanted`, whole words.

    Runs of as many words as the quote, slid along the window, are ranked by how many of the
    quote's words they share (one pass); only the best few such regions are compared character
    by character, so the cost stays small however long the window is. A region whose cheap
    upper bounds cannot reach `floor` (or the best so far) is not compared at all.
    """
    quote_words = wanted.split(" ")
    spans = [(m.start(), m.end()) for m in _NONSPACE.finditer(window)]
    vocabulary = set(quote_words)
    shared = [window[a:b] in vocabulary for a, b in spans]
    width = min(len(quote_words), len(spans))
    if not any(shared):
        return None
    running = sum(shared[:width])
    scores = [running]
    for start in range(1, len(spans) - width + 1):
        running += shared[start + width - 1] - shared[start - 1]
        scores.append(running)
    anchors: list[int] = []
    for start in sorted(range(len(scores)), key=lambda i: (-scores[i], i)):
        if scores[start] == 0 or len(anchors) == ANCHORS:
            break
        if all(abs(start - other) >= max(1, width // 2) for other in anchors):
            anchors.append(start)
    best: tuple[int, int, float] | None = None
    for first in anchors:
        start, end = spans[first][0], spans[first + width - 1][1]
        ratio = similarity(wanted, window[start:end], max(floor, best[2] if best else 0.0))
        if ratio and (best is None or ratio > best[2]):
            best = (start, end, ratio)
    return best


def similarity(a: str, b: str, floor: float = 0.0) -> float:
    """2·LCS(a, b) / (len(a) + len(b)), from 0 to 1; 0 when it is below `floor`.

    The longest common subsequence of characters, by a bit-parallel algorithm (RapidFuzz's
    Indel distance): difflib's ratio, which approximates it, took seconds for a few long
    quotes.
    """
    return float(Indel.normalized_similarity(a, b, score_cutoff=floor))


def word_diff(old: str, new: str) -> str:
    """A word-level diff of two texts, written like `git diff --word-diff=plain`.

    Words are compared normalized (a hyphen inside a word or a ligature is no change) and the
    new text's words are shown as it spells them.
    """
    a, b = old.split(" "), new.split(" ")
    keys_a, keys_b = [normalize(w) for w in a], [normalize(w) for w in b]
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(" ".join(b[j1:j2]))
            continue
        if i2 > i1:
            out.append("[-" + " ".join(a[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)
