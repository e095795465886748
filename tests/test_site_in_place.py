"""A site built over an earlier one is updated in place: only what changed is written, and an
update stopped half-way is carried to its end by the next build, never left half-done."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from indexer.api import build
from indexer.config import Config
from indexer.errors import UsageError
from indexer.site import builder
from indexer.site.manifest import TOP
from indexer.site.render import doc_page_path
from indexer.state import site_work_folder
from tests.conftest import CorpusRepo
from tests.test_site_incremental import CITING, _site_files


def _corpus(corpus_repo: CorpusRepo, docs: int) -> None:
    files: dict[str, str | bytes | None] = {
        f"corpus/{'east' if n % 2 else 'west'}/doc-{n:03}.md": f"# Doc {n}\n\nThe words of document {n}.\n"
        for n in range(docs)
    }
    files["corpus/citing.md"] = "# Citing\n\n" + CITING.replace("corpus/a.md", "corpus/west/doc-000.md")
    corpus_repo.commit(files)


def _assert_cold_site(corpus_repo: CorpusRepo, site: Path, cold: Path) -> None:
    """The site a cold build gives, but for the search: one base there, the kept base and a delta here."""
    _site(corpus_repo, cold)
    search = ("search-bundles.json", TOP)
    warm, fresh = ({rel: data for rel, data in _site_files(s).items() if rel not in search} for s in (site, cold))
    assert sorted(warm) == sorted(fresh)
    assert [rel for rel in sorted(fresh) if warm[rel] != fresh[rel]] == []


def _site(corpus_repo: CorpusRepo, site: Path) -> dict[str, object]:
    return dict(build(corpus_repo.root, out=site, config=Config()).site or {})


def _inodes(site: Path) -> dict[str, tuple[int, int]]:
    """Each file's inode and link count."""
    found = {}
    for folder, _subfolders, names in os.walk(site):
        for name in names:
            stat = os.stat(os.path.join(folder, name))
            found[os.path.relpath(os.path.join(folder, name), site)] = (stat.st_ino, stat.st_nlink)
    return found


@pytest.mark.parametrize("docs", [20, 60])
def test_a_one_file_build_writes_the_same_few_files_whatever_the_corpus(
    corpus_repo: CorpusRepo, tmp_path: Path, docs: int
) -> None:
    _corpus(corpus_repo, docs)
    site = tmp_path / "site"
    _site(corpus_repo, site)
    before = _inodes(site)
    corpus_repo.commit({"corpus/east/doc-001.md": "# Doc 1\n\nOther words of document 1.\n"})
    stats = _site(corpus_repo, site)
    after = _inodes(site)
    # The page of the changed document, its new version page, its first version's page (which now
    # links its new history page), its history shard, the home, search and citations pages, the top
    # files, the static files and the search delta: not one page more at three times the documents.
    written = sorted(rel for rel in after if rel not in before or before[rel][0] != after[rel][0])
    assert stats["files_written"] == FILES_OF_A_ONE_FILE_BUILD, written
    kept = [rel for rel in before if rel in after and before[rel][0] == after[rel][0]]
    assert doc_page_path("corpus/east/doc-003.md") in kept
    assert doc_page_path("corpus/east/doc-001.md") not in kept
    # Nothing is linked: an unchanged page is the file it was, with no second name.
    assert all(after[rel][1] == 1 for rel in after)
    assert len(kept) >= 2 * docs  # every other document page and version page, untouched
    _assert_cold_site(corpus_repo, site, tmp_path / "cold")


# Counted on the 20-document corpus; the test says it is the same at 60 (the static files are
# most of it: copied every build, as a template change may change them). Of the manifest, its top
# record and four shards: the changed path's, its new version's, its first version's (written again
# for its link to the new history page) and its diff page's.
FILES_OF_A_ONE_FILE_BUILD = (
    len([p for p in (Path(builder.__file__).parents[2] / "site_templates" / "static").rglob("*") if p.is_file()]) + 22
)


def test_an_update_stopped_half_way_is_finished_by_the_next_build(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _corpus(corpus_repo, 20)
    site = tmp_path / "site"
    _site(corpus_repo, site)
    changes: dict[str, str | bytes | None] = {"corpus/east/doc-001.md": "# Doc 1\n\nOther words.\n"}
    corpus_repo.commit({**changes, "corpus/west/doc-002.md": None, "corpus/new.md": "# New\n\nA new one.\n"})
    moves = 0
    real_move = builder._move

    def stopping_move(source: Path, target: Path) -> None:
        nonlocal moves
        moves += 1
        if moves == 6:
            raise KeyboardInterrupt  # as a runner's cancel stops a build
        real_move(source, target)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(builder, "_move", stopping_move)
        with pytest.raises(KeyboardInterrupt):
            _site(corpus_repo, site)
    assert (site_work_folder(site) / builder.JOURNAL).is_file()  # the update is recorded, not lost
    stats = _site(corpus_repo, site)  # finishes the update, then builds on the site it gives
    assert stats["previous_site"] == "reused" and stats["pages_rendered"] == 0
    assert not (site_work_folder(site) / builder.JOURNAL).exists()
    _assert_cold_site(corpus_repo, site, tmp_path / "cold")


def test_a_site_cut_short_in_its_update_without_its_journal_is_rendered_afresh(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    """A CI cache keeps the site folder alone: an update cut short there has lost its journal."""
    _corpus(corpus_repo, 20)
    site = tmp_path / "site"
    _site(corpus_repo, site)
    corpus_repo.commit({"corpus/east/doc-001.md": "# Doc 1\n\nOther words.\n", "corpus/west/doc-002.md": None})
    real_move, moves = builder._move, []

    def stopping_move(source: Path, target: Path) -> None:
        moves.append(target)
        if len(moves) == 6:
            raise KeyboardInterrupt
        real_move(source, target)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(builder, "_move", stopping_move)
        with pytest.raises(KeyboardInterrupt):
            _site(corpus_repo, site)
    (site_work_folder(site) / builder.JOURNAL).unlink()
    corpus_repo.commit({"corpus/east/doc-001.md": "# Doc 1\n\nThe words of document 1.\n"})  # as it was
    stats = _site(corpus_repo, site)
    assert stats["previous_site"] == "ignored: an update of it was cut short"
    assert not (site / builder.UPDATING).exists()
    _assert_cold_site(corpus_repo, site, tmp_path / "cold")


def test_a_build_stopped_before_its_update_leaves_the_site_as_it_was(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _corpus(corpus_repo, 20)
    site = tmp_path / "site"
    _site(corpus_repo, site)
    before = _site_files(site)
    corpus_repo.commit({"corpus/east/doc-001.md": "# Doc 1\n\nOther words.\n", "corpus/west/doc-002.md": None})
    with pytest.MonkeyPatch.context() as patched:

        def stopped(*_args: object) -> None:
            raise KeyboardInterrupt

        patched.setattr(builder._SiteBuilder, "_top_pages", stopped)
        with pytest.raises(KeyboardInterrupt):
            _site(corpus_repo, site)
    assert _site_files(site) == before
    assert not (site_work_folder(site) / builder.JOURNAL).exists()
    assert list(site_work_folder(site).glob("*.tmp")) == []


def test_a_journal_naming_a_path_outside_the_site_is_refused(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    _corpus(corpus_repo, 3)
    site = tmp_path / "site"
    _site(corpus_repo, site)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me", encoding="utf-8")
    journal = {"staged": "1.tmp", "trees": [], "gone": ["../precious.txt"]}
    (site_work_folder(site) / builder.JOURNAL).write_text(json.dumps(journal), encoding="utf-8")
    with pytest.raises(UsageError, match="not the record of a site update"):
        _site(corpus_repo, site)
    assert outside.read_text(encoding="utf-8") == "keep me"
