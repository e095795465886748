"""A one-file build carries the untouched paths' keys over (indexer/site/carry.py): its work follows
the change, and its site is the site a cold build of the same commit gives, file by file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.head_texts import TEXTS_FILE
from indexer.site.home import HOME_FILE
from indexer.site.manifest import MANIFEST, TOP
from tests.conftest import CorpusRepo
from tests.test_site_incremental import CITING, _assert_same_site

FOLDERS = ("corpus/east", "corpus/west")
PIC = "corpus/east/pic.png"


def _site(repo: CorpusRepo, site: Path) -> dict[str, Any]:
    return build(repo.root, out=site, config=Config()).site or {}


def _docs(n: int, folders: int = 4) -> dict[str, str | bytes | None]:
    return {f"corpus/f{k % folders}/doc-{k:02}.md": f"# Doc {k}\n\nWords of {k}.\n" for k in range(n)}


def test_a_one_file_build_keys_the_touched_page_alone(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(_docs(40))
    site = tmp_path / "site"
    cold = _site(corpus_repo, site)
    assert (cold["pages_keyed"], cold["history_keyed"], cold["versions_keyed"]) == (40, 40, 40)
    first = _site(corpus_repo, site)  # nothing new: the keys are carried, none computed
    assert (first["carry"], first["pages_keyed"], first["history_keyed"]) == ("carried", 0, 0)
    assert first["versions_keyed"] == 0
    corpus_repo.commit({"corpus/f1/doc-05.md": "# Doc 5\n\nNew words of 5.\n"})
    one = _site(corpus_repo, site)
    assert (one["carry"], one["pages_keyed"], one["history_keyed"]) == ("carried", 1, 1)
    assert one["versions_keyed"] == 2  # doc-05's two versions: the new one, and the old one's links
    # The other documents' pages and their version pages; doc-05's first version page is written
    # again, as it now links doc-05's history page.
    assert one["pages_reused"] == 39 + 39 and one["history_written"] == 1
    assert (cold["folders_keyed"], one["folders_keyed"]) == (4, 1)  # the home page's four folder sections
    corpus_repo.commit({f"corpus/f2/doc-{k:02}.md": f"# Doc {k}\n\nOther words of {k}.\n" for k in (2, 6, 10)})
    three = _site(corpus_repo, site)
    assert (three["pages_keyed"], three["history_keyed"], three["versions_keyed"]) == (3, 3, 6)
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


@pytest.mark.parametrize("documents", [12, 120])
def test_the_version_pages_keyed_follow_the_change_not_the_corpus(
    corpus_repo: CorpusRepo, tmp_path: Path, documents: int
) -> None:
    """However many documents the corpus holds, a one-file edit keys that path's versions alone."""
    corpus_repo.commit(_docs(documents))
    site = tmp_path / "site"
    _site(corpus_repo, site)
    for step in range(3):
        corpus_repo.commit({"corpus/f1/doc-05.md": f"# Doc 5\n\nStep {step}.\n"})
        stats = _site(corpus_repo, site)
        assert (stats["carry"], stats["versions_keyed"]) == ("carried", step + 2)


@pytest.mark.parametrize("documents", [12, 120])
def test_the_home_rows_built_follow_the_change_not_the_corpus(
    corpus_repo: CorpusRepo, tmp_path: Path, documents: int
) -> None:
    """However many documents the corpus holds, a one-file edit builds the home rows of its folder
    alone (six documents a folder here); the other folders' figures and sections are kept."""
    corpus_repo.commit(_docs(documents, folders=documents // 6))
    site = tmp_path / "site"
    assert _site(corpus_repo, site)["rows_built"] == documents
    assert _site(corpus_repo, site)["rows_built"] == 0  # nothing new
    for step in range(2):
        corpus_repo.commit({"corpus/f1/doc-01.md": f"# Doc 1\n\nStep {step}.\n"})
        stats = _site(corpus_repo, site)
        assert (stats["carry"], stats["rows_built"], stats["folders_keyed"]) == ("carried", 6, 1)
    home = (site / "index.html").read_text(encoding="utf-8")
    assert f"{documents} documents" in home


# Each a commit of a large site (its folders listed, each with a page of its own): a document added to a
# folder and one removed, a folder appearing and one gone, a title changed, a document moved between
# folders; with the rows each builds (its folders' documents).
FOLDER_STEPS: list[tuple[dict[str, str | bytes | None], int]] = [
    ({"corpus/f1/doc-new.md": "# New\n"}, 4),
    ({"corpus/f2/doc-02.md": None}, 2),
    ({"corpus/fresh/only.md": "# Only\n"}, 1),
    ({"corpus/fresh/only.md": None}, 0),
    ({"corpus/f3/doc-03.md": None, "corpus/f3/doc-07.md": None, "corpus/f3/doc-11.md": None}, 0),
    ({"corpus/f0/doc-04.md": "# Renamed four\n"}, 3),
    ({"corpus/f0/doc-08.md": None, "corpus/f1/doc-08.md": "# Doc 8\n\nWords of 8.\n"}, 2 + 5),
]


def test_a_large_sites_folders_follow_their_documents(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("indexer.site.home.HOME_DOCUMENTS", 4)  # the folders listed, as past 250 documents
    monkeypatch.setattr("indexer.site.home.SMALL_FOLDER", 1)
    corpus_repo.commit(_docs(12))
    site = tmp_path / "site"
    _site(corpus_repo, site)
    for number, (change, rows) in enumerate(FOLDER_STEPS):
        corpus_repo.commit(change)
        stats = _site(corpus_repo, site)
        assert (stats["carry"], stats["rows_built"]) == ("carried", rows), number
        if number in (3, 4, len(FOLDER_STEPS) - 1):
            _assert_same_site(site, _cold(corpus_repo, tmp_path))
    assert (site / "folders" / "corpus" / "f1" / "index.html").is_file()
    assert not (site / "folders" / "corpus" / "fresh").exists()
    assert not (site / "folders" / "corpus" / "f3").exists()


def test_a_copy_and_a_move_of_a_shared_version_give_the_cold_site(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    """A version page names the path that held its blob first: a new copy of an untouched path's blob
    keys that blob again (and it still names the first path), as does the first path's move."""
    corpus_repo.commit(_docs(8))
    site = tmp_path / "site"
    _site(corpus_repo, site)
    corpus_repo.commit({"corpus/f3/copy.md": "# Doc 3\n\nWords of 3.\n"})  # doc-03's blob, at a second path
    copied = _site(corpus_repo, site)
    assert copied["versions_keyed"] == 1
    _assert_same_site(site, _cold(corpus_repo, tmp_path))
    corpus_repo.commit({"corpus/f3/doc-03.md": None, "corpus/f2/doc-03.md": "# Doc 3\n\nWords of 3.\n"})
    _site(corpus_repo, site)
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


def test_a_title_turned_generic_keys_every_version_page_again(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    """A title many documents share gives way to each one's own name on every version holding it,
    whichever path changed: the shared titles changed, so no version page's key is carried."""
    corpus_repo.commit(_docs(6) | {f"corpus/f{k}/sum-{k}.md": f"# Summary\n\nPart {k}.\n" for k in range(2)})
    site = tmp_path / "site"
    _site(corpus_repo, site)
    corpus_repo.commit({"corpus/f2/sum-2.md": "# Summary\n\nPart 2.\n"})  # a third: "Summary" is shared now
    stats = _site(corpus_repo, site)
    assert (stats["carry"], stats["versions_keyed"]) == ("carried", 9)
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


def test_the_history_pages_keyed_follow_the_change(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    """History pages of untouched paths keep their recorded keys: a one-file edit keys that path's alone."""
    corpus_repo.commit(_docs(12))
    for k in range(4):  # four paths with a history page
        corpus_repo.commit({f"corpus/f{k}/doc-{k:02}.md": f"# Doc {k}\n\nEdited {k}.\n"})
    site = tmp_path / "site"
    assert _site(corpus_repo, site)["changes_keyed"] == 4
    corpus_repo.commit({"corpus/f1/doc-05.md": "# Doc 5\n\nEdited 5.\n"})
    one = _site(corpus_repo, site)
    assert (one["carry"], one["changes_keyed"]) == ("carried", 1)
    page = site / "changes" / "corpus" / "f2" / "doc-02.md.html"
    page.unlink()  # a carried history page deleted by hand: that path's is keyed and rendered again
    corpus_repo.commit({"corpus/f1/doc-05.md": "# Doc 5\n\nEdited again.\n"})
    assert _site(corpus_repo, site)["changes_keyed"] == 2 and page.is_file()
    _assert_same_site(site, _cold(corpus_repo, tmp_path))
    next((site / "diff").glob("*.html")).unlink()  # a carried diff page deleted: every path's keyed again
    corpus_repo.commit({"corpus/f3/doc-07.md": "# Doc 7\n\nEdited 7.\n"})
    assert _site(corpus_repo, site)["changes_keyed"] == 6
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


def test_a_diff_page_two_paths_make_names_the_first_paths_commits(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    """The same two versions in a row at two paths make one diff page, named by the first path in path
    order: a touched path earlier in that order, from other commits, is not carried over."""
    one, two = "# Doc\n\nFirst words.\n", "# Doc\n\nSecond words.\n"
    corpus_repo.commit({"corpus/zz.md": one, "corpus/other.md": "# Other\n"})
    corpus_repo.commit({"corpus/zz.md": two})
    site = tmp_path / "site"
    _site(corpus_repo, site)
    corpus_repo.commit({"corpus/aa.md": one})
    corpus_repo.commit({"corpus/aa.md": two})  # aa.md's step is zz.md's diff page, from later commits
    _site(corpus_repo, site)
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


def test_a_carried_version_page_deleted_in_the_site_folder_is_rendered_again(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit(_docs(8))
    site = tmp_path / "site"
    _site(corpus_repo, site)
    page = sorted((site / "v").glob("*.html"))[0]
    page.unlink()
    corpus_repo.commit({"corpus/f2/doc-02.md": "# Doc 2\n\nNew words of 2.\n"})
    stats = _site(corpus_repo, site)
    assert (stats["carry"], stats["versions_keyed"]) == ("carried", 3)
    assert page.is_file()
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


def test_a_change_other_pages_depend_on_keys_every_page_again(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    """A new document is a new link target and a new folder neighbour: every page's key is computed
    again (fail closed), the history keys of the untouched paths are still carried."""
    corpus_repo.commit(_docs(12))
    site = tmp_path / "site"
    _site(corpus_repo, site)
    corpus_repo.commit({"corpus/f0/doc-00a.md": "# Between\n\nA new neighbour.\n"})
    added = _site(corpus_repo, site)
    assert (added["carry"], added["pages_keyed"], added["history_keyed"]) == ("carried", 13, 1)
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


def test_a_site_not_updated_in_place_carries_nothing(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(_docs(6))
    site = tmp_path / "site"
    _site(corpus_repo, site)
    corpus_repo.commit({"corpus/f0/doc-00.md": "# Doc 0\n\nEdited.\n"})
    other = build(corpus_repo.root, out=site, config=Config(site_title="Another title")).site or {}
    assert other["carry"] == "no site updated in place" and other["pages_keyed"] == 6


def test_a_cited_page_names_the_commit_its_citations_were_verified_against(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    # An unrelated edit leaves the cited page's places as they were, but not the commit it names.
    cited = corpus_repo.commit({"corpus/a.md": "# Alpha\n\nRecords are kept.\nSecond line.\n", "corpus/c.md": "# C\n"})
    corpus_repo.commit({"corpus/b.md": f"# Beta\n\nAs it says (corpus/a.md@{cited[:12]}#L3-L4), records are kept.\n"})
    site = tmp_path / "site"
    _site(corpus_repo, site)
    head = corpus_repo.commit({"corpus/c.md": "# C\n\nEdited.\n"})
    assert _site(corpus_repo, site)["carry"] == "carried"
    page = (site / "doc" / "corpus" / "a.md.html").read_text(encoding="utf-8")
    assert f'<code title="{head}">' in page
    _assert_same_site(site, _cold(corpus_repo, tmp_path))


def _cold(repo: CorpusRepo, tmp_path: Path) -> Path:
    cold = tmp_path / f"cold-{len(list(tmp_path.glob('cold-*')))}"
    build(repo.root, out=cold, config=Config())
    return cold


# A short random history of a small corpus: what each step changes is one of the inputs a page
# shares with others (a title turned generic or back, a link target, a citation, a folder's members).
STEP = st.one_of(
    st.tuples(st.just("edit"), st.integers(0, 5)),
    st.tuples(st.just("title"), st.integers(0, 5), st.sampled_from(["Summary", "Own"])),
    st.tuples(st.just("delete"), st.integers(0, 5)),
    st.tuples(st.just("add"), st.integers(0, 5)),
    st.tuples(st.just("move"), st.integers(0, 5)),
    st.tuples(st.just("link"), st.integers(0, 5), st.sampled_from(["pic.png", "../west/d1.md", "d2.md", ""])),
    st.tuples(st.just("cite"), st.integers(0, 5), st.booleans()),
    st.tuples(st.just("pic"), st.booleans()),
    st.tuples(st.just("back"), st.integers(0, 5)),
)
# How the build after a step runs: a site build; an index-only build first (CI caches the two
# apart); the index deleted first (rebuilt cold: new version ids); none (the next build sees both steps);
# a document page of the site deleted or edited first (by hand: the manifest still says it is kept);
# a version page or a history page deleted first (its key is carried, its file is not there);
# a shard of the manifest edited, deleted or cut short first, or its top record edited (a seal no
# longer holds: the site is rendered whole); the home file's figures edited or the file deleted first
# (the manifest's digest of it no longer holds: every home row is built again), or its word counts edited.
BUILD = st.sampled_from(
    [
        "site",
        "index first",
        "cold index",
        "none",
        "page deleted",
        "page edited",
        "version deleted",
        "history page deleted",
        "shard edited",
        "shard deleted",
        "shard truncated",
        "top edited",
        "home edited",
        "home deleted",
        "texts edited",
    ]
)


def _damage(site: Path, how: str) -> None:
    """Delete or edit (keeping its length) the first document page of the site, or edit, delete or
    cut short the first shard of its manifest that holds a document page's record, or edit its top
    record, as a hand in the folder would."""
    pages = sorted((site / "doc").rglob("*.html"))
    if not pages:
        return
    if how == "texts edited":  # a count no text holds, one more of a word some text holds
        texts = site / TEXTS_FILE
        kept = json.loads(texts.read_text(encoding="utf-8"))
        kept["counts"] = {"keptword": 1000, **{word: count + 1 for word, count in kept["counts"].items()}}
        texts.write_text(json.dumps(kept), encoding="utf-8")
        return
    if how.startswith("home "):
        home = site / HOME_FILE
        if how == "home deleted":
            home.unlink()
        else:  # the first folder's count made one more, its section's rows one fewer: still well formed
            kept = json.loads(home.read_text(encoding="utf-8"))
            figures = next(iter(kept["folders"].values()))
            figures[1] += 1
            sections = kept["sections"].items()
            kept["sections"] = {name: [key, html.replace("<tr>", "", 1)] for name, (key, html) in sections}
            home.write_text(json.dumps(kept), encoding="utf-8")
        return
    if how in ("version deleted", "history page deleted"):
        folder = site / ("v" if how == "version deleted" else "changes")
        for page in sorted(folder.rglob("*.html"))[:1]:
            page.unlink()
        return
    if how.startswith("shard "):
        shard = next(file for file in sorted((site / MANIFEST).glob("??.json")) if b'"docs"' in file.read_bytes())
        body = shard.read_bytes()
        if how == "shard edited":
            shard.write_bytes(body.replace(b"corpus/", b"corpus-", 1))
        elif how == "shard deleted":
            shard.unlink()
        else:
            shard.write_bytes(body[: len(body) // 2])
    elif how == "top edited":
        top = site / TOP
        top.write_bytes(top.read_bytes().replace(b'"doc_inputs": "', b'"doc_inputs": "0', 1))
    elif how == "page deleted":
        pages[0].unlink()
    else:
        text = pages[0].read_bytes()
        pages[0].write_bytes(text.replace(b"Words", b"Wards"))


class _Corpus:
    """Six documents over two folders, each with a title, a body, a link and maybe a citation."""

    def __init__(self) -> None:
        self.docs: dict[int, dict[str, Any]] = {
            n: {"folder": FOLDERS[n % 2], "title": f"Own {n}", "body": f"Words of {n}.", "link": "", "cite": False}
            for n in range(6)
        }
        self.gone: set[int] = set()
        self.pic = True

    def path(self, n: int) -> str:
        return f"{self.docs[n]['folder']}/d{n}.md"

    def text(self, n: int) -> str:
        doc = self.docs[n]
        title = doc["title"] if doc["title"] == "Summary" else f"{doc['title']} {n}"
        link = f"\n\nSee [there]({doc['link']}).\n" if doc["link"] else "\n"
        return f"# {title}\n\n{doc['body']}{link}" + (CITING if doc["cite"] else "")

    def first(self) -> dict[str, str | bytes | None]:
        return {self.path(n): self.text(n) for n in self.docs} | {PIC: b"\x89PNG picture"}

    def step(self, step: tuple[Any, ...], number: int) -> dict[str, str | bytes | None]:
        kind, n = step[0], step[1]
        if kind == "pic":
            was, self.pic = self.pic, bool(n)
            return {} if was == self.pic else {PIC: b"\x89PNG picture" if n else None}
        doc = self.docs[n]
        if kind == "add":
            if n not in self.gone:
                return {}
            self.gone.discard(n)
            return {self.path(n): self.text(n)}
        if n in self.gone:
            return {}
        if kind == "delete":
            self.gone.add(n)
            return {self.path(n): None}
        if kind == "back":
            # Changed, then changed back on the next commit: both heads hold the same blob for it.
            return {self.path(n): self.text(n) + "An aside.\n"}
        if kind == "move":
            old = self.path(n)
            doc["folder"] = FOLDERS[1 - FOLDERS.index(doc["folder"])]
            return {old: None, self.path(n): self.text(n)}
        if kind == "edit":
            doc["body"] += f" Step {number}."
        elif kind == "title":
            doc["title"] = step[2]
        elif kind == "link":
            doc["link"] = step[2]
        elif kind == "cite":
            doc["cite"] = step[2]
        return {self.path(n): self.text(n)}


@settings(max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(
    steps=[
        ("title", 0, "Summary", "site"),
        ("title", 2, "Summary", "site"),
        ("title", 4, "Summary", "site"),
        ("edit", 1, "site"),
    ]
)
@example(steps=[("link", 1, "pic.png", "site"), ("pic", False, "site"), ("edit", 3, "site"), ("pic", True, "site")])
@example(steps=[("cite", 3, True, "site"), ("edit", 3, "site"), ("cite", 3, False, "site"), ("move", 1, "site")])
@example(steps=[("back", 2, "index first")])
@example(steps=[("back", 2, "site")])
@example(steps=[("move", 1, "none"), ("move", 1, "cold index")])
@example(steps=[("edit", 3, "page deleted"), ("edit", 3, "page edited"), ("title", 1, "Summary", "shard edited")])
@example(steps=[("edit", 3, "shard deleted"), ("edit", 2, "shard truncated"), ("edit", 1, "top edited")])
@example(steps=[("edit", 3, "version deleted"), ("title", 1, "Summary", "version deleted")])
@example(steps=[("edit", 3, "site"), ("edit", 2, "history page deleted"), ("edit", 1, "history page deleted")])
@example(steps=[("edit", 3, "home edited"), ("move", 2, "home edited"), ("delete", 4, "home deleted")])
@example(steps=[("edit", 3, "texts edited"), ("move", 2, "site"), ("delete", 4, "texts edited")])
@given(steps=st.lists(st.tuples(STEP, BUILD).map(lambda pair: (*pair[0], pair[1])), min_size=1, max_size=5))
def test_builds_along_a_random_history_give_the_cold_site(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[Any, ...]]
) -> None:
    repo = CorpusRepo(tmp_path_factory.mktemp("carry"))
    site = tmp_path_factory.mktemp("site") / "site"
    index = site.parent / "index.sqlite"
    corpus = _Corpus()
    repo.commit(corpus.first())
    build(repo.root, out=site, config=Config(), index_path=index)
    for number, step in enumerate(steps):
        *change, how = step
        changes = corpus.step(tuple(change), number)
        repo.commit(changes, message=f"step {number}")
        if change[0] == "back" and changes:
            repo.commit({corpus.path(change[1]): corpus.text(change[1])}, message=f"step {number}, back")
        if how == "none" and number < len(steps) - 1:
            continue
        if how == "index first":
            build(repo.root, config=Config(), index_path=index, site=False)
        elif how == "cold index":
            index.unlink()
        elif how.startswith(("page ", "version ", "history ", "shard ", "top ", "home ", "texts ")):
            _damage(site, how)
        build(repo.root, out=site, config=Config(), index_path=index)
    cold = tmp_path_factory.mktemp("cold") / "site"
    build(repo.root, out=cold, config=Config())
    _assert_same_site(site, cold)


@pytest.mark.parametrize("damage", ["deleted", "edited", "emptied"])
def test_a_carried_page_damaged_in_the_site_folder_is_rendered_again(
    corpus_repo: CorpusRepo, tmp_path: Path, damage: str
) -> None:
    """The manifest says the page is kept, but the file in the site is gone or not the one written:
    the build renders it again instead of carrying a missing or wrong page."""
    corpus_repo.commit(_docs(8))
    site = tmp_path / "site"
    _site(corpus_repo, site)
    page = site / "doc" / "corpus" / "f1" / "doc-05.md.html"
    if damage == "deleted":
        page.unlink()
    elif damage == "edited":  # the same length, other words
        page.write_bytes(page.read_bytes().replace(b"Words of 5.", b"Wards of 5."))
    else:
        page.write_bytes(b"")
    corpus_repo.commit({"corpus/f2/doc-02.md": "# Doc 2\n\nNew words of 2.\n"})
    stats = _site(corpus_repo, site)
    assert stats["carry"] == "carried" and stats["pages_keyed"] == 2
    assert b"Words of 5." in page.read_bytes()
    _assert_same_site(site, _cold(corpus_repo, tmp_path))
