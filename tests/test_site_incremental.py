"""An incremental site build gives the site a cold build gives, while reusing what it kept."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.head_texts import TEXTS_FILE, HeadTexts, head_texts
from indexer.site.home import HOME_FILE
from indexer.site.manifest import MANIFEST
from indexer.site.render import history_shard
from indexer.site.vocabulary import vocabulary
from tests.conftest import CorpusRepo
from tests.histories import STEPS, commit_history

CITING = "As the handbook says (corpus/a.md@0123abcd#L1-L2), records are kept.\n"
# What a cold build cannot give alike: the home page's count of versions extracted by this very
# build (Pagefind's own output, under pagefind/, is left out too).
EXTRACTED_HERE = re.compile(rb"<dt>Extracted this build</dt><dd>[^<]*</dd>")


def _site_files(site: Path) -> dict[str, bytes]:
    files = {}
    for file in site.rglob("*"):
        rel = file.relative_to(site).as_posix()
        if file.is_file() and not rel.startswith("pagefind/"):
            files[rel] = EXTRACTED_HERE.sub(b"", file.read_bytes()) if rel == "index.html" else file.read_bytes()
    for rel in [rel for rel in files if rel.startswith(f"{MANIFEST}/")]:
        files[rel] = _without_index_record(files[rel])
    return files


def _without_index_record(manifest: bytes) -> bytes:
    """A file of the manifest less its record of the index file it was built from (site/carry.py's
    IndexState) and of its pages' files (their times, and so the digests of the shards that hold them):
    the parts that differ between two sites of the same commit built from two index files, at two times."""
    data = json.loads(manifest)
    data.pop("index", None)
    data.pop("stamps", None)
    data.pop("seal", None)
    if "shards" in data:
        data["shards"] = sorted(data["shards"])
    return json.dumps(data, sort_keys=True).encode("utf-8")


def _assert_same_site(warm: Path, cold: Path) -> None:
    incremental, fresh = _site_files(warm), _site_files(cold)
    assert sorted(incremental) == sorted(fresh)
    assert [rel for rel in sorted(fresh) if incremental[rel] != fresh[rel]] == []


def test_one_file_builds_give_the_cold_site(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(
        {
            "corpus/a.md": "# Alpha\n\nAlpha words stand here.\n",
            "corpus/b.md": "# Beta\n\nBeta words, beta again.\n",
            "corpus/twin.md": "# Twin\n\nShared text of two paths.\n",
            "corpus/sub/twin.md": "# Twin\n\nShared text of two paths.\n",
            "corpus/notes.txt": "Plain notes.\n",
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    changes: list[dict[str, str | bytes | None]] = [
        {"corpus/a.md": "# Alpha\n\nAlpha words changed.\n"},
        {"corpus/sub/twin.md": None},  # the other path still holds the shared version
        {"corpus/c.md": "# Gamma\n\n" + CITING},  # a new document that cites
        {"corpus/twin.md": None, "corpus/b.md": "# Beta\n\n" + CITING},
        {"corpus/c.md": None},  # a citing version gone
    ]
    for number, files in enumerate(changes):
        corpus_repo.commit(files)
        build(corpus_repo.root, out=site, config=Config())
        cold = tmp_path / f"cold-{number}"
        build(corpus_repo.root, out=cold, config=Config())
        _assert_same_site(site, cold)
    words = (site / "words.txt").read_text(encoding="utf-8").split()
    assert "twin" not in words and "shared" not in words  # gone with the last path that held it
    assert "citations.html" in _site_files(site)


def test_a_site_built_after_history_start_moved_is_the_cold_site(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({f"corpus/early-{n}.md": f"# Early {n}\n" for n in range(12)})
    corpus_repo.commit({f"corpus/early-{n}.md": None for n in range(12)})
    second = corpus_repo.commit({"corpus/late.md": "# Late\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    # The early paths leave the published history: their history shards lose them.
    build(corpus_repo.root, out=site, config=Config(history_start=second))
    cold = tmp_path / "cold"
    build(corpus_repo.root, out=cold, config=Config(history_start=second))
    _assert_same_site(site, cold)


def test_a_history_shard_whose_paths_kept_their_inputs_is_linked_unread(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({f"corpus/note-{n}.md": f"# Note {n}\n" for n in range(40)})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    edited = "corpus/note-0.md"
    untouched = next(
        p for p in (f"corpus/note-{n}.md" for n in range(1, 40)) if history_shard(p) != history_shard(edited)
    )
    shard = site / "history" / f"{history_shard(untouched)}.json"
    # Not JSON: a build that read this shard would write it again.
    shard.write_text("kept as it was", encoding="utf-8")
    corpus_repo.commit({edited: "# Note 0, edited\n"})
    summary = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert shard.read_text(encoding="utf-8") == "kept as it was"
    assert (summary["history_written"], summary["history_reused"]) == (1, 39)


def test_a_build_updates_the_kept_word_counts_instead_of_reading_every_text(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({f"corpus/{name}.md": f"# {name}\n\n{name} words.\n" for name in ("alpha", "beta", "gamma")})
    site = tmp_path / "site"
    assert (build(corpus_repo.root, out=site, config=Config()).site or {})["texts_read"] == 3
    corpus_repo.commit({"corpus/beta.md": "# Beta\n\nBeta words, edited.\n"})
    stats = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert stats["texts_read"] == 2  # the version gone and the one come
    assert "edited" in (site / "words.txt").read_text(encoding="utf-8").split()
    _assert_same_site(site, _cold_site(corpus_repo, tmp_path))


@pytest.mark.parametrize("damage", ["edited", "cut short", "swapped"])
def test_kept_word_counts_not_the_ones_written_are_counted_afresh(
    corpus_repo: CorpusRepo, tmp_path: Path, damage: str
) -> None:
    """The manifest names the word counts' digest: counts edited, cut short or left by another build are
    not updated but counted again from every text."""
    corpus_repo.commit({"corpus/a.md": "# Alpha\n\nAlpha words.\n", "corpus/b.md": "# Beta\n\nBeta words.\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    earlier = (site / TEXTS_FILE).read_bytes()
    corpus_repo.commit({"corpus/a.md": "# Alpha\n\nAlpha words, again.\n"})
    build(corpus_repo.root, out=site, config=Config())
    if damage == "edited":  # a count no text holds
        kept = json.loads((site / TEXTS_FILE).read_text(encoding="utf-8"))
        kept["counts"]["keptword"] = 1000
        (site / TEXTS_FILE).write_text(json.dumps(kept), encoding="utf-8")
    elif damage == "cut short":
        (site / TEXTS_FILE).write_bytes(earlier[:50])
    else:  # the counts of the commit before, well formed: "again" missing
        (site / TEXTS_FILE).write_bytes(earlier)
    corpus_repo.commit({"corpus/b.md": "# Beta\n\nBeta words, edited.\n"})
    stats = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert stats["texts_read"] == 2  # both versions at the built commit, afresh
    words = (site / "words.txt").read_text(encoding="utf-8").split()
    assert "keptword" not in words and "again" in words and "edited" in words
    _assert_same_site(site, _cold_site(corpus_repo, tmp_path))


# Some texts hold something shaped like a citation, which the citations page then checks.
def test_the_home_page_keeps_the_sections_of_folders_whose_documents_did_not_change(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    corpus_repo.commit({"corpus/east/a.md": "# East\n", "corpus/west/b.md": "# West\n", "corpus/west/c.md": "# C\n"})
    site = tmp_path / "site"
    assert (build(corpus_repo.root, out=site, config=Config()).site or {})["rows_built"] == 3
    corpus_repo.commit({"corpus/west/b.md": "# West, edited\n"})
    stats = build(corpus_repo.root, out=site, config=Config()).site or {}
    # West's rows alone are built (a section is rendered from its rows): east's section is the kept one.
    assert (stats["rows_built"], stats["folders_keyed"]) == (2, 1)
    assert "West, edited" in (site / "index.html").read_text(encoding="utf-8")
    _assert_same_site(site, _cold_site(corpus_repo, tmp_path))


@pytest.mark.parametrize("damage", ["edited", "cut short", "deleted", "swapped"])
def test_a_home_file_not_the_one_written_is_not_read(corpus_repo: CorpusRepo, tmp_path: Path, damage: str) -> None:
    """The manifest names the home file's digest: a file edited, cut short, gone or left by another
    build is not read, and every section and folder figure is made again from the rows."""
    corpus_repo.commit({"corpus/east/a.md": "# East\n", "corpus/west/b.md": "# West\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    earlier = (site / HOME_FILE).read_bytes()
    corpus_repo.commit({"corpus/east/a2.md": "# East two\n"})
    build(corpus_repo.root, out=site, config=Config())
    home = site / HOME_FILE
    kept = json.loads(home.read_text(encoding="utf-8"))
    if damage == "edited":  # a mark no rendering writes, and a folder's count made up
        kept["sections"]["index.html\0corpus/east"][1] += "<!-- kept -->"
        kept["folders"]["corpus/west"][1] = 7
        home.write_text(json.dumps(kept), encoding="utf-8")
    elif damage == "cut short":
        home.write_bytes(home.read_bytes()[:100])
    elif damage == "deleted":
        home.unlink()
    else:  # the previous build's file, whole and well formed: east's figures are one document short
        home.write_bytes(earlier)
    # An edit that keeps every title: the other folders' rows would be carried from a trusted file.
    corpus_repo.commit({"corpus/west/b.md": "# West\n\nMore words.\n"})
    stats = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert (stats["rows_built"], stats["folders_keyed"]) == (3, 2)
    page = (site / "index.html").read_text(encoding="utf-8")
    assert "<!-- kept -->" not in page and "3 documents" in page and "East two" in page
    _assert_same_site(site, _cold_site(corpus_repo, tmp_path))


def _cold_site(repo: CorpusRepo, tmp_path: Path) -> Path:
    cold = tmp_path / f"cold-{len(list(tmp_path.glob('cold-*')))}"
    build(repo.root, out=cold, config=Config())
    return cold


TEXT = st.tuples(st.text(alphabet=st.sampled_from(list("abcÉé İ\n1_-")), max_size=40), st.booleans()).map(
    lambda drawn: drawn[0] + (" see a.md@0123abcd#L1" if drawn[1] else "")
)
TEXTS = st.dictionaries(st.sampled_from([f"v{n}" for n in range(8)]), TEXT, min_size=8, max_size=8)


@settings(max_examples=150, deadline=None)
@given(texts=TEXTS, builds=st.lists(st.sets(st.sampled_from([f"v{n}" for n in range(8)])), min_size=1, max_size=6))
def test_kept_figures_updated_build_by_build_equal_figures_counted_afresh(
    texts: dict[str, str], builds: list[set[str]], tmp_path_factory: object
) -> None:
    ids = {key: n for n, key in enumerate(sorted(texts))}
    by_id = {n: texts[key] for key, n in ids.items()}
    file = Path(tmp_path_factory.mktemp("figures")) / TEXTS_FILE  # type: ignore[attr-defined]
    for wanted in builds:
        updated = head_texts(HeadTexts.load(file), wanted, ids, by_id.__getitem__)
        updated.save(file)
        fresh = head_texts(None, wanted, ids, by_id.__getitem__)
        assert updated == fresh
        assert sorted(updated.counts, key=lambda w: (-updated.counts[w], w)) == vocabulary(
            texts[key] for key in sorted(wanted)
        )


@settings(max_examples=5, deadline=None)
@example(steps=[("move", 0, "archive"), ("remake", 0, "corpus"), ("grow", 0, "corpus"), ("move", 0, "corpus/deep")])
@example(steps=[("move", 0, "corpus/deep")])  # one blob, two paths: the version page names the first
@given(steps=STEPS)
def test_builds_along_moves_in_and_out_of_the_roots_give_the_cold_site(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, str]]
) -> None:
    """Where a moved document leads is part of its history entry's inputs: kept exactly while it holds."""
    repo = CorpusRepo(tmp_path_factory.mktemp("moves"))
    site = tmp_path_factory.mktemp("site") / "site"
    commit_history(repo, steps, after_each=lambda: build(repo.root, out=site, config=Config()))
    cold = tmp_path_factory.mktemp("cold") / "site"
    build(repo.root, out=cold, config=Config())
    _assert_same_site(site, cold)


def test_a_one_file_build_reads_for_citations_only_the_citing_and_the_changed_documents(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    files: dict[str, str | bytes | None] = {f"corpus/doc-{n:02}.md": f"# Doc {n}\n\nWords of {n}.\n" for n in range(30)}
    files["corpus/citing.md"] = "# Citing\n\n" + CITING
    corpus_repo.commit(files)
    site = tmp_path / "site"
    cold = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert cold["citation_documents_read"] == 31  # every document, once
    corpus_repo.commit({"corpus/doc-07.md": "# Doc 7\n\nNew words of 7.\n"})
    warm = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert warm["citation_documents_read"] == 2  # the changed one and the one that cites
    corpus_repo.commit({"corpus/doc-08.md": "# Doc 8\n\n" + CITING, "corpus/citing.md": None})
    moved = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert moved["citation_documents_read"] == 1  # the citation moved: the new citing document alone
    cited = json.loads((site / "citations.json").read_text(encoding="utf-8"))["citations"]
    assert [place["file"] for place in cited] == ["corpus/doc-08.md"]


def test_a_title_named_after_a_path_that_once_held_the_version_is_the_cold_sites(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    """A shared title gives way to the name of a path that held the version at any commit: corpus/a/q.md's
    row is titled after corpus/z/p.md, which held the same text, even once it holds another."""
    text = "# Summary\n\nThe same words in two places.\n"
    corpus_repo.commit(
        {
            "corpus/a/q.md": text,
            "corpus/a/r.md": "# Summary\n\nOther words.\n",
            "corpus/b/s.md": "# Summary\n\nMore words.\n",
        }
    )
    site = tmp_path / "site"
    build(corpus_repo.root, out=site, config=Config())
    corpus_repo.commit({"corpus/z/p.md": text})  # built with the next commit: z/p.md holds the text no more
    corpus_repo.commit({"corpus/z/p.md": "# Summary\n\nThe words changed.\n"})
    build(corpus_repo.root, out=site, config=Config())
    _assert_same_site(site, _cold_site(corpus_repo, tmp_path))
