"""A site restored from a CI cache that does not belong to this build never yields a wrong page.

Each test restores (copies) into the site folder a site some other build left — at another
commit, in another repository, under other settings, by another pincite, with an edited
manifest — builds, and compares the result with a cold build of the same commit, file by file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from indexer.api import build
from indexer.config import Config
from indexer.errors import UsageError
from indexer.site.manifest import MANIFEST, TOP
from indexer.site.render import doc_page_path, history_shard
from tests.conftest import CorpusRepo
from tests.test_site_incremental import _assert_same_site

OLD = "# Handbook\n\nRecords are kept for seven years.\n"
NEW = "# Handbook\n\nRecords are kept for ten years.\n"
NOTES = "# Notes\n\nTrains are booked two weeks ahead.\n"


def _site(corpus_repo: CorpusRepo, out: Path, rev: str = "HEAD", config: Config | None = None) -> dict[str, object]:
    summary = build(corpus_repo.root, rev, out=out, index_path=out.with_name(out.name + ".sqlite"), config=config)
    assert summary.site is not None
    return summary.site


def _restore(cached: Path, out: Path) -> None:
    """What actions/cache does: the saved folder, put back where the build writes its site."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(cached, out, symlinks=True)


def _handbook(site: Path) -> str:
    return (site / doc_page_path("corpus/handbook.md")).read_text(encoding="utf-8")


def _two_commits(corpus_repo: CorpusRepo) -> tuple[str, str]:
    old = corpus_repo.commit({"corpus/handbook.md": OLD, "corpus/notes.md": NOTES}, "handbook")
    new = corpus_repo.commit({"corpus/handbook.md": NEW}, "handbook: ten years")
    return old, new


def test_a_site_cached_at_a_later_commit_gives_the_earlier_commits_site(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    old, _new = _two_commits(corpus_repo)
    _site(corpus_repo, tmp_path / "later")  # what a push to main saved: the site and the index
    _restore(tmp_path / "later", tmp_path / "site")
    shutil.copy2(tmp_path / "later.sqlite", tmp_path / "site.sqlite")
    stats = _site(corpus_repo, tmp_path / "site", old)  # a build of an older commit picks it up
    assert stats["previous_site"] == "reused" and stats["pages_reused"] > 0
    assert "seven years" in _handbook(tmp_path / "site") and "ten years" not in _handbook(tmp_path / "site")
    _site(corpus_repo, tmp_path / "cold", old)
    _assert_same_site(tmp_path / "site", tmp_path / "cold")


def test_a_site_cached_from_another_repository_gives_this_repositorys_site(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    # Another repository (a fork, a rewritten branch) of the same paths and texts, and as many
    # commits, whose commits are others: a page may hold its blobs, never its commits.
    other = CorpusRepo(tmp_path / "other")
    other.commit({"corpus/handbook.md": OLD, "corpus/notes.md": NOTES}, "their handbook")
    other.commit({"corpus/handbook.md": NEW}, "their ten years")
    corpus_repo.commit({"corpus/handbook.md": OLD, "corpus/notes.md": NOTES}, "our handbook")
    corpus_repo.commit({"corpus/handbook.md": NEW}, "our ten years")
    _site(other, tmp_path / "foreign")
    _restore(tmp_path / "foreign", tmp_path / "site")
    stats = _site(corpus_repo, tmp_path / "site")
    assert stats["pages_reused"] > 0  # the version pages of the blobs both hold
    site_text = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html"))
    assert "their" not in site_text
    _site(corpus_repo, tmp_path / "cold")
    _assert_same_site(tmp_path / "site", tmp_path / "cold")


def test_a_site_cached_under_other_settings_is_rendered_under_this_builds(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    _two_commits(corpus_repo)
    _site(corpus_repo, tmp_path / "other", config=Config(site_title="Someone else's corpus"))
    _restore(tmp_path / "other", tmp_path / "site")
    stats = _site(corpus_repo, tmp_path / "site", config=Config(site_title="Our corpus"))
    assert stats["pages_reused"] == 0
    assert "Our corpus" in _handbook(tmp_path / "site") and "Someone else" not in _handbook(tmp_path / "site")
    _site(corpus_repo, tmp_path / "cold", config=Config(site_title="Our corpus"))
    _assert_same_site(tmp_path / "site", tmp_path / "cold")


def test_a_site_another_pincite_wrote_is_ignored_whole(
    corpus_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_commits(corpus_repo)
    with monkeypatch.context() as patched:
        patched.setattr("indexer.site.builder.__version__", "0.0.9")
        patched.setattr("indexer.site.manifest.__version__", "0.0.9")
        _site(corpus_repo, tmp_path / "older")
    _restore(tmp_path / "older", tmp_path / "site")
    stats = _site(corpus_repo, tmp_path / "site")
    assert stats["previous_site"] == "ignored: made by pincite 0.0.9, not 0.1.0"
    assert stats["pages_reused"] == 0 and stats["history_reused"] == 0
    _site(corpus_repo, tmp_path / "cold")
    _assert_same_site(tmp_path / "site", tmp_path / "cold")


def test_an_edited_manifest_is_ignored_and_its_false_records_serve_no_page(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    old, _new = _two_commits(corpus_repo)
    _site(corpus_repo, tmp_path / "site", old)
    _site(corpus_repo, tmp_path / "truth")  # what a build at the new commit records for the handbook
    shard = f"{MANIFEST}/{history_shard('corpus/handbook.md')}.json"
    truth = json.loads((tmp_path / "truth" / shard).read_text(encoding="utf-8"))
    # The cached site holds the old handbook page; the shard of its manifest that holds the page is
    # edited to claim the new one's records, which would make the build link the old page into the new site.
    manifest_file = tmp_path / "site" / shard
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    for field in ("docs", "links"):
        manifest[field]["corpus/handbook.md"] = truth[field]["corpus/handbook.md"]
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    stats = _site(corpus_repo, tmp_path / "site")
    assert stats["previous_site"] == "ignored: its manifest does not match its seal (edited or cut short)"
    assert "ten years" in _handbook(tmp_path / "site")
    _site(corpus_repo, tmp_path / "cold")
    _assert_same_site(tmp_path / "site", tmp_path / "cold")


def test_a_misshapen_manifest_is_ignored(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _two_commits(corpus_repo)
    _site(corpus_repo, tmp_path / "site")
    manifest_file = tmp_path / "site" / TOP
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest_file.write_text(json.dumps({**manifest, "shards": ["not", "a", "mapping"]}), encoding="utf-8")
    corpus_repo.commit({"corpus/handbook.md": OLD}, "back to seven years")
    stats = _site(corpus_repo, tmp_path / "site")
    assert str(stats["previous_site"]).startswith("ignored: its manifest")
    _site(corpus_repo, tmp_path / "cold")
    _assert_same_site(tmp_path / "site", tmp_path / "cold")


def test_a_cut_manifest_stops_the_build_before_it_replaces_anything(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    """A folder whose manifest cannot be read is not known to be a site pincite wrote: never replaced."""
    _two_commits(corpus_repo)
    _site(corpus_repo, tmp_path / "site")
    manifest_file = tmp_path / "site" / TOP
    manifest_file.write_text(manifest_file.read_text(encoding="utf-8")[:40], encoding="utf-8")
    before = sorted(p.relative_to(tmp_path / "site") for p in (tmp_path / "site").rglob("*"))
    with pytest.raises(UsageError, match="is not a pincite site"):
        _site(corpus_repo, tmp_path / "site")
    assert sorted(p.relative_to(tmp_path / "site") for p in (tmp_path / "site").rglob("*")) == before
