"""What the cold build's shortcuts rest on: each gives what the longer way gives.

- A version's passages handed to the writer as span tuples (what the pool's workers send) are
  stored as the same passages handed over as `Passage`s.
- `classify` with the kinds of the extractors met so far gives the kinds it gives without them,
  and asks each extractor for its identities once; the build's classification of a tree, which
  classifies the paths of one file name once, gives each path the kind `classify` gives it
  alone (its folder's declarations and the snapshot root apart); an extractor whose extension
  reaches into folders is refused.
- The declarations read without git's matching when no attributes file could make one are
  those git's matching finds, wherever the declaring line stands.
- Line starts summed from a text's split are those found by scanning for each "\\n", in code
  points and in UTF-8 bytes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import CorpusRepo
from hypothesis import given
from hypothesis import strategies as st

from indexer.config import Config
from indexer.errors import UsageError
from indexer.extract import attributes, registry
from indexer.extract.base import ExtractedText
from indexer.index.build import _classified, classify
from indexer.index.documents import version_form
from indexer.index.prepare import prepare
from indexer.index.store import IndexWriter
from indexer.text.chunk import byte_line_starts, chunk
from indexer.text.model import LineIndex
from indexer.vcs.repo import GitRepo, TreeEntry

PAGE = (
    "# tar\n\n> Archiving utility.\n\n- Create an archive:\n\n`tar cf {{target.tar}} {{file}}`\n\n"
    "## Más\n\nñandú 中文字符\n"
)


def _stored(index: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(index)
    try:
        rows = conn.execute("SELECT * FROM passages ORDER BY id").fetchall()
        rows += conn.execute("SELECT rowid, text, heading FROM passages_fts ORDER BY rowid").fetchall()
        rows += conn.execute("SELECT rowid FROM passages_fts WHERE passages_fts MATCH 'archive'").fetchall()
        return rows
    finally:
        conn.close()


def _written(index: Path, **passages: object) -> list[tuple[object, ...]]:
    writer = IndexWriter(index)
    extracted = ExtractedText(PAGE, "text", "text@1", is_markdown=True)
    form = version_form("pages/tar.md", "text@1", Config().passage_max_chars)
    writer.add_version(blob="a" * 40, identity="text@1", form=form, size=len(PAGE), extracted=extracted, **passages)  # type: ignore[arg-type]
    writer.commit(optimize=True)
    return _stored(index)


def test_passages_given_as_the_workers_span_tuples_are_stored_as_passages_are(tmp_path: Path) -> None:
    config = Config()
    prepared = prepare(config, PAGE.encode(), "pages/tar.md", registry.extractor_for("tar.md").identity())
    assert not isinstance(prepared, str)
    _extracted, spans = prepared
    passages = chunk(PAGE, fmt="markdown", max_chars=config.passage_max_chars)
    assert len(passages) == 2  # cut at the second heading
    by_spans = _written(tmp_path / "spans.sqlite", spans=spans)
    assert by_spans == _written(tmp_path / "passages.sqlite", passages=passages)
    assert by_spans[0][-1] == passages[0].text


def test_classify_with_the_extractors_met_gives_the_kinds_it_gives_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = ["a.md", "b.md", "c.txt", "d", "e.html", "f.pdf", "g.rst", "h.MD", ".keep", "i.adoc"]
    entries = [TreeEntry(path, "100644", "b" * 40) for path in paths] + [TreeEntry("link.md", "120000", "c" * 40)]
    config = Config()
    alone = [classify(entry, config) for entry in entries]
    asked: list[str] = []
    for extractor in {registry.extractor_for(path) for path in paths}:
        identities = extractor.identities

        def counted(limits: object, _real: object = identities, _name: str = extractor.name) -> object:
            asked.append(_name)
            return _real(limits)  # type: ignore[operator]

        monkeypatch.setattr(extractor, "identities", counted, raising=False)
    known: dict[object, object] = {}
    together = [classify(entry, config, known=known) for entry in entries]  # type: ignore[arg-type]
    assert together == alone
    assert sorted(asked) == sorted(set(asked))  # once per extractor


def test_classify_with_the_extractors_met_makes_one_kind_per_extractor_and_form() -> None:
    # A build classifies every path: paths of one extractor and one form share one kind.
    paths = ["a.md", "pages/b.md", "c/d/e.md", "f.txt", "g.txt", "h.rst"]
    entries = [TreeEntry(path, "100644", "b" * 40) for path in paths]
    config = Config()
    known: dict[object, object] = {}
    kinds = [classify(entry, config, known=known) for entry in entries]  # type: ignore[arg-type]
    assert kinds == [classify(entry, config) for entry in entries]
    assert kinds[0] is kinds[1] is kinds[2] and kinds[3] is kinds[4]
    assert len({id(kind) for kind in kinds}) == 3  # .md, .txt, .rst: three forms of one extractor


def test_the_builds_classification_gives_each_path_of_a_name_the_kind_it_has_alone(corpus_repo: CorpusRepo) -> None:
    # One name in folders declared otherwise (binary, another encoding), under the snapshot root,
    # as a link and as a file: every path keeps its own kind though the name is classified once.
    names = ["tar.md", "notes.txt", "tar.html", ".keep", "x.meta.json"]
    folders = ["pages", "pages/ja", "plain", "raw", "latin", "snapshots/example.org"]
    files: dict[str, str | bytes | None] = {f"{folder}/{name}": "# t\n" for folder in folders for name in names}
    files[".gitattributes"] = "raw/** binary\nlatin/** encoding=ISO-8859-1\npages/ja/*.txt -diff\n"
    corpus_repo.commit(files)
    corpus_repo.git("mv", "pages/notes.txt", "pages/moved.txt")
    (corpus_repo.root / "pages/notes.txt").symlink_to("moved.txt")
    tip = corpus_repo.commit(message="a link of the same name")
    repo = GitRepo(corpus_repo.root)
    config = Config(roots=(".",))
    entries = repo.tree_entries(tip, ("pages", "plain", "raw", "latin", "snapshots"))
    assert len(entries) == len(folders) * len(names) + 1
    classified = _classified(repo, config, tip, [(entry, 0, 0) for entry in entries])
    declared = attributes.declared_for(repo, tip, [entry.path for entry in entries])
    alone = {entry.path: classify(entry, config, declared.get(entry.path, attributes.UNDECLARED)) for entry in entries}
    assert {path: kind for path, _entry, kind, _first, _last in classified} == alone
    assert len({(kind.identity, kind.skip_reason, kind.form) for kind in alone.values()}) >= 8  # the kinds differ


def test_an_extractor_whose_extension_names_a_folder_is_refused() -> None:
    class FolderExtension:
        name, extensions, source_class, install_hint = "folder", ("/raw/notes.txt",), "text", ""

    with pytest.raises(UsageError, match="end of a file name"):
        registry.register(FolderExtension())  # type: ignore[arg-type]
    assert all(extractor.name != "folder" for extractor in registry.registered())


@pytest.mark.parametrize(
    ("files", "info"),
    [
        ({".gitattributes": "* text=auto eol=lf\npages/** linguist-detectable\n"}, ""),
        ({".gitattributes": "* text=auto\n", "pages/deep/.gitattributes": "*.md binary\n"}, ""),
        ({".gitattributes": "[attr]raw -text\n*.md raw\n"}, ""),
        ({".gitattributes": "[attr]opaque -diff\npages/** opaque\n"}, ""),
        ({"pages/.gitattributes": "*.md encoding=ISO-8859-1\n"}, ""),
        ({".gitattributes": "* text\n"}, "pages/deep/*.md -diff\n"),
        ({}, ""),
    ],
)
def test_declarations_without_a_declaring_word_are_those_git_finds(
    corpus_repo: CorpusRepo, files: dict[str, str], info: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(attributes, "_FILES_FIRST", 1)  # the files are read first for any number of paths
    paths = ["pages/a.md", "pages/deep/b.md", "c.md"]
    tip = corpus_repo.commit({**files, **dict.fromkeys(paths, "# t\n")})
    (corpus_repo.root / ".git/info/attributes").write_text(info)
    repo = GitRepo(corpus_repo.root)
    by_git = {
        path: attributes._declared(values)
        for path, values in repo.attributes_at(tip, paths, attributes.ATTRIBUTES).items()
    }
    assert attributes.declared_for(repo, tip, paths) == by_git


def _scanned(text: str | bytes) -> list[int]:
    newline = "\n" if isinstance(text, str) else b"\n"
    starts = [0]
    at = text.find(newline)  # type: ignore[arg-type]
    while at != -1:
        starts.append(at + 1)
        at = text.find(newline, at + 1)  # type: ignore[arg-type]
    return starts


@given(st.text(alphabet=st.sampled_from(["a", "é", "中", "\n", "\r", " ", "😀"]), max_size=60))
def test_line_starts_are_those_a_scan_for_each_newline_finds(text: str) -> None:
    assert LineIndex(text).starts == _scanned(text)
    assert byte_line_starts(text.encode()) == _scanned(text.encode())
