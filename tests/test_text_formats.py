"""Every text file is a document (docs/design.md#d15): formats, titles, binary files and declared encodings."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CorpusRepo

from indexer import api
from indexer.errors import PinciteError
from indexer.index.store import IndexReader
from indexer.text import asciidoc
from indexer.text.citation import Citation
from indexer.text.titles import document_title

LATIN1 = "Préface\n\nLa coopérative garde ses registres à Montréal.\n".encode("latin-1")


def _documents(repo: CorpusRepo) -> dict[str, tuple[str, str, str]]:
    """path -> (status, identity, title) at the built commit."""
    reader = IndexReader(repo.root / ".pincite/index.sqlite")
    try:
        seq = reader.commit_seq(repo.head())
        assert seq is not None
        rows = {}
        for pv in reader.paths_at(seq):
            version = reader.version(pv.version_id)
            rows[pv.path] = (version.status, version.identity, version.title)
        return rows
    finally:
        reader.close()


def test_every_non_binary_file_is_a_text_document_with_its_title(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit(
        {
            "corpus/pep-0001.txt": "PEP: 1\nTitle: Purpose and Guidelines\n\nBody text.\n",
            "corpus/guide.rst": ".. comment\n\n=========\nThe Guide\n=========\n\nIntro.\n",
            "corpus/book.adoc": ":toc:\n\n= A Book\n\n== Chapter\n\nText.\n",
            "corpus/notes.md": "---\ntitle: Meeting notes\n---\n# Not this\n",
            "corpus/todo.org": "* TODO write\n",
            "corpus/paper.tex": "\\section{Intro}\nText.\n",
            "corpus/README": "No extension at all.\n",
            "corpus/logo.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            "corpus/blob.dat": b"no NUL here but declared binary\n",
            ".gitattributes": "*.dat binary\n",
        }
    )
    summary = api.build(corpus_repo.root, site=False)
    docs = _documents(corpus_repo)
    assert docs["corpus/pep-0001.txt"] == ("ok", "text/1", "Purpose and Guidelines")
    assert docs["corpus/guide.rst"] == ("ok", "text/1", "The Guide")
    assert docs["corpus/book.adoc"] == ("ok", "text/1", "A Book")
    assert docs["corpus/notes.md"] == ("ok", "text/1", "Meeting notes")
    for plain in ("corpus/todo.org", "corpus/paper.tex", "corpus/README"):
        assert docs[plain][:2] == ("ok", "text/1")
    reasons = {s.path: s.reason for s in summary.skipped}
    assert "binary (a NUL byte in its first 8000 bytes" in reasons["corpus/logo.png"]
    assert "declared `binary` or `-diff`" in reasons["corpus/blob.dat"]
    assert summary.documents == 7
    cited = api.cite("corpus/guide.rst", corpus_repo.root, lines=(7, 7))
    assert cited.resolved.text == "Intro."


def test_a_declared_latin1_file_is_cited_by_its_decoded_code_points(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/legacy/old.txt": LATIN1, ".gitattributes": "legacy/** encoding=ISO-8859-1\n"})
    corpus_repo.commit({"corpus/a.md": "x\n", ".gitattributes": "corpus/legacy/*.txt encoding=ISO-8859-1\n"})
    api.build(corpus_repo.root, site=False)
    assert _documents(corpus_repo)["corpus/legacy/old.txt"][:2] == ("ok", "text/1;encoding=iso8859-1")
    resolved = api.resolve(
        Citation(corpus_repo.head(), "corpus/legacy/old.txt", chars=(44, 52)), corpus_repo.root
    ).resolved
    assert resolved.text == "à Montré"  # one code point per accented letter, as decoded
    assert resolved.identity == "text/1;encoding=iso8859-1"
    hits = api.search("registres", corpus_repo.root)
    assert [h.path for h in hits] == ["corpus/legacy/old.txt"]


def test_a_declaration_added_later_applies_to_older_versions(corpus_repo: CorpusRepo) -> None:
    first = corpus_repo.commit({"corpus/old.txt": LATIN1})
    corpus_repo.commit({".gitattributes": "corpus/old.txt encoding=latin1\n"})
    edited = LATIN1.replace(b"Pr\xe9face", b"Avant-propos")
    corpus_repo.commit({"corpus/old.txt": edited})
    summary = api.build(corpus_repo.root, site=False)
    assert summary.skipped == [] and summary.versions == 2
    kept, changed = api.verify(
        [Citation(first, "corpus/old.txt", lines=(3, 3)), Citation(first, "corpus/old.txt", lines=(1, 1))],
        corpus_repo.root,
    )
    assert kept.verdict.status == "verified"
    assert kept.verdict.resolved is not None and kept.verdict.resolved.text.endswith("à Montréal.")
    assert changed.verdict.status == "drifted"


@pytest.mark.parametrize("built", [False, True])
def test_a_declaration_added_later_reads_an_old_blob_outside_the_roots_too(
    corpus_repo: CorpusRepo, built: bool
) -> None:
    # Outside the roots (or without an index) nothing recorded the blob's encoding: the hint says to
    # declare it in .gitattributes, and a declaration committed later (at HEAD) must then work.
    first = corpus_repo.commit({"legacy/old.txt": LATIN1, "corpus/a.md": "x\n"})
    failed = api.verify([Citation(first, "legacy/old.txt", lines=(3, 3))], corpus_repo.root)[0].verdict
    assert failed.status == "unresolvable" and failed.hint is not None and ".gitattributes" in failed.hint
    corpus_repo.commit({".gitattributes": "legacy/*.txt encoding=ISO-8859-1\n"})
    if built:
        api.build(corpus_repo.root, site=False)
    (checked,) = api.verify([Citation(first, "legacy/old.txt", lines=(3, 3))], corpus_repo.root)
    assert checked.verdict.status == "verified", checked.verdict.reason
    assert checked.verdict.resolved is not None and checked.verdict.resolved.text.endswith("à Montréal.")
    # A blob that is UTF-8 is read as UTF-8 whatever is declared later (its citations keep their text).
    utf8 = corpus_repo.commit({"other/new.txt": "déjà\n"})
    declared = "legacy/*.txt encoding=ISO-8859-1\nother/*.txt encoding=ISO-8859-1\n"
    corpus_repo.commit({".gitattributes": declared, "other/new.txt": "d\xe9j\xe0\n".encode("latin-1")})
    resolved = api.resolve(Citation(utf8, "other/new.txt", lines=(1, 1)), corpus_repo.root).resolved
    assert resolved.text.startswith("déjà")


@pytest.mark.parametrize(
    ("content", "attribute", "message"),
    [
        (b"ok \x81 here\n", "cp1252", "not valid cp1252 as declared in .gitattributes (byte 3: b'\\x81')"),
        ("déjà UTF-8\n".encode(), "ISO-8859-1", "declared encoding=iso8859-1 in .gitattributes, but the file is UTF-8"),
        (b"plain\n", "UTF-16", "declared encoding=UTF-16 in .gitattributes, which pincite cannot read"),
    ],
)
def test_a_wrong_declaration_fails_closed_naming_the_path_and_byte(
    corpus_repo: CorpusRepo, content: bytes, attribute: str, message: str
) -> None:
    corpus_repo.commit({"corpus/doc.txt": content, ".gitattributes": f"*.txt encoding={attribute}\n"})
    summary = api.build(corpus_repo.root, site=False)
    reasons = {s.path: s.reason for s in summary.skipped}
    assert message in reasons["corpus/doc.txt"]
    if attribute != "UTF-16":
        with pytest.raises(PinciteError, match=r"corpus/doc\.txt: .*byte"):
            api.cite("corpus/doc.txt", corpus_repo.root, lines=(1, 1))


def test_without_an_index_the_pinned_commits_declarations_decide(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/old.txt": LATIN1, ".gitattributes": "*.txt encoding=ISO-8859-1\n"})
    cited = api.cite("corpus/old.txt", corpus_repo.root, lines=(1, 1))
    assert cited.resolved.text == "Préface"
    assert cited.resolved.identity == "text/1;encoding=iso8859-1"


@pytest.mark.parametrize(
    ("text", "fmt", "title"),
    [
        ("Setext title\n============\n", "markdown", "Setext title"),
        ("```\n# not a title\n```\n## Real\n", "markdown", "Real"),
        ("Intro paragraph.\n\nLater\n=====\n", "rst", ""),
        # Sphinx's file-wide metadata (`:orphan:`) and a directive before it, as PEP 639's appendices
        # start: Sphinx titles the page by the section, so does pincite (it was the path)
        (
            ":orphan:\n\n.. canonical-pypa-spec:: :ref:`x`\n\nAppendix: Examples\n==================\n",
            "rst",
            "Appendix: Examples",
        ),
        ("Intro.\n\n:orphan:\n\nLater\n=====\n", "rst", ""),
        ("= Book\nAuthor Name\n", "asciidoc", "Book"),
        ("== Section only\n", "asciidoc", ""),
        ("just words\n", "plain", ""),
    ],
)
def test_titles_by_format(text: str, fmt: str, title: str) -> None:
    assert document_title(text, fmt) == title  # type: ignore[arg-type]


def test_the_asciidoc_outline_lists_section_titles_outside_delimited_blocks() -> None:
    text = (
        "= Guide\n:toc:\n\n== Install\n\nRun it.\n\n....\n== literal, not a title\n....\n\n"
        "[source,asciidoc]\n----\n=== listed, not a title\n----\n\n=== Options\r\n\n====== Deep\n"
    )
    assert asciidoc.outline(text.split("\n")) == [
        (1, 1, "Guide"),
        (4, 2, "Install"),
        (17, 3, "Options"),
        (19, 6, "Deep"),
    ]


def test_only_asciidoc_source_views_carry_an_outline(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.site import asciidoc_view

    # Without Asciidoctor (tests/test_asciidoc_view.py renders with it): the source view and its outline.
    monkeypatch.setattr(asciidoc_view, "available", lambda: False)
    titled = "= Guide\n\n== Install\n\nRun it.\n"
    corpus_repo.commit({"corpus/guide.adoc": titled, "corpus/guide.txt": titled + "\n", "corpus/guide.md": "# Guide\n"})
    site = tmp_path / "site"
    api.build(corpus_repo.root, out=site)
    blob = corpus_repo.git("rev-parse", "HEAD:corpus/guide.adoc").strip()
    for page in (site / "doc/corpus/guide.adoc.html", site / f"v/{blob}.html"):
        html = page.read_text(encoding="utf-8")
        assert '<nav class="outline" aria-label="Outline"' in html, page
        assert '<a href="#L1">Guide</a>' in html and '<a href="#L3">Install</a>' in html
    for other in ("guide.txt", "guide.md"):
        assert 'class="outline"' not in (site / f"doc/corpus/{other}.html").read_text(encoding="utf-8")
