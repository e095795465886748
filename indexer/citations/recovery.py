"""Recovery: when a citation breaks, find where its words went, and record the attempt.

`recover()` turns one verdict into a `RecoveryAttempt`: the steps tried and one outcome
(relocated / suggested / not_found / needs_human) with an explicit detail saying whether
the cited text shifted, moved, changed or was removed (docs/recovery.md). The search
itself is `quote_search.QuoteSearcher`; `Recoverer` adds the discovery providers, asked
only when the words stand nowhere exactly at the target. Attempts can be appended to a
JSON-lines audit log (`write_attempts`).

Only exact answers are ever applicable (`RecoveryAttempt.applicable`): a shift found by
git's diff always, an exact move only when the user accepts moves; fuzzy never.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from indexer.citations.discovery import (
    DiscoveryProvider,
    DiscoveryRequest,
    DiscoveryResult,
    LocalIndexProvider,
    ProviderFailure,
    load_providers,
    run_providers,
)
from indexer.citations.drift import Verdict
from indexer.citations.quote import match_spans
from indexer.citations.quote_search import QuoteSearcher, QuoteSearchResult
from indexer.citations.resolve import Resolved, Resolver
from indexer.citations.verdicts import AppliedBy, Detail, Outcome, QuoteStatus, VerdictStatus
from indexer.config import Config
from indexer.errors import PinciteError, UsageError
from indexer.shapes import RecoveryJson
from indexer.text.citation import Citation
from indexer.text.model import Span
from indexer.text.normalize import normalize, normalize_for_match

_HOW_TO_APPLY = {Detail.SHIFTED: "`check --fix` applies it", Detail.MOVED: "`check --fix --accept-moved` applies it"}


@dataclass(frozen=True)
class RecoveryAttempt:
    """One recovery attempt, as written to the audit log."""

    citation: Citation
    target: str
    outcome: Outcome
    detail: Detail
    steps: tuple[str, ...]
    new_citation: Citation | None = None
    search: QuoteSearchResult | None = None
    discovery: DiscoveryResult | None = None
    applied: bool = False
    applied_by: AppliedBy | None = None
    unresolved: bool = False  # the citation itself does not resolve (for the summary; the verdict says why)
    # The run's budget of deep searches was spent: the words were searched in the cited document only
    # (no near matches, no history, no discovery); `pincite verify` of the citation searches fully.
    not_searched_further: bool = False
    at: str = field(default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))

    def __post_init__(self) -> None:
        if self.outcome not in set(Outcome):  # a caller mypy does not see may pass any string
            raise ValueError(f"unknown recovery outcome {self.outcome!r}")

    @property
    def moved(self) -> bool:
        """The cited text stands, exactly, somewhere else at the target."""
        return self.outcome == Outcome.RELOCATED and self.detail == Detail.MOVED

    def applicable(self, *, accept_moved: bool) -> bool:
        """May `check --fix` rewrite this citation? Exact relocations yes; moves only when accepted."""
        if self.outcome != Outcome.RELOCATED or self.new_citation is None:
            return False
        return self.detail == Detail.SHIFTED or (accept_moved and self.detail == Detail.MOVED)

    def mark_applied(self, by: AppliedBy) -> RecoveryAttempt:
        return replace(self, applied=True, applied_by=by)

    def with_discovery(self, result: DiscoveryResult) -> RecoveryAttempt:
        return replace(self, discovery=result)

    def summary(self) -> str:
        """One line for people: what happened to the cited text and what to do."""
        search = self.search
        if self.new_citation is not None:
            how = "applied" if self.applied else _HOW_TO_APPLY[self.detail]
            return f"recovery: {self.detail} -> {self.new_citation.text_form()} ({how})"
        parts = [f"recovery: {self._in_words()}"]
        if self.not_searched_further:
            parts.append(f"not searched further (the run's deep searches are spent): {self.full_search_hint()}")
        if self.detail == Detail.OTHER_DOCUMENT:
            parts.append(f"{self.citation.path} still exists, so it is not re-pinned to another document")
        if search and search.places:
            listed = ", ".join(c.text_form() for c in search.places[:3])
            parts.append(f"{len(search.places)} exact place(s), a person decides: {listed}")
        if search and search.near:
            best = search.near[0]
            parts.append(f"nearest ({best.similarity:.0%} similar, not verified): {best.citation.text_form()}")
            parts.append(f"diff: {best.word_diff}")
        if search and search.last_seen:
            seen = search.last_seen
            parts.append(
                f"last stood at {seen.last_commit[:12]}; {seen.change} by {seen.removed_by[:12]} {seen.subject!r}"
            )
        if self.discovery and self.discovery.candidates:
            parts.append(f"{len(self.discovery.candidates)} discovery suggestion(s)")
        return "; ".join(parts)

    def full_search_hint(self) -> str:
        """The command that searches this citation's words fully (the corpus, near matches, history)."""
        return f"run `pincite verify {self.citation.text_form()}` for a full search"

    def _in_words(self) -> str:
        """The detail as a writer reads it (the JSON keeps the documented value, docs/json.md):
        "removed" would read as if the words were deleted from the document, "no_quote" says nothing."""
        if self.detail == Detail.REMOVED:
            words = "the quoted words stand" if self.citation.quote else "the cited text stands"
            search = self.search
            where = f"in {search.scope}" if search and search.scope else "in the corpus"
            near = ", not even nearly" if search and search.near_searched else " (near matches were not searched)"
            return f"{words} nowhere {where} at {self.target[:12]}{near}"
        if self.detail == Detail.NO_QUOTE:
            if self.unresolved:
                return "nothing to recover: without a quote, a span that does not resolve holds no words to search for"
            return "nothing to recover: the span holds no text and there is no quote to search for"
        return str(self.detail)

    def to_json(self) -> RecoveryJson:
        return {
            "at": self.at,
            "citation": self.citation.text_form(),
            "quote": self.citation.quote,
            "target_commit": self.target,
            "steps": list(self.steps),
            "outcome": self.outcome,
            "detail": self.detail,
            "new_citation": self.new_citation.text_form() if self.new_citation else None,
            "applied": self.applied,
            "applied_by": self.applied_by,
            "not_searched_further": self.not_searched_further,
            "search": self.search.to_json() if self.search else None,
            "discovery": self.discovery.to_json() if self.discovery else None,
        }


DEEP_SEARCH_BUDGET = 5  # drifted citations and failed quotes per `check` run searched for everywhere
# Of them, citations whose quote failed: a fabricated quote's deep search (near matches in the corpus,
# its history) costs what checking some twenty true quotes does, and a draft full of them must not
# cost a CI run more than one of true quotes. The first is searched deeply (its near matches show
# what such a quote resembles); the others are searched in their document, and say so.
FAILED_QUOTE_DEEP_SEARCHES = 1


# -- recovery of one citation --------------------------------------------------------
class Recoverer:
    """Recovery attempts for the citations of one run, with the discovery providers."""

    def __init__(
        self,
        resolver: Resolver,
        providers: Sequence[DiscoveryProvider] = (),
        failures: Sequence[ProviderFailure] = (),
        *,
        deep_search_budget: int | None = None,
        failed_quote_searches: int | None = None,
    ) -> None:
        self.resolver = resolver
        self.searcher = QuoteSearcher(resolver)
        self.providers = providers
        self.failures = tuple(failures)
        self._installed_for: Config | None = None  # installed providers still to look up, for this configuration
        self.deep_search_budget = deep_search_budget  # None: no bound
        self.failed_quote_searches = failed_quote_searches  # None: only the budget's bound
        self.deep_left = deep_search_budget
        self.failed_left = failed_quote_searches

    @classmethod
    def with_providers(
        cls, resolver: Resolver, *, deep_search_budget: int | None = None, failed_quote_searches: int | None = None
    ) -> Recoverer:
        """A recoverer with the shipped local provider and every installed `pincite.discovery` one, looked
        up when a recovery first asks them.

        `deep_search_budget` bounds the drifted citations, and the citations whose quote failed,
        whose words are searched for in the whole corpus and its history (near matches, where they
        were last seen, discovery providers) while their document still stands, and
        `failed_quote_searches` how many of them may be failed quotes; past either, the words are
        searched in that document only, and the attempt says it was not searched further
        (`RecoveryAttempt.not_searched_further`). The verdict already shows what the cited lines
        hold now and which commit changed them, the quote check already said the quote stands
        nowhere, and a deep search costs more than checking many citations: a draft full of
        fabricated quotes must not cost more to check than a true one. `check` sets both
        (DEEP_SEARCH_BUDGET, FAILED_QUOTE_DEEP_SEARCHES); `verify` and `locate` search every one deeply.
        """
        recoverer = cls(resolver, deep_search_budget=deep_search_budget, failed_quote_searches=failed_quote_searches)
        recoverer._installed_for = resolver.config
        return recoverer

    def _deep(self, verdict: Verdict, quote_status: QuoteStatus | None) -> bool:
        bounded = verdict.status == VerdictStatus.DRIFTED or quote_status == QuoteStatus.FAILED
        if self.deep_left is None or not bounded or verdict.new_path is None:
            return True
        if quote_status == QuoteStatus.FAILED and self.failed_left is not None:
            if self.failed_left <= 0:
                return False
            self.failed_left -= 1
        self.deep_left -= 1
        return self.deep_left >= 0

    @classmethod
    def local(cls, resolver: Resolver) -> Recoverer:
        """A recoverer with the shipped local provider alone: no installed plugin runs, none reaches a network."""
        return cls(resolver, [LocalIndexProvider(resolver.config)] if resolver.config.discovery_indexes else [])

    def attempt(
        self, verdict: Verdict, quote: str | None = None, quote_status: QuoteStatus | None = None
    ) -> RecoveryAttempt | None:
        """The recovery attempt for one verdict, or None when the citation holds as written.

        Discovery providers are asked only when the quote stands nowhere exactly at the target.
        """
        attempt = recover(
            verdict, self.searcher, quote=quote, quote_status=quote_status, deep=self._deep(verdict, quote_status)
        )
        if attempt is None or attempt.search is None or attempt.search.places:
            return attempt
        discovery = self.discover(attempt.search.quote, attempt.citation)
        return attempt if discovery is None else attempt.with_discovery(discovery)

    def discover(self, quote: str, citation: Citation | None) -> DiscoveryResult | None:
        """What the discovery providers suggest for `quote`; None when there are none to ask."""
        if self._installed_for is not None:
            # Looked up when first asked: finding installed plugins reads every installed package's
            # metadata (tens of milliseconds), which a check whose citations all hold never needs.
            providers, failures = load_providers(self._installed_for)
            self.providers, self.failures, self._installed_for = providers, tuple(failures), None
        if not self.providers and not self.failures:
            return None
        request = DiscoveryRequest(quote, citation, self.resolver.repo.root, self.resolver.config)
        found = run_providers(request, self.providers)
        return DiscoveryResult(found.candidates, self.failures + found.failures)


def recover(
    verdict: Verdict,
    searcher: QuoteSearcher,
    *,
    quote: str | None = None,
    quote_status: QuoteStatus | None = None,
    deep: bool = True,
) -> RecoveryAttempt | None:
    """One recovery attempt for a citation that does not hold at the verdict's target as written.

    None when there is nothing to recover: verified in place, its quote (if any) matched.
    A verified citation whose lines shifted is the "relocated / shifted" outcome (an exact
    relocation by git's diff); otherwise the search key is the quote, or else the text the
    span held at its pinned commit.
    """
    citation = verdict.resolved.citation if verdict.resolved else verdict.citation
    citation = replace(citation, quote=quote) if quote else citation
    target = verdict.target_commit
    if target is None:
        return None
    if verdict.status == VerdictStatus.VERIFIED and quote_status in (None, QuoteStatus.MATCHED):
        relocated = verdict.relocated
        if relocated is None or (relocated.path, relocated.selector) == (citation.path, citation.selector):
            return None
        shifted = ("git diff relocation: the cited text is unchanged, its lines moved",)
        return RecoveryAttempt(citation, target, Outcome.RELOCATED, Detail.SHIFTED, shifted, relocated)
    pinned_text = verdict.resolved.text if verdict.resolved else None
    key = quote if quote and normalize(quote) else pinned_text
    if key is None or not normalize(key):
        return RecoveryAttempt(
            citation,
            target,
            Outcome.NEEDS_HUMAN,
            Detail.NO_QUOTE,
            ("no quote and no pinned text to search",),
            unresolved=verdict.status == VerdictStatus.UNRESOLVABLE,
        )
    first = "search key: the citation's quote" if key is quote else "search key: the text of the pinned span"
    if not deep and verdict.status != VerdictStatus.UNRESOLVABLE and verdict.new_path is not None:
        return _recover_in_document(verdict, searcher, citation, key, first, quote, quote_status)
    found = searcher.search(key, target, cited_path=citation.path, pinned=citation.commit, unit=citation.unit)
    steps: tuple[str, ...] = (first, *found.steps)
    candidates, step = _candidates(found.places, verdict.new_path)
    steps += (step,) if step else ()
    if verdict.status == VerdictStatus.UNRESOLVABLE or verdict.resolved is None:
        detail = _detail(candidates, found)
        steps += ("the citation itself is unresolvable: a person decides",)
        return RecoveryAttempt(citation, target, Outcome.NEEDS_HUMAN, detail, steps, None, found)
    # A place counts as the move only when the citation re-pinned there keeps its shape and holds
    # exactly the cited text: "# Motivation" found inside "## Motivation" is not a move, and
    # neither is a place whose lines drop the cited range's leading or trailing blank line.
    moves = tuple(m for m in (same_shape(searcher.resolver, verdict.resolved, c, key) for c in candidates) if m)
    if len(moves) < len(candidates):
        steps += (
            f"{len(candidates) - len(moves)} place(s) set aside: re-pinned to as many lines as the citation, "
            "they do not hold exactly the cited text",
        )
    detail = _detail(moves, found, set_aside=len(candidates) - len(moves))
    if detail == Detail.MOVED:
        new = replace(moves[0], quote=quote)
        return RecoveryAttempt(citation, target, Outcome.RELOCATED, detail, steps, new, found)
    outcome = Outcome.SUGGESTED if detail == Detail.CHANGED and found.near else Outcome.NEEDS_HUMAN
    if detail == Detail.REMOVED:
        outcome = Outcome.NOT_FOUND
    return RecoveryAttempt(citation, target, outcome, detail, steps, None, found)


def _detail(moves: tuple[Citation, ...], found: QuoteSearchResult, *, set_aside: int = 0) -> Detail:
    """What happened to the cited text, by the places that are a move and those set aside.

    Places set aside (the words stand, but inside lines that hold more, or fewer lines) mean the
    cited text itself was edited: changed, never "other document" when they are in the cited one.
    """
    if moves:
        return Detail.MOVED if len(moves) == 1 else Detail.AMBIGUOUS
    if set_aside:
        return Detail.CHANGED
    if found.places:
        return Detail.OTHER_DOCUMENT
    return Detail.CHANGED if found.near else Detail.REMOVED


def _recover_in_document(
    verdict: Verdict,
    searcher: QuoteSearcher,
    citation: Citation,
    key: str,
    first: str,
    quote: str | None,
    quote_status: QuoteStatus | None = None,
) -> RecoveryAttempt:
    """A drifted citation, or one whose quote failed, whose document stands: its words searched there only.

    When they stand nowhere there, the attempt says it was not searched further (a deep search
    would have gone on to the corpus, near matches and history); a place found in the document is
    what a deep search would have answered too."""
    assert verdict.target_commit is not None and verdict.new_path is not None
    target, path = verdict.target_commit, verdict.new_path
    resolved = verdict.resolved
    if (
        quote_status == QuoteStatus.FAILED
        and resolved is not None
        and (resolved.commit, resolved.path) == (target, path)
    ):
        places: tuple[Citation, ...] = ()  # the quote check compared this very document, whole: no place
    else:
        places = searcher.exact_in(key, target, path, citation.unit)
    searched = f"exact search in {path}, the cited document at the target: {len(places)} place(s)"
    budget = "the run's budget of deep searches for drifted citations and failed quotes is spent"
    steps: tuple[str, ...] = (first, budget, searched)
    found = QuoteSearchResult(key, target, places, (), None, (searched,), scope=path)
    moves = tuple(m for m in (same_shape(searcher.resolver, resolved, p, key) for p in places) if m) if resolved else ()
    if len(moves) < len(places):
        steps += (f"{len(places) - len(moves)} place(s) set aside: they do not hold exactly the cited text",)
    if len(moves) == 1:
        return RecoveryAttempt(
            citation, target, Outcome.RELOCATED, Detail.MOVED, steps, replace(moves[0], quote=quote), found
        )
    if moves:
        return RecoveryAttempt(citation, target, Outcome.NEEDS_HUMAN, Detail.AMBIGUOUS, steps, None, found)
    if places:
        steps += ("the words stand only inside lines that hold more: the cited text changed; a person decides",)
        return RecoveryAttempt(citation, target, Outcome.NEEDS_HUMAN, Detail.CHANGED, steps, None, found)
    deeper = "`pincite locate` searches the whole corpus and the history for the words"
    outcome, detail = Outcome.NOT_FOUND, Detail.REMOVED
    if verdict.status == VerdictStatus.VERIFIED:  # the cited lines stand; the quote is not in them
        steps += (f"the quote stands nowhere in {path}, and near matches were not searched; {deeper}",)
    elif verdict.nearest is None:  # git's diff removed every cited line
        steps += (f"the cited lines were removed from {path} by {_changer(verdict)}; {deeper}",)
    else:
        steps += (
            f"the cited lines changed in place ({_changer(verdict)}): the verdict shows what they hold now; {deeper}",
        )
        outcome, detail = Outcome.SUGGESTED, Detail.CHANGED
    # The words stand nowhere in the document: a deep search would have gone on, and this says it did not.
    return RecoveryAttempt(citation, target, outcome, detail, steps, None, found, not_searched_further=True)


def _changer(verdict: Verdict) -> str:
    changed = verdict.changed_by
    return f"commit {changed.sha[:12]}" if changed else "a commit before the target"


def same_shape(resolver: Resolver, cited: Resolved, place: Citation, key: str) -> Citation | None:
    """`place` (where the words `key` stand at the target) as the cited span re-pinned, or None.

    The words stand at some lines of the cited span (the quote may be a part of it, and its
    leading and trailing blank lines are no words). The re-pinned citation keeps as many lines
    before and after the words as the cited span had, so it names as many lines; it is a move
    only when its text is exactly the cited text (normalized). A citation in characters is a
    move only when the place holds exactly the cited text. `check --fix` never narrows.
    """
    wanted = normalize(key)
    normalized, offsets = normalize_for_match(cited.text)
    match = next(match_spans(wanted, normalized, offsets, cited.text), None) if wanted else None
    if match is None:
        return None  # the words are not in the cited span (a quote from elsewhere): no shape to keep
    if place.lines is None or cited.citation.lines is None:
        return place if _text_of(resolver, place) == normalize(cited.text) else None
    index = cited.line_index
    words = index.lines_of_span(Span(cited.span.start + match.start, cited.span.start + match.end))
    first, last = cited.lines
    before, after = words[0] - first, last - words[1]
    if place.lines[1] - place.lines[0] != words[1] - words[0] or place.lines[0] - before < 1:
        return None  # the words stand over another number of lines: the shape is not kept
    moved = replace(place, lines=(place.lines[0] - before, place.lines[1] + after))
    return moved if _text_of(resolver, moved) == normalize(cited.text) else None


def _text_of(resolver: Resolver, place: Citation) -> str | None:
    """The normalized text a citation names, or None when it does not resolve (past the end, say)."""
    try:
        return normalize(resolver.resolve(place).text)
    except PinciteError:
        return None


def _candidates(places: tuple[Citation, ...], followed_path: str | None) -> tuple[tuple[Citation, ...], str | None]:
    """The places a citation may be re-pinned to, and the step that says which were set aside.

    While the cited document still exists at the target (`followed_path`, renames followed),
    only places inside it count: the same words in another document (a template sentence, a
    shared disclaimer) are not where the citation went. Once it is gone, every place counts.
    """
    if followed_path is None:
        return places, None
    own = tuple(p for p in places if p.path == followed_path)
    others = len(places) - len(own)
    if not others:
        return own, None
    return own, f"{others} place(s) in other documents set aside: {followed_path} still exists at the target"


def write_attempts(path: Path, attempts: Sequence[RecoveryAttempt]) -> None:
    """Append the attempts to a JSON-lines audit log (one object per line)."""
    lines = "".join(json.dumps(a.to_json(), ensure_ascii=False, sort_keys=True) + "\n" for a in attempts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(lines)
    except OSError as exc:
        raise UsageError(
            f"{path}: cannot write the recovery log ({exc.strerror or exc})",
            hint="give --recovery-log a file in a folder you can write to",
        ) from exc


def read_attempts(path: Path) -> list[dict[str, object]]:
    """The records of an audit log, oldest first."""
    records: list[dict[str, object]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            records.append(json.loads(line))
    return records
