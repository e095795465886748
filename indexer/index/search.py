"""`pincite search`: bm25-ranked passages at a built commit, each with its citation."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from indexer.config import load_config
from indexer.errors import IndexError_, UsageError
from indexer.index.store import IndexReader
from indexer.text.chunk import Passage
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo

MAX_LIMIT = 1000  # hits in one answer: a larger limit is a mistake, and would build every snippet
MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"  # snippet() markers; never in user text we show raw
_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u3000-\u303f\uff66-\uff9f]")


@dataclass(frozen=True)
class SearchHit:
    path: str
    commit: str
    start: int
    end: int
    line_start: int
    line_end: int
    heading: str
    text: str
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    page_start: int | None
    page_end: int | None

    @property
    def citation(self) -> Citation:
        return Citation(self.commit, self.path, lines=(self.line_start, self.line_end))

    @property
    def char_citation(self) -> Citation:
        return Citation(self.commit, self.path, chars=(self.start, self.end))

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "commit": self.commit,
            "span": [self.start, self.end],
            "lines": [self.line_start, self.line_end],
            "pages": [self.page_start, self.page_end] if self.page_start else None,
            "heading": self.heading,
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


def is_cjk_term(term: str) -> bool:
    """Scripts written without spaces, which the word tokenizer cannot split into words."""
    return any(_CJK.match(ch) for ch in term)


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
    if limit < 1:
        raise UsageError(f"--limit must be at least 1 (got {limit})")
    if limit > MAX_LIMIT:
        raise UsageError(f"--limit must be at most {MAX_LIMIT} (got {limit})", hint="narrow the query or --path")
    repo = GitRepo(repo_path)
    target = Path(index_path) if index_path else repo.root / load_config(repo.root).index_path
    reader = IndexReader(target)
    try:
        seq = reader.head_seq() if rev is None else _indexed_seq(reader, repo, rev)
        commit = reader.commit_at(seq)
        if fts_syntax:
            rows = reader.search_passages(query, seq, limit, path_prefix)
        else:
            terms = query_terms(query)
            cjk = [t for t in terms if is_cjk_term(t)]
            if cjk:
                words = [t for t in terms if not is_cjk_term(t)]
                matched = reader.search_substrings(cjk, _fts_phrases(words) if words else None, seq, limit, path_prefix)
                return [_hit(path, commit, p, _marked_snippet(p.text, cjk)) for path, _vid, p in matched]
            rows = reader.search_passages(_fts_phrases(terms), seq, limit, path_prefix)
        return [_hit(path, commit, passage, snippet) for path, _vid, passage, snippet in rows]
    finally:
        reader.close()


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


def _hit(path: str, commit: str, passage: Passage, raw_snippet: str) -> SearchHit:
    snippet, highlights = _split_marks(raw_snippet)
    return SearchHit(
        path,
        commit,
        passage.start,
        passage.end,
        passage.line_start,
        passage.line_end,
        passage.heading,
        passage.text,
        snippet,
        highlights,
        passage.page_start,
        passage.page_end,
    )


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
