"""The site's manifest is sharded by path (indexer/site/manifest.py): a one-file build writes the few
shards holding a record that changed and the top record, and a manifest whose shards do not match
its top record is never reused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.api import build
from indexer.config import Config
from indexer.site.manifest import MANIFEST, PREVIOUS_REUSED, TABLES, TOP, Manifest
from indexer.site.render import history_shard
from tests.conftest import CorpusRepo


def _docs(n: int) -> dict[str, str | bytes | None]:
    return {f"corpus/f{k % 6}/doc-{k:03}.md": f"# Doc {k}\n\nWords of {k}.\n" for k in range(n)}


def _inodes(folder: Path) -> dict[str, int]:
    return {file.name: os.stat(file).st_ino for file in folder.iterdir()}


def test_a_one_file_build_writes_a_few_shards_of_a_300_document_site(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit(_docs(300))
    site = tmp_path / "site"
    cold = build(corpus_repo.root, out=site, config=Config()).site or {}
    shards = len(list((site / MANIFEST).glob("??.json")))
    assert cold["manifest_shards_written"] == shards > 200  # every shard, where a site is written whole
    before = _inodes(site / MANIFEST)
    corpus_repo.commit({"corpus/f1/doc-007.md": "# Doc 7\n\nNew words of 7.\n"})
    one = build(corpus_repo.root, out=site, config=Config()).site or {}
    assert one["previous_site"] == PREVIOUS_REUSED and one["carry"] == "carried"
    # The edited path's shard (its page, links, stamp, history), its new version's, its diff page's,
    # and its first version's (that page is written again: it links the path's new history page).
    assert one["manifest_shards_written"] == 4
    after = _inodes(site / MANIFEST)
    replaced = sorted(name for name in after if before.get(name) != after[name])
    assert len(replaced) == 5 and "top.json" in replaced  # the top record and the four shards, no other
    assert history_shard("corpus/f1/doc-007.md") + ".json" in replaced
    # Read: every shard the top record names (the build's walks still take every record).
    assert one["manifest_shards_read"] == shards


# -- the manifest alone: saved whole, then updated in place --------------------------------------

KEYS = st.sampled_from([f"corpus/d{n}.md" for n in range(12)] + [f"{n:040x}" for n in range(6)])
VALUES = st.sampled_from(["a", "b", "c"])
RECORDS = st.dictionaries(st.sampled_from([t for t in TABLES if t != "links"]), st.dictionaries(KEYS, VALUES))


def _manifest(records: dict[str, dict[str, str]], links: dict[str, str]) -> Manifest:
    manifest = Manifest("fp", doc_inputs="inputs")
    for table, by_key in records.items():
        getattr(manifest, table).update(by_key)
    manifest.links.update({key: [[url, "doc"]] for key, url in links.items()})
    return manifest


def _tables(manifest: Manifest) -> dict[str, object]:
    return {table: getattr(manifest, table) for table in TABLES}


def _update(live: Path, staged: Path, emptied: list[str]) -> None:
    """What the update in place does with the manifest's files: the shards moved in, the top record last."""
    for file in sorted((staged / MANIFEST).glob("??.json")):
        os.replace(file, live / MANIFEST / file.name)
    os.replace(staged / TOP, live / TOP)
    for shard in emptied:
        (live / MANIFEST / f"{shard}.json").unlink()


@settings(max_examples=60, deadline=None, database=None)
@given(
    old=RECORDS,
    new=RECORDS,
    old_links=st.dictionaries(KEYS, VALUES),
    new_links=st.dictionaries(KEYS, VALUES),
    stop=st.booleans(),
)
def test_an_update_writes_the_shards_of_the_changed_records_alone(
    tmp_path_factory: pytest.TempPathFactory,
    old: dict[str, dict[str, str]],
    new: dict[str, dict[str, str]],
    old_links: dict[str, str],
    new_links: dict[str, str],
    stop: bool,
) -> None:
    work = tmp_path_factory.mktemp("manifest")
    live, staged = work / "live", work / "staged"
    try:
        _manifest(old, old_links).save(live, Manifest(), in_place=False)
        previous, status = Manifest.load(live)
        assert status == PREVIOUS_REUSED and _tables(previous) == _tables(_manifest(old, old_links))
        fresh = _manifest(new, new_links)
        fresh.save(staged, previous, in_place=True)
        changed = {
            history_shard(key)
            for table in TABLES
            for key in getattr(fresh, table).keys() | getattr(previous, table).keys()
            if getattr(fresh, table).get(key) != getattr(previous, table).get(key)
        }
        assert set(fresh.written) | set(fresh.emptied) == changed and not set(fresh.written) & set(fresh.emptied)
        if stop:  # stopped before the top record moved: a shard it names no longer matches it
            for file in sorted((staged / MANIFEST).glob("??.json")):
                os.replace(file, live / MANIFEST / file.name)
            half, status = Manifest.load(live)
            if set(fresh.written) & previous.shards.keys():
                assert status == "ignored: its manifest does not match its seal (edited or cut short)"
            else:  # the shards moved in are new ones, which the previous top record does not name
                assert status == PREVIOUS_REUSED and _tables(half) == _tables(previous)
            return
        _update(live, staged, fresh.emptied)
        loaded, status = Manifest.load(live)
        assert status == PREVIOUS_REUSED and _tables(loaded) == _tables(fresh)
        # The same files as a manifest saved whole.
        whole = work / "whole"
        _manifest(new, new_links).save(whole, Manifest(), in_place=False)
        assert sorted(os.listdir(whole / MANIFEST)) == sorted(os.listdir(live / MANIFEST))
        for name in os.listdir(whole / MANIFEST):
            assert (whole / MANIFEST / name).read_bytes() == (live / MANIFEST / name).read_bytes(), name
    finally:
        shutil.rmtree(work, ignore_errors=True)
