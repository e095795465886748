"""The tools an agent cites through, without the protocol: what `pincite mcp` serves, as methods.

`AgentTools(repo)` holds one repository open read-only, with warm caches (a `Resolver`
and a `Recoverer`), and answers one call at a time:

    search(query)            passages with their exact text and citations
    cite(path, quote=...)    a citation of the one place a quote stands (or every candidate)
    resolve(citation)        exactly the text a citation pins, with context
    verify(citations)        verified / drifted / unresolvable, relocations, the changing commit
    check_answer(draft)      every citation of a draft and its quote: matched / wrong_ref / failed
    locate(quote)            where a quote stands now, and which commit moved or changed it
    build()                  index a commit (only when the server was started with --allow-build)

Each method is a library call (`indexer.api`) plus the agent's rules: every place in the
corpus is returned as the citation *and* the exact text it pins (agent_shapes.CitedText),
arguments are bounded (a huge draft, limit or quote is a `UsageError`, as the CLI raises for
its bad options), and nothing is written: the repository is opened read-only, recovery runs
the shipped provider only (no plugin, so no network), and only `build` writes the index.

The caches are dropped when HEAD moves, when the index file is replaced, after a call
that fails unexpectedly, and every `RECYCLE_AFTER` calls, so a long-running server answers
for the current commit and its memory stays flat. Parameters carry pydantic `Field`
descriptions and their bounds (as schema keywords only: the checks are this module's, so a
client gets the CLI's message, naming the argument), which the MCP server turns into each
tool's input schema; pydantic and
typing_extensions come with the `mcp` extra.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from indexer import api
from indexer.citations.check import CheckRecord
from indexer.citations.quote import AmbiguousQuote
from indexer.citations.recovery import Recoverer
from indexer.citations.resolve import Resolver
from indexer.citations.scan import scan
from indexer.citations.verdicts import CiteOutcome, Detail, QuoteStatus, Severity
from indexer.config import Config, load_config
from indexer.errors import PinciteError, UsageError
from indexer.index.search import MAX_LIMIT
from indexer.integrations import agent_shapes as shapes
from indexer.shapes import CitationFound, PassageHit, view
from indexer.text.citation import Citation, permalink
from indexer.vcs.repo import GitRepo, safe_repo_path

MAX_QUERY_CHARS = 1_000
MAX_QUOTE_CHARS = 2_000  # a quote is checked exactly; a longer one that fails makes recovery slow
MAX_DRAFT_BYTES = 1_000_000
MAX_CITATIONS = 500  # per verify call, and per draft
MAX_CANDIDATES = 20  # places listed for an ambiguous or relocated quote
RECYCLE_AFTER = 500  # calls served by one set of caches

Rev = Annotated[str, Field(description="A git revision: a commit SHA (abbreviations accepted), branch or tag.")]


@dataclass
class _Warm:
    """One repository handle and the caches built on it, valid for one HEAD and one index file."""

    repo: GitRepo
    config: Config
    index_path: Path
    resolver: Resolver
    recoverer: Recoverer
    key: tuple[object, ...]
    calls: int = 0

    def close(self) -> None:
        self.resolver.close()
        self.repo.close()


class AgentTools:
    """The agent interface of one corpus repository. Thread-safe: calls are served one at a time."""

    def __init__(self, repo: Path | str = ".", *, index_path: Path | str | None = None, allow_build: bool = False):
        probe = GitRepo(repo)  # fails now, with the CLI's message, when `repo` is not a repository
        self.root = probe.root
        probe.close()
        self.index_override = Path(index_path) if index_path else None
        self.allow_build = allow_build
        self._lock = threading.Lock()
        self._warm_state: _Warm | None = None

    # -- state -----------------------------------------------------------------------
    @contextmanager
    def _warm(self) -> Iterator[_Warm]:
        with self._lock:
            state = self._warm_state
            if state is not None and (
                state.calls >= RECYCLE_AFTER or state.key != self._key(state.repo, state.index_path)
            ):
                state.close()
                state = self._warm_state = None
            if state is None:
                state = self._warm_state = self._open()
            state.calls += 1
            try:
                yield state
            except PinciteError:
                raise  # a bad argument or an unresolvable input: the caches are sound
            except BaseException:
                state.close()  # anything else may have left a git process or a cache half-done
                self._warm_state = None
                raise

    def _open(self) -> _Warm:
        repo = GitRepo(self.root, read_only=True)
        config = load_config(repo.root)
        index_path = self.index_override or repo.root / config.index_path
        resolver = Resolver(repo, config, index_path)
        return _Warm(repo, config, index_path, resolver, Recoverer.local(resolver), self._key(repo, index_path))

    @staticmethod
    def _key(repo: GitRepo, index_path: Path) -> tuple[object, ...]:
        try:
            stat = index_path.stat()
            index: tuple[int, int, int] | None = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except OSError:
            index = None
        return (repo.head(), index)

    def close(self) -> None:
        with self._lock:
            if self._warm_state is not None:
                self._warm_state.close()
                self._warm_state = None

    # -- tools -------------------------------------------------------------------------
    def search(
        self,
        query: Annotated[
            str,
            Field(
                description="Words to find (all required), as a person would type them.",
                json_schema_extra={"maxLength": MAX_QUERY_CHARS},
            ),
        ],
        path_prefix: Annotated[
            str | None, Field(description="Only documents whose path starts with this, e.g. 'corpus/policies/'.")
        ] = None,
        limit: Annotated[
            int,
            Field(
                description="Most passages to return (1-1000).", json_schema_extra={"minimum": 1, "maximum": MAX_LIMIT}
            ),
        ] = 10,
        commit: Annotated[str | None, Field(description="A built commit to search (default: the newest).")] = None,
    ) -> shapes.SearchResult:
        """Find passages of the corpus, ranked by bm25. Each hit carries `citation` (copy it as it is) and `text`,
        exactly the words that citation pins: quote from `text`, never from memory."""
        _bounded("query", query, MAX_QUERY_CHARS)
        with self._warm() as warm:
            hits = api.search(
                query, warm.repo.root, rev=commit, limit=limit, path_prefix=path_prefix, index_path=warm.index_path
            )
            site = warm.config.site_url
            found: list[shapes.SearchHit] = []
            for hit in hits:
                blob = warm.resolver.entry(hit.commit, hit.path).sha if site else ""
                found.append(
                    {
                        **view(hit.to_json(), PassageHit),  # the fields the CLI's hit has too, computed there
                        "citation": hit.char_citation.text_form(),
                        "text": hit.passage.text,
                        "permalink": permalink(hit.char_citation, site, blob) if site else None,
                    }
                )
            searched = hits[0].commit if hits else self._searched_commit(warm, commit)
            return {"commit": searched, "hits": found}

    @staticmethod
    def _searched_commit(warm: _Warm, commit: str | None) -> str:
        if commit is not None:
            return warm.resolver.commit(commit)
        reader = warm.resolver.index()
        return reader.commit_at(reader.head_seq()) if reader is not None else ""

    def cite(
        self,
        path: Annotated[str, Field(description="The document's path in the repository, e.g. 'corpus/handbook.md'.")],
        quote: Annotated[
            str | None,
            Field(
                description="Cite the one place these words stand (whitespace, quotes, dashes, ligatures and "
                "hyphens inside words folded)."
            ),
        ] = None,
        lines: Annotated[
            str | None, Field(description="Or cite lines 'A-B' (1-based, inclusive), e.g. '12-18'.")
        ] = None,
        chars: Annotated[
            str | None, Field(description="Or cite code points 'A-B' (0-based, end exclusive), e.g. '120-340'.")
        ] = None,
        commit: Rev = "HEAD",
        unit: Annotated[
            Literal["lines", "chars", "linecol"] | None,
            Field(description="Write the span as lines, chars or line:column (default: as given; chars for a quote)."),
        ] = None,
    ) -> shapes.CiteResult:
        """Pin a citation to a commit: by the words it quotes (best), or by lines or characters. Returns the citation,
        its permalink and the exact text. A quote that stands at several places returns status 'ambiguous' and every
        candidate: quote more words, or pick one candidate's citation."""
        if quote is not None:
            _bounded("quote", quote, MAX_QUOTE_CHARS)
        line_range, char_range = api.parse_range(lines, "--lines"), api.parse_range(chars, "--chars")
        with self._warm() as warm:
            try:
                cited = api.cite(
                    path, lines=line_range, chars=char_range, quote=quote, rev=commit, unit=unit, resolver=warm.resolver
                )
            except AmbiguousQuote as exc:
                places = [self._cited(warm, c) for c in exc.candidates[:MAX_CANDIDATES]]
                return {
                    "status": CiteOutcome.AMBIGUOUS,
                    "cited": None,
                    "candidates": places,
                    "count": len(exc.candidates),
                    "message": str(exc),
                }
            return {
                "status": CiteOutcome.CITED,
                "cited": shapes.cited_out(cited),
                "candidates": [],
                "count": 1,
                "message": "",
            }

    def resolve(
        self,
        citation: Annotated[str, Field(description="A text form (PATH@SHA#L12-L18, #c120-340) or a permalink.")],
        context: Annotated[int, Field(description="Also return this many whole lines before and after.")] = 0,
    ) -> shapes.ResolveResult:
        """Exactly the text a citation pins, read from git objects at its commit, with lines of context around."""
        if context < 0:
            raise UsageError(f"--context must be at least 0 (got {context})")
        with self._warm() as warm:
            found = api.resolve(citation, context=context, resolver=warm.resolver)
            return shapes.resolved_out(found, warm.config.site_url)

    def verify(
        self,
        citations: Annotated[
            list[str],
            Field(
                description="Citations: text forms or permalinks (at most 500).",
                json_schema_extra={"maxItems": MAX_CITATIONS},
            ),
        ],
        against: Annotated[str, Field(description="The commit to verify against (any git revision).")] = "HEAD",
    ) -> shapes.VerifyResult:
        """Whether each citation still holds at `against`: verified (the text is identical; `relocated` says where it
        stands now), drifted (git's diff touched it: the hunks, the nearest text, `changed_by` the commit that changed
        it, and recovery's suggestion) or unresolvable (with the reason)."""
        if len(citations) > MAX_CITATIONS:
            raise UsageError(f"verify takes at most {MAX_CITATIONS} citations (got {len(citations)})")
        with self._warm() as warm:
            checked = api.verify(citations, against=against, resolver=warm.resolver, recoverer=warm.recoverer)
            target = warm.resolver.commit(against)
            results: list[shapes.VerifyItem] = []
            for raw, one in zip(citations, checked, strict=True):
                verdict = one.verdict
                attempt = one.recovery
                new = self._maybe_cited(warm, attempt.new_citation if attempt else None)
                results.append(
                    {
                        "citation": raw,
                        "status": verdict.status,
                        "reason": verdict.reason,
                        "hint": verdict.hint,
                        "cited_text": verdict.resolved.text if verdict.resolved else None,
                        "relocated": self._maybe_cited(warm, verdict.relocated),
                        "new_path": verdict.new_path,
                        "changed_by": shapes.changed_by(verdict),
                        "hunks": shapes.hunks_out(verdict.hunks),
                        "nearest": verdict.nearest,
                        "recovery": shapes.recovery_out(attempt, new),
                        "snapshot": shapes.snapshot_out(one.snapshot),
                    }
                )
            return {"target_commit": target, "results": results}

    def check_answer(
        self,
        draft: Annotated[
            str,
            Field(
                description="The answer in Markdown or plain text, each quote followed by its citation (at most 1 MB)."
            ),
        ],
        against: Annotated[str, Field(description="The commit to check against (any git revision).")] = "HEAD",
    ) -> shapes.AnswerCheck:
        """Check a draft answer before it is shown: for each citation, its verdict and its quote's (matched: the words
        stand in the cited span; wrong_ref: they stand elsewhere, see `corrected`; failed: they stand nowhere, a
        fabrication; unverifiable: the citation does not resolve). `ok` is true only when every citation is verified
        and every quote matched. Fix what is not, then check again."""
        size = len(draft.encode("utf-8", errors="surrogatepass"))
        if size > MAX_DRAFT_BYTES:
            raise UsageError(
                f"the draft is {size:,} bytes; check_answer reads at most {MAX_DRAFT_BYTES:,}",
                hint="check the answer in parts, or save it to a file and run `pincite check FILE`",
            )
        found = scan(draft)
        if len(found) > MAX_CITATIONS:
            raise UsageError(f"the draft holds {len(found)} citations; check_answer checks at most {MAX_CITATIONS}")
        for one in found:
            if one.quote is not None and len(one.quote) > MAX_QUOTE_CHARS:
                raise UsageError(
                    f"the quote of the citation on line {one.line} is {len(one.quote):,} characters; "
                    f"check_answer checks quotes of at most {MAX_QUOTE_CHARS:,}",
                    hint="quote the words that matter, not the whole passage",
                )
        with self._warm() as warm:
            report = api.check_text(
                draft, against=against, name="draft", resolver=warm.resolver, recoverer=warm.recoverer
            )
            items = [self._answer_item(warm, record) for record in report.records]
            notes = [] if items else ["the draft holds no citation pincite recognises: nothing was checked"]
            return {
                "target_commit": report.target_commit,
                "ok": all(item["severity"] == Severity.OK for item in items),
                "summary": report.summary(),
                "citations": items,
                "notes": notes,
            }

    def locate(
        self,
        quote: Annotated[
            str,
            Field(description="The words to find (whitespace, quotes, dashes, ligatures, hyphens in words folded)."),
        ],
        path: Annotated[
            str | None, Field(description="Where the quote was cited, to learn when it left that path.")
        ] = None,
        since: Annotated[str | None, Field(description="The commit it was cited at (with `path`).")] = None,
        against: Annotated[str, Field(description="Where to look (any git revision).")] = "HEAD",
    ) -> shapes.LocateResult:
        """Where a quote stands at `against` (each place as a citation with its exact text); when it stands nowhere,
        near matches (suggestions, never verified) and, with `path`, the commit that last held it and the commit
        that moved or changed it."""
        _bounded("quote", quote, MAX_QUOTE_CHARS)
        with self._warm() as warm:
            located = api.locate(
                quote, against=against, path=path, since=since, resolver=warm.resolver, recoverer=warm.recoverer
            )
            found = located.search
            discovery = located.discovery
            return {
                "quote": quote,
                "target_commit": found.target,
                "found": located.found,
                "places": [self._cited(warm, c) for c in found.places[:MAX_CANDIDATES]],
                "near": [shapes.near_out(n) for n in found.near],
                "last_seen": shapes.last_seen_out(found.last_seen),
                "discovery": [c.to_json() for c in discovery.candidates] if discovery else [],
                "steps": list(found.steps),
            }

    def build(self, rev: Rev = "HEAD") -> shapes.BuildResult:
        """Index commit `rev` of the corpus (history included; no site), so search and quote checks see it."""
        if not self.allow_build:
            raise UsageError("building is off in this server", hint="start it with `pincite mcp --allow-build`")
        with self._lock:
            summary = api.build(self.root, rev, index_path=self.index_override, site=False)
            if self._warm_state is not None:
                self._warm_state.close()
                self._warm_state = None
        return shapes.build_out(summary)

    # -- documents (the MCP resources) ---------------------------------------------------
    def documents(self) -> tuple[str, list[str]]:
        """The indexed commit and its documents' paths (empty before the first build)."""
        with self._warm() as warm:
            reader = warm.resolver.index()
            if reader is None:
                return "", []
            seq = reader.head_seq()
            return reader.commit_at(seq), [pv.path for pv in reader.paths_at(seq)]

    def read(self, commit: str, path: str, lines: str | None = None, chars: str | None = None) -> str:
        """A document's text at `commit`, whole, or the span `lines` or `chars` ('A-B') names."""
        line_range, char_range = api.parse_range(lines, "--lines"), api.parse_range(chars, "--chars")
        with self._warm() as warm:
            if line_range is None and char_range is None:
                return warm.resolver.text_at(warm.resolver.commit(commit), safe_repo_path(path)).text
            cited = api.cite(path, lines=line_range, chars=char_range, rev=commit, resolver=warm.resolver)
            return cited.resolved.text

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def _cited(warm: _Warm, citation: Citation) -> shapes.CitedText:
        return shapes.cited_text(warm.resolver.resolve(citation), warm.config.site_url)

    def _maybe_cited(self, warm: _Warm, citation: Citation | None) -> shapes.CitedText | None:
        if citation is None:
            return None
        try:
            return self._cited(warm, citation)
        except PinciteError:
            return None

    def _answer_item(self, warm: _Warm, record: CheckRecord) -> shapes.AnswerCitation:
        verdict, quote = record.verdict, record.quote_verdict
        resolved = verdict.resolved if verdict else None
        recovery = record.recovery
        corrected: shapes.Correction | None = None
        if quote is not None and quote.status == QuoteStatus.WRONG_REF and quote.suggestion is not None:
            corrected = self._correction(warm, quote.suggestion, "the quote stands here, not in the cited span")
        elif recovery is not None and recovery.new_citation is not None:
            why = {
                Detail.SHIFTED: "the cited text is unchanged; its lines moved",
                Detail.MOVED: "the cited text stands, exactly, here at the target",
            }.get(recovery.detail, recovery.detail)
            corrected = self._correction(warm, recovery.new_citation, why)
        elif record.suggestion is not None:
            corrected = self._correction(warm, record.suggestion, "the quote stands here at the target")
        search = recovery.search if recovery else None
        suggestions = [shapes.near_out(n) for n in search.near] if search else []
        parsed = resolved.citation if resolved else record.found.citation
        return {
            **view(record.to_json(), CitationFound),  # as `pincite check --json` has them
            "parsed": parsed.text_form() if parsed else None,
            "reason": record.reason,
            "hint": record.hint,
            "quote_reason": quote.reason if quote else None,
            "cited_text": resolved.text if resolved else None,
            "corrected": corrected,
            "suggestions": suggestions,
            "changed_by": shapes.changed_by(record.verdict),
        }

    def _correction(self, warm: _Warm, citation: Citation, why: str) -> shapes.Correction | None:
        place = self._maybe_cited(warm, citation)
        if place is None:
            return None
        return {
            "citation": place["citation"],
            "text": place["text"],
            "why": why,
            "exact": True,
            "permalink": place["permalink"],
        }


def _bounded(name: str, value: str, most: int) -> None:
    if len(value) > most:
        raise UsageError(f"the {name} is {len(value):,} characters; the most this tool takes is {most:,}")
