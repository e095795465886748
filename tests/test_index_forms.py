"""A version's row is keyed by everything that shapes it: its blob, its extractor identity and its form.

The text of a blob under one extractor identity is the same at every path, but its passages,
its title and its rendered view follow the path's text format (Markdown, reST, AsciiDoc or
plain) and the `passage_max_chars` setting. One blob at a `.txt` and at a `.md` path is two
rows, each cut as its own path says, whichever path a build meets first; an index built
under one `passage_max_chars` and built again under another holds the passages a cold build
under the second would.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from indexer import build, search
from indexer.citations import quote
from indexer.citations.resolve import Resolver
from indexer.config import load_config
from indexer.index.build import build_index
from indexer.index.documents import recorded_text, version_form
from indexer.index.store import IndexReader, trigram_match
from indexer.text.chunk import chunk
from indexer.text.citation import Citation
from indexer.text.kinds import text_format
from indexer.text.normalize import normalize
from indexer.text.titles import document_title
from indexer.vcs.repo import GitRepo
from tests.conftest import CorpusRepo

MARKDOWN = "# Field guide\n\nThe first part says little.\n\n## Storage\n\nKeep the samples cold and dry.\n"
RST = "Field guide\n===========\n\nThe first part says little.\n\nStorage\n-------\n\nKeep the samples cold and dry.\n"


def _head_rows(index: Path) -> dict[str, tuple[str, bool, list[tuple[int, int, str]]]]:
    """path -> (title, is_markdown, passages as (start, end, heading)) at the index's head."""
    reader = IndexReader(index)
    try:
        rows = {}
        for pv in reader.paths_at(reader.head_seq()):
            version = reader.version(pv.version_id)
            passages = [(p.start, p.end, p.heading) for p in reader.passages_of(pv.version_id)]
            rows[pv.path] = (version.title, version.is_markdown, passages)
        return rows
    finally:
        reader.close()


def _as_its_path_says(path: str, text: str, max_chars: int = 1200) -> tuple[str, bool, list[tuple[int, int, str]]]:
    fmt = text_format(path)
    passages = chunk(text, fmt=fmt, max_chars=max_chars)
    return document_title(text, fmt), fmt == "markdown", [(p.start, p.end, p.heading) for p in passages]


@pytest.mark.parametrize(
    ("first", "second", "text"),
    [
        ("corpus/a.txt", "corpus/b.md", MARKDOWN),  # the plain path met first
        ("corpus/a.md", "corpus/b.txt", MARKDOWN),  # the Markdown path met first
        ("corpus/a.txt", "corpus/b.rst", RST),
        ("corpus/a.rst", "corpus/b.txt", RST),
    ],
)
def test_one_blob_at_paths_of_two_formats_is_cut_as_each_path_says(
    corpus_repo: CorpusRepo, tmp_path: Path, first: str, second: str, text: str
) -> None:
    corpus_repo.commit({first: text, "corpus/other.md": "# Other\n\nNothing shared.\n"})
    corpus_repo.commit({second: text})  # a later commit: `first` is met first on the history walk
    index = tmp_path / "index.sqlite"
    build_index(GitRepo(corpus_repo.root), index_path=index)
    rows = _head_rows(index)
    for path in (first, second):
        assert rows[path] == _as_its_path_says(path, text), path
    assert rows[first] != rows[second]


def test_both_paths_in_one_commit_are_cut_as_each_says(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/x.md": MARKDOWN, "corpus/y.txt": MARKDOWN, "corpus/z.adoc": MARKDOWN})
    index = tmp_path / "index.sqlite"
    build_index(GitRepo(corpus_repo.root), index_path=index)
    rows = _head_rows(index)
    for path in ("corpus/x.md", "corpus/y.txt", "corpus/z.adoc"):
        assert rows[path] == _as_its_path_says(path, MARKDOWN), path


@pytest.mark.parametrize("plain_first", [True, False])
def test_search_resolve_and_site_take_the_row_of_the_path_s_own_format(
    corpus_repo: CorpusRepo, tmp_path: Path, plain_first: bool
) -> None:
    order = ["corpus/notes.txt", "corpus/guide.md"] if plain_first else ["corpus/guide.md", "corpus/notes.txt"]
    corpus_repo.commit({order[0]: MARKDOWN})
    corpus_repo.commit({order[1]: MARKDOWN})
    out = tmp_path / "site"
    build(corpus_repo.root, out=out)

    hits = {hit.path: hit.passage.heading for hit in search("samples cold", corpus_repo.root)}
    assert hits == {"corpus/guide.md": "Field guide › Storage", "corpus/notes.txt": ""}

    # The quote check's passages of each path are those the index cut for that path.
    repo = GitRepo(corpus_repo.root)
    resolver = Resolver(repo)
    index = corpus_repo.root / load_config(corpus_repo.root).index_path
    for path in order:
        version = resolver.text_at(corpus_repo.head(), path)
        spans = [(s.start, s.end) for s in quote._passage_spans(version, path, resolver)]
        assert spans == [(start, end) for start, end, _h in _head_rows(index)[path][2]], path
        form = version_form(path, version.extracted.identity, resolver.config.passage_max_chars)
        reader = resolver.index()
        assert reader is not None
        row = reader.version_under(version.blob, version.extracted.identity, form)
        assert row is not None and row.is_markdown == path.endswith(".md")
        assert reader.identities_by_blob()[version.blob] == ("text/1",)  # one extractor identity, two forms

    # The Markdown path's page is rendered (its headings are headings); the plain one's is its source.
    guide = (out / "doc/corpus/guide.md.html").read_text(encoding="utf-8")
    notes = (out / "doc/corpus/notes.txt.html").read_text(encoding="utf-8")
    assert "<h2" in guide and "Storage</h2>" in guide
    assert "Storage</h2>" not in notes


def test_the_form_is_part_of_the_version_key(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/a.txt": MARKDOWN, "corpus/b.md": MARKDOWN})
    index = tmp_path / "index.sqlite"
    build_index(GitRepo(corpus_repo.root), index_path=index)
    conn = sqlite3.connect(index)
    try:
        forms = sorted(form for (form,) in conn.execute("SELECT form FROM versions"))
    finally:
        conn.close()
    assert forms == sorted([version_form("a.txt", "text/1", 1200), version_form("b.md", "text/1", 1200)])


LONG = "# Handbook\n\n" + "\n\n".join(
    f"Paragraph {n} says enough words to fill more than a short passage of text, twice over." for n in range(12)
)


def _passage_spans(index: Path) -> dict[str, list[tuple[int, int, str]]]:
    return {path: passages for path, (_title, _md, passages) in _head_rows(index).items()}


@pytest.mark.parametrize("new_commit", [False, True])
def test_a_build_under_another_passage_max_chars_cuts_as_a_cold_build_does(
    corpus_repo: CorpusRepo, tmp_path: Path, new_commit: bool
) -> None:
    corpus_repo.commit({"corpus/handbook.md": LONG, "corpus/notes.txt": LONG, "corpus/small.md": "# Small\n\nOne.\n"})
    repo = GitRepo(corpus_repo.root)
    index = tmp_path / "index.sqlite"
    wide = load_config(corpus_repo.root)
    build_index(repo, index_path=index, config=wide)
    if new_commit:  # an update walks the new commit alone unless the key says otherwise
        corpus_repo.commit({"corpus/small.md": "# Small\n\nTwo.\n"})
    narrow = dataclasses.replace(wide, passage_max_chars=150)
    build_index(repo, index_path=index, config=narrow)
    cold = tmp_path / "cold.sqlite"
    build_index(repo, index_path=cold, config=narrow)
    assert _passage_spans(index) == _passage_spans(cold)
    assert len(_passage_spans(index)["corpus/handbook.md"]) > 2  # cut at 150 characters, not 1200


def test_the_site_shows_the_passages_of_the_new_passage_max_chars(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({"corpus/handbook.md": LONG})
    out = tmp_path / "site"
    wide = load_config(corpus_repo.root)
    build(corpus_repo.root, out=out, config=wide)
    page = out / "doc/corpus/handbook.md.html"
    assert "id=p1" not in page.read_text(encoding="utf-8")  # one passage of 1200 characters
    build(corpus_repo.root, out=out, config=dataclasses.replace(wide, passage_max_chars=150))
    passages = _passage_spans(corpus_repo.root / wide.index_path)["corpus/handbook.md"]
    html = page.read_text(encoding="utf-8")
    assert len(passages) > 2
    assert all(f"id=p{n}" in html for n in range(len(passages)))


CJK_PAGE = "# 手册\n\n" + "\n\n".join(f"第{n}段说明样本应当保持寒冷和干燥的储存方法。" for n in range(40))


def _version_keys(index: Path) -> tuple[list[tuple[str, str, str]], int]:
    """Every version row's (blob, identity, form), and how many no interval holds."""
    conn = sqlite3.connect(index)
    try:
        for table in ("passages_fts", "versions_tri"):
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
        keys = sorted(conn.execute("SELECT blob, identity, form FROM versions").fetchall())
        ids = {vid for (vid,) in conn.execute("SELECT id FROM versions")}
        query = trigram_match(["保持寒冷"])
        matched = conn.execute("SELECT rowid FROM versions_tri WHERE versions_tri MATCH ?", (query,))
        assert {vid for (vid,) in matched} <= ids  # a deleted version's trigram row went with it
        orphans = conn.execute(
            "SELECT COUNT(*) FROM versions WHERE id NOT IN (SELECT version_id FROM path_versions)"
        ).fetchone()[0]
        return keys, int(orphans)
    finally:
        conn.close()


def test_a_build_under_another_passage_max_chars_keeps_no_row_of_the_old_form(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({"corpus/handbook.md": LONG, "corpus/notes.txt": LONG, "corpus/cjk.md": CJK_PAGE})
    repo = GitRepo(corpus_repo.root)
    index = tmp_path / "index.sqlite"
    wide = load_config(corpus_repo.root)
    narrow = dataclasses.replace(wide, passage_max_chars=150)
    for config in (wide, narrow, wide):
        build_index(repo, index_path=index, config=config)
        cold = tmp_path / f"cold{config.passage_max_chars}.sqlite"
        build_index(repo, index_path=cold, config=config)
        keys, orphans = _version_keys(index)
        assert orphans == 0
        assert keys == _version_keys(cold)[0]
        assert _passage_spans(index) == _passage_spans(cold)
        hits = {hit.path for hit in search("保持寒冷", corpus_repo.root, index_path=index)}
        assert hits == {"corpus/cjk.md"}
    # An update after them (a new commit, the same settings) is still a cold build.
    corpus_repo.commit({"corpus/notes.txt": LONG + "\n\nOne more paragraph.\n"})
    updated = build_index(repo, index_path=index, config=wide)
    assert updated.changed_paths == ("corpus/notes.txt",)
    cold = tmp_path / "cold-update.sqlite"
    build_index(repo, index_path=cold, config=wide)
    assert _version_keys(index) == (_version_keys(cold)[0], 0)  # the old notes.txt too: the history holds it
    assert _passage_spans(index) == _passage_spans(cold)


def test_a_row_of_an_older_extractor_identity_is_kept_when_the_form_changes(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({"corpus/handbook.md": LONG})
    repo = GitRepo(corpus_repo.root)
    index = tmp_path / "index.sqlite"
    wide = load_config(corpus_repo.root)
    build_index(repo, index_path=index, config=wide)
    conn = sqlite3.connect(index)
    try:  # as an index built under an older extractor leaves it: the next build extracts again
        blob, identity, form = conn.execute("SELECT blob, identity, form FROM versions").fetchone()
        conn.execute("UPDATE versions SET identity = 'text/0'")
        conn.commit()
    finally:
        conn.close()
    build_index(repo, index_path=index, config=wide)
    build_index(repo, index_path=index, config=dataclasses.replace(wide, passage_max_chars=150))
    reader = IndexReader(index)
    try:
        old = reader.version_under(blob, "text/0", form)
        assert old is not None and old.text == LONG
        assert reader.version_under(blob, identity, version_form("corpus/handbook.md", identity, 150)) is not None
    finally:
        reader.close()


PAGE = "<html><head><title>Field guide</title></head><body><p>Keep the samples cold and dry.</p></body></html>"


@pytest.mark.parametrize(
    ("indexed", "asked", "source_class"),
    [
        ("corpus/guide.html", "snapshots/example.org/guide.html", "snapshot"),
        ("snapshots/example.org/guide.html", "corpus/guide.html", "extracted"),
    ],
)
def test_a_recorded_text_of_another_form_takes_the_source_class_of_the_asked_path(
    corpus_repo: CorpusRepo, tmp_path: Path, indexed: str, asked: str, source_class: str
) -> None:
    corpus_repo.commit({indexed: PAGE, "corpus/other.md": "# Other\n"})
    repo = GitRepo(corpus_repo.root)
    index = tmp_path / "index.sqlite"
    config = load_config(corpus_repo.root)
    build_index(repo, index_path=index, config=config)
    blob = corpus_repo.git("hash-object", "--stdin", input_bytes=PAGE.encode()).strip()
    reader = IndexReader(index)
    try:
        (identity,) = {v.identity for v in reader.version_metas().values() if v.blob == blob}
        found = recorded_text(repo, reader, blob, asked, identity, config.passage_max_chars)
    finally:
        reader.close()
    assert found is not None and found.text
    assert found.extracted.source_class == source_class


SECTIONS = "# Storage\n\nKeep the samples cold and dry.\n\n# Transport\n\nCarry the boxes upright with care.\n"


def test_a_near_place_is_found_among_the_passages_of_the_cited_path_s_form(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": SECTIONS, "corpus/b.txt": SECTIONS})
    build(corpus_repo.root, site=False)
    resolver = Resolver(GitRepo(corpus_repo.root))
    resolved = resolver.resolve(Citation(resolver.commit("HEAD"), "corpus/b.txt", lines=(1, 7)))
    # The resolver's memos keep the text of a (blob, identity) as its first caller read it: here
    # as a.md, whose Markdown cut puts the two sections in two passages; b.txt's plain cut is one.
    first_read = dataclasses.replace(resolved.document, path="corpus/a.md")
    near = quote.near_place(
        normalize("boxes samples Carry Keep cold"), dataclasses.replace(resolved, document=first_read), resolver
    )
    assert near is not None
    place, how = near
    assert place.path == "corpus/b.txt" and how == "in another order, in one passage"
    assert place.lines == (1, 7)  # the one passage of the plain cut: both sections


def test_a_blob_at_paths_of_two_forms_is_counted_as_two_versions_extracted(corpus_repo: CorpusRepo) -> None:
    # What docs/indexing.md (step 2) and `pincite build --help` say: the summary counts versions,
    # (blob, identity, form), and each is extracted on its own.
    corpus_repo.commit({"corpus/long.md": LONG, "corpus/long.txt": LONG})
    summary = build_index(GitRepo(corpus_repo.root))
    assert (summary.documents, summary.versions, summary.extracted, summary.reused) == (2, 2, 2, 0)


def test_an_index_built_under_each_setting_in_turn_is_no_larger_than_a_cold_build(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({f"corpus/h{n}.md": f"{LONG}\n\nPage {n}.\n" for n in range(60)})
    repo = GitRepo(corpus_repo.root)
    index = tmp_path / "index.sqlite"
    wide = load_config(corpus_repo.root)
    narrow = dataclasses.replace(wide, passage_max_chars=150)
    for config in (wide, narrow, wide, narrow, wide):
        build_index(repo, index_path=index, config=config)
    cold = tmp_path / "cold.sqlite"
    build_index(repo, index_path=cold, config=wide)
    # The deleted rows' pages are given back and their FTS5 deletes merged away: without that the
    # file grew with each change, to twice a cold build after one change and back (a page is 4 KiB).
    assert index.stat().st_size <= cold.stat().st_size + 4 * 4096
