"""`pincite search`: ranked passages with citations; plain words never raise FTS5 errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import build, search
from indexer.cli.main import main
from indexer.errors import IndexError_, RepositoryError, UsageError
from indexer.extract.base import ExtractedText
from indexer.index.search import plain_query
from indexer.index.store import IndexReader, IndexWriter, PathVersion, cjk_runs, holds_cjk
from indexer.text.passage import Passage
from indexer.vcs.repo import CommitInfo
from tests.conftest import CorpusRepo

DOCS = {
    "corpus/policies/retention.md": (
        "# Retention\n\nInvoices are kept for seven years.\n\n## Email\n\nEmail is kept for two years.\n"
    ),
    "corpus/oncall.md": "# On-call\n\nThe pager rotates weekly. Don't page the CEO.\n\nC++ builds run nightly.\n",
    "corpus/tokyo.md": "# 東京オフィス\n\n東京 office opens at nine. Café hours vary 😀.\n",
}


@pytest.fixture
def built(corpus_repo: CorpusRepo) -> CorpusRepo:
    corpus_repo.commit(DOCS)
    build(corpus_repo.root, site=False)
    return corpus_repo


def test_hits_carry_exact_spans_lines_and_citations(built: CorpusRepo) -> None:
    hits = search("seven years", built.root)
    assert len(hits) == 1
    hit = hits[0]
    text = DOCS[hit.path]
    assert text[hit.passage.start : hit.passage.end] == hit.passage.text
    assert "seven" in hit.snippet
    assert any(hit.snippet[a:b].lower() == "seven" for a, b in hit.highlights)
    assert hit.citation.text_form() == f"corpus/policies/retention.md@{built.head()}#L1-L3"
    assert hit.passage.heading == "Retention"


def test_ranking_prefers_the_better_match(built: CorpusRepo) -> None:
    hits = search("kept years", built.root)
    assert {h.path for h in hits} == {"corpus/policies/retention.md"}
    assert len(hits) == 2


@pytest.mark.parametrize("query", ["don't", "C++", '"unbalanced', "AND", "NEAR(", "OR pager", "a:b", "*", "^x"])
def test_awkward_plain_queries_never_raise(built: CorpusRepo, query: str) -> None:
    try:
        search(query, built.root)
    except UsageError as exc:
        assert "no words" in str(exc)


def test_apostrophes_and_symbols_match_as_users_expect(built: CorpusRepo) -> None:
    assert [h.path for h in search("don't", built.root)] == ["corpus/oncall.md"]
    assert [h.path for h in search("C++ nightly", built.root)] == ["corpus/oncall.md"]
    assert search("AND", built.root) == []


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.text(max_size=30))
def test_random_queries_never_raise_syntax_errors(built: CorpusRepo, query: str) -> None:
    try:
        search(query, built.root)
    except UsageError as exc:
        assert "no words" in str(exc)


def test_plain_query_quotes_each_term() -> None:
    assert plain_query('say "hi" now') == '"say" """hi""" "now"'


def test_unicode_and_path_filter(built: CorpusRepo) -> None:
    assert [h.path for h in search("cafe", built.root)] == ["corpus/tokyo.md"]
    assert search("kept", built.root, path_prefix="corpus/policies/")
    assert not search("kept", built.root, path_prefix="corpus/oncall")


def test_raw_fts_syntax_behind_an_option(built: CorpusRepo) -> None:
    assert {h.path for h in search("pager OR invoices", built.root, fts_syntax=True)} == {
        "corpus/oncall.md",
        "corpus/policies/retention.md",
    }
    with pytest.raises(UsageError, match="not valid FTS5 syntax"):
        search('"unbalanced', built.root, fts_syntax=True)


def test_search_at_an_older_built_commit(corpus_repo: CorpusRepo) -> None:
    old = corpus_repo.commit({"corpus/a.md": "alpha words\n"})
    corpus_repo.commit({"corpus/a.md": "beta words\n"})
    build(corpus_repo.root, site=False)
    assert [h.commit for h in search("alpha", corpus_repo.root, rev=old)] == [old]
    assert search("alpha", corpus_repo.root) == []
    corpus_repo.commit({"corpus/a.md": "gamma\n"})
    with pytest.raises(IndexError_, match="not in the index"):
        search("gamma", corpus_repo.root, rev="HEAD")


def test_cli_json_and_errors(built: CorpusRepo) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["search", "pager", "--repo", str(built.root), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data[0]["path"] == "corpus/oncall.md"
    assert data[0]["citation"].startswith("corpus/oncall.md@")
    result = runner.invoke(main, ["search", "?!", "--repo", str(built.root)])
    assert result.exit_code == UsageError.exit_code
    assert "Traceback" not in result.output


def test_search_without_an_index_says_to_build(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "a\n"})
    result = CliRunner().invoke(main, ["search", "a", "--repo", str(corpus_repo.root)])
    assert result.exit_code == IndexError_.exit_code
    assert "pincite build" in result.output


def test_cjk_words_inside_a_sentence_are_found(built: CorpusRepo) -> None:
    hits = search("東京", built.root)
    assert [h.path for h in hits] == ["corpus/tokyo.md"]
    hit = hits[0]
    assert [hit.snippet[a:b] for a, b in hit.highlights] == ["東京", "東京"]
    assert search("オフィス", built.root)[0].path == "corpus/tokyo.md"
    assert [h.path for h in search("東京 nine", built.root)] == ["corpus/tokyo.md"]
    assert search("東京 pager", built.root) == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(max_codepoint=0x17F), st.sampled_from("東京オフィス한글\u3000\u2014"))))
def test_holds_cjk_is_any_character_of_the_cjk_ranges(text: str) -> None:
    # Kana, CJK ideographs (with extension A and compatibility ones), Hangul syllables, CJK
    # punctuation and half-width katakana.
    ranges = [(0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xAC00, 0xD7AF)]
    ranges += [(0x3000, 0x303F), (0xFF66, 0xFF9F)]
    assert holds_cjk(text) == any(low <= ord(ch) <= high for ch in text for low, high in ranges)


def test_only_versions_with_cjk_text_get_trigram_rows(built: CorpusRepo) -> None:
    # The trigram table serves CJK substring search alone; other versions would only cost build time.
    reader = IndexReader(built.root / ".pincite" / "index.sqlite")
    try:
        texts = reader.conn.execute("SELECT id, text FROM versions WHERE status = 'ok'").fetchall()
        in_table = {
            row[0]
            for row in reader.conn.execute("SELECT rowid FROM versions_tri WHERE versions_tri MATCH ?", ("オフィ",))
        }
        holding = {vid for vid, text in texts if "オフィ" in text}
        rows = reader.conn.execute("SELECT COUNT(*) FROM versions_tri_docsize").fetchone()[0]
    finally:
        reader.close()
    assert holding and in_table == holding
    assert rows == sum(1 for _vid, text in texts if cjk_runs(text)) < len(texts)


def test_the_trigram_table_holds_only_the_cjk_runs_of_a_text(built: CorpusRepo) -> None:
    # The ASCII of a CJK page (commands, options, links) is found by the word table; tokenizing it
    # into trigrams as well cost most of the trigram table's build time.
    reader = IndexReader(built.root / ".pincite" / "index.sqlite")
    try:
        reader.conn.execute("CREATE VIRTUAL TABLE temp.tri_terms USING fts5vocab(main, versions_tri, row)")
        terms = {str(row[0]) for row in reader.conn.execute("SELECT term FROM temp.tri_terms")}
    finally:
        reader.close()
    assert "オフィ" in terms
    assert not [term for term in terms if term.isascii()]


_MIXED = st.text(alphabet=st.sampled_from("東京オフィス한글。、「」ab :\n"), max_size=40)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_MIXED, cut=st.tuples(st.integers(0, 40), st.integers(0, 40)))
def test_a_substring_of_a_cjk_text_is_found_through_the_trigram_table(
    tmp_path: Path, text: str, cut: tuple[int, int]
) -> None:
    # The table holds a text's CJK runs and a query asks for the trigrams of its pieces' runs: a
    # piece that stands in the text is never narrowed away.
    index = tmp_path / f"tri-{abs(hash((text, cut)))}.sqlite"
    writer = IndexWriter(index)
    extracted = ExtractedText(text, "text", "text/1")
    passages = [Passage(0, 0, len(text), 1, 1, "", text)] if text.strip() else []
    version = writer.add_version(
        blob="0" * 40, identity="text/1", form="plain", size=len(text), extracted=extracted, passages=passages
    )
    writer.replace_history([CommitInfo("1" * 40, 0, "one")], [PathVersion("corpus/a.md", version, 0, 0)])
    writer.commit(optimize=False)
    piece = text[min(cut) : max(cut)]
    reader = IndexReader(index)
    try:
        found = reader.search_substrings([piece], None, 0, 10, None) if piece and holds_cjk(piece) else None
    finally:
        reader.close()
        index.unlink()
    if found is not None:
        assert [(path, vid) for path, vid, _passage in found] == [("corpus/a.md", version)]


def _exact_order(reader: IndexReader, fts_query: str) -> list[int]:
    """Every matching passage id, best first, every match scored by bm25."""
    rows = reader.conn.execute("SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? ORDER BY rank", (fts_query,))
    return [int(row[0]) for row in rows]


def _hit_ids(reader: IndexReader, fts_query: str, seq: int, limit: int) -> list[int]:
    ids = {
        (int(vid), int(ordinal)): int(pid)
        for pid, vid, ordinal in reader.conn.execute("SELECT id, version_id, ordinal FROM passage_spans")
    }
    hits = reader.search_passages(fts_query, seq, limit, None)
    return [ids[(vid, passage.ordinal)] for _path, vid, passage, _snippet in hits]


FREQUENT = {
    f"corpus/doc{n}.md": "\n\n".join(
        f"## Part {k}\n\n" + " ".join(["common"] * (1 + (n * 7 + k * 3) % 5) + ["filler"] * (3 + (n + k) % 6))
        for k in range(4)
    )
    + "\n"
    for n in range(6)
}


def test_a_frequent_word_is_ranked_by_bm25_among_the_newest_matches(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit(FREQUENT)
    build(corpus_repo.root, site=False)
    corpus_repo.commit({"corpus/doc0.md": "# Newer\n\ncommon common common words\n"})
    build(corpus_repo.root, site=False)  # the new version's passages get the highest ids
    reader = IndexReader(corpus_repo.root / ".pincite" / "index.sqlite")
    try:
        head = reader.head_seq()
        query = plain_query("common")
        every = _exact_order(reader, query)
        at_head = set(_hit_ids(reader, query, head, 1000))
        at_first = set(_hit_ids(reader, query, 0, 1000))
        assert len(every) > 20 and len(at_head) < len(every)  # the old doc0 version is not at HEAD
        # Fewer matches than the bound: the plain bm25 order of the passages at HEAD.
        assert _hit_ids(reader, query, head, 5) == [pid for pid in every if pid in at_head][:5]
        # More: ranked among the 8 newest matches only, still in bm25 order.
        reader.ranked_candidates = 8
        newest = sorted(every, reverse=True)[:8]
        assert _hit_ids(reader, query, head, 5) == [pid for pid in every if pid in newest and pid in at_head][:5]
        # Fewer hits among them than asked for: every match is ranked.
        assert _hit_ids(reader, query, 0, 1000) == [pid for pid in every if pid in at_first]
    finally:
        reader.close()


# What `pincite search` may load: the CLI, the API's own module, and the layers a query needs (the
# index, the text model, the git boundary, the foundation). Not the citation, drift and lineage
# layers, nor the site, the snapshots, the build or extraction; no git library (git itself finds the
# repository) and no Markdown parser: a script that shells out for one query pays for each import.
SEARCH_LOADS_NOT = (
    "indexer.citations",
    "indexer.site",
    "indexer.snapshots",
    "indexer.index.build",
    "indexer.extract",
    "indexer.text.chunk",
    "indexer.shapes",
)
MODULES_OF_A_SEARCH = """
import json, runpy, sys
sys.argv = ["pincite", "search", "retention", "--repo", sys.argv[1], "--json"]
try:
    runpy.run_module("indexer.cli.main", run_name="__main__")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_search_process_imports_only_what_search_needs(built: CorpusRepo) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run(
        [sys.executable, "-c", MODULES_OF_A_SEARCH, str(built.root)], capture_output=True, text=True, env=env
    )
    hits = json.loads(proc.stdout)
    assert hits and "retention" in json.dumps(hits[0]).lower()
    modules = json.loads(proc.stderr.strip().splitlines()[-1])
    ours = [m for m in modules if m.startswith("indexer")]
    assert [m for m in ours if m.startswith(SEARCH_LOADS_NOT)] == []
    heavy = {"jinja2", "httpx", "pypdf", "lxml", "markdown_it", "rapidfuzz", "git", "pyromark", "multiprocessing"}
    assert not heavy & {m.split(".")[0] for m in modules}
    assert len(ours) <= 25, ours


def test_a_search_of_a_named_index_needs_no_repository_unless_it_asks_for_a_commit(
    built: CorpusRepo, tmp_path: Path
) -> None:
    index = built.root / ".pincite" / "index.sqlite"
    elsewhere = tmp_path / "not-a-repo"
    elsewhere.mkdir()
    [hit] = search("seven years", elsewhere, index_path=index)
    assert hit.commit == built.head() and hit.path == search("seven years", built.root)[0].path
    with pytest.raises(RepositoryError, match="not a git repository"):
        search("seven years", elsewhere, index_path=index, rev="HEAD")
