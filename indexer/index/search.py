"""`pincite search`: bm25-ranked passages at a built commit, each with its citation."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.config import load_config
from indexer.errors import IndexError_, UsageError
from indexer.index.store import IndexReader, holds_cjk
from indexer.text.citation import Citation, token_for
from indexer.text.passage import Passage
from indexer.vcs.repo import GitRepo

if TYPE_CHECKING:  # the JSON shapes are annotations only: importing them costs a search process time
    from indexer.shapes import SearchHitJson

MAX_LIMIT = 1000  # hits in one answer: a larger limit is a mistake, and would build every snippet
MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"  # snippet() markers; never in user text we show raw
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class SearchHit:
    """One ranked passage of a document at the searched commit, with its snippet."""

    path: str
    commit: str
    passage: Passage
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    identity_token: str | None = None  # a PDF or HTML passage counts this extractor identity's text

    @property
    def citation(self) -> Citation:
        lines = (self.passage.line_start, self.passage.line_end)
        return Citation(self.commit, self.path, lines=lines, identity_token=self.identity_token)

    @property
    def char_citation(self) -> Citation:
        chars = (self.passage.start, self.passage.end)
        return Citation(self.commit, self.path, chars=chars, identity_token=self.identity_token)

    def to_json(self) -> SearchHitJson:
        passage = self.passage
        return {
            "path": self.path,
            "commit": self.commit,
            "chars": [passage.start, passage.end],
            "lines": [passage.line_start, passage.line_end],
            "pages": [passage.page_start, passage.page_end or passage.page_start] if passage.page_start else None,
            "heading": passage.heading,
            "snippet": self.snippet,
            "highlights": [list(h) for h in self.highlights],
            "citation": self.citation.text_form(),
            "citation_chars": self.char_citation.text_form(),
        }


def query_terms(query: str) -> list[str]:
    """The terms of what a person typed: whitespace-separated, each with a word in it."""
    # Control characters (NUL above all) end FTS5 strings early; they are never words.
    printable = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in query)
    terms = [t for t in printable.split() if _WORD.search(t)]
    if not terms:
        raise UsageError(f"search query {query!r} has no words to look for")
    return terms


def plain_query(query: str) -> str:
    """Turn what a person typed into a safe FTS5 query: every word a quoted term, all required."""
    return _fts_phrases(query_terms(query))


def _fts_phrases(terms: list[str]) -> str:
    # A quoted FTS5 string is tokenized like the text, so `don't` becomes the phrase
    # "don t" and operators or stray quotes are just words.
    return " ".join('"' + t.replace('"', '""') + '"' for t in terms)


def search(
    query: str,
    repo_path: Path | str = ".",
    *,
    rev: str | None = None,
    limit: int = 10,
    path_prefix: str | None = None,
    fts_syntax: bool = False,
    index_path: Path | str | None = None,
) -> list[SearchHit]:
    """Ranked passages matching `query` at `rev` (default: the newest built commit)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT} (got {limit})", hint="ask for fewer hits")
    if index_path is not None and rev is None:
        # The index names its own commits: a search of the newest built one (a server's, a script's
        # with --index) reads the index alone, and starts no git process to find the repository.
        target, repo = Path(index_path), None
    else:
        repo = GitRepo(repo_path)
        target = Path(index_path) if index_path else repo.root / load_config(repo.root).index_path
    reader = IndexReader(target)
    try:
        seq = reader.head_seq() if repo is None or rev is None else _indexed_seq(reader, repo, rev)
        commit = reader.commit_at(seq)
        if fts_syntax:
            rows = reader.search_passages(query, seq, limit, path_prefix)
        else:
            terms = query_terms(query)
            cjk = [t for t in terms if holds_cjk(t)]
            if cjk:
                words = [t for t in terms if not holds_cjk(t)]
                matched = reader.search_substrings(cjk, _fts_phrases(words) if words else None, seq, limit, path_prefix)
                tokens = _Tokens(reader)
                return [_hit(path, commit, p, _marked_snippet(p.text, cjk), tokens(vid)) for path, vid, p in matched]
            rows = reader.search_passages(_fts_phrases(terms), seq, limit, path_prefix)
        tokens = _Tokens(reader)
        return [_hit(path, commit, passage, snippet, tokens(vid)) for path, vid, passage, snippet in rows]
    finally:
        reader.close()
        if repo is not None:
            repo.close()


def _indexed_seq(reader: IndexReader, repo: GitRepo, rev: str) -> int:
    sha = repo.resolve_commit(rev)
    seq = reader.commit_seq(sha)
    if seq is None:
        raise IndexError_(
            f"commit {sha[:12]} ({rev}) is not in the index",
            hint=f"build it with `pincite build --rev {rev}` or search the built commit",
        )
    return seq


def _marked_snippet(text: str, substrings: list[str], width: int = 120) -> str:
    """A snippet around the first match with every occurrence marked, like FTS5's snippet()."""
    first = min((text.find(s) for s in substrings if s in text), default=0)
    start = max(0, first - width // 3)
    window = text[start : start + width]
    for sub in sorted(set(substrings), key=len, reverse=True):
        window = window.replace(sub, MARK_OPEN + sub + MARK_CLOSE)
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + width < len(text) else ""
    return prefix + window + suffix


class _Tokens:
    """The identity token a hit's citation names, per version (None for text documents)."""

    def __init__(self, reader: IndexReader) -> None:
        self.reader = reader
        self.known: dict[int, str | None] = {}

    def __call__(self, version_id: int) -> str | None:
        if version_id not in self.known:
            found = self.reader.version_identity(version_id)
            self.known[version_id] = token_for(*found) if found is not None else None
        return self.known[version_id]


def _hit(path: str, commit: str, passage: Passage, raw_snippet: str, token: str | None) -> SearchHit:
    snippet, highlights = _split_marks(raw_snippet)
    return SearchHit(path, commit, passage, snippet, highlights, token)


def _split_marks(raw: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    out: list[str] = []
    highlights: list[tuple[int, int]] = []
    length = 0
    open_at: int | None = None
    for ch in raw:
        if ch == MARK_OPEN:
            open_at = length
        elif ch == MARK_CLOSE and open_at is not None:
            highlights.append((open_at, length))
            open_at = None
        else:
            out.append(ch)
            length += 1
    return "".join(out), tuple(highlights)
