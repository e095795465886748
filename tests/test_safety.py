"""Never clobber, never crash: pincite writes only where it may, and fails with a message."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from indexer import build
from indexer.cli.main import main
from indexer.errors import ConfigError, IndexError_, UsageError
from tests.conftest import CorpusRepo


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): _digest(p) for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def small_repo(corpus_repo: CorpusRepo) -> CorpusRepo:
    corpus_repo.commit({"corpus/d1.md": "# One\n\nRetention is seven years.\n", "corpus/d2.md": "# Two\n\nMore.\n"})
    return corpus_repo


# --- the index path ---------------------------------------------------------------------------


def test_index_option_refuses_to_overwrite_a_document(small_repo: CorpusRepo) -> None:
    document = small_repo.root / "corpus" / "d1.md"
    before = document.read_bytes()
    result = _run("build", "--repo", str(small_repo.root), "--no-site", "--index", str(document))
    assert result.exit_code == IndexError_.exit_code, result.output
    assert "is not a pincite index" in result.output and "Traceback" not in result.output
    assert document.read_bytes() == before


def test_index_path_may_replace_an_earlier_index_or_an_empty_file(small_repo: CorpusRepo, tmp_path: Path) -> None:
    target = tmp_path / "empty.sqlite"
    target.touch()
    build(small_repo.root, index_path=target, site=False)
    build(small_repo.root, index_path=target, site=False)  # and again, over the index it wrote
    assert target.read_bytes().startswith(b"SQLite format 3\x00")


def test_another_sqlite_database_is_not_an_index(small_repo: CorpusRepo, tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "app.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.close()
    before = _digest(other)
    with pytest.raises(IndexError_, match="not a pincite index"):
        build(small_repo.root, index_path=other, site=False)
    assert _digest(other) == before


@pytest.mark.parametrize(
    ("setting", "value"),
    [("index_path", "../victim.txt"), ("site_dir", "../victim"), ("template_dir", "/etc"), ("index_path", "/tmp/x")],
)
def test_settings_file_cannot_point_outside_the_repository(small_repo: CorpusRepo, setting: str, value: str) -> None:
    victim = small_repo.root.parent / "victim.txt"
    victim.write_text("keep me\n")
    small_repo.commit({"pincite.toml": f'{setting} = "{value}"\n'})
    with pytest.raises(ConfigError, match=f"{setting} = .*outside the repository"):
        build(small_repo.root, site=False)
    assert victim.read_text() == "keep me\n"


def test_a_symlink_inside_the_repository_does_not_lead_out(small_repo: CorpusRepo) -> None:
    (small_repo.root / "out").symlink_to(small_repo.root.parent)
    small_repo.commit({"pincite.toml": 'index_path = "out/victim.txt"\n'})
    with pytest.raises(ConfigError, match="outside the repository"):
        build(small_repo.root, site=False)


def test_the_command_line_may_write_outside_the_repository(
    small_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_repo.commit({"pincite.toml": 'index_path = "../elsewhere.sqlite"\n'})
    explicit = tmp_path / "explicit.sqlite"
    assert build(small_repo.root, index_path=explicit, site=False).documents == 2
    # The file's setting is still refused when nothing overrides it, but an environment variable does.
    monkeypatch.setenv("PINCITE_INDEX_PATH", str(tmp_path / "from-env.sqlite"))
    assert build(small_repo.root, site=False).index_path == str(tmp_path / "from-env.sqlite")


# --- the site folder --------------------------------------------------------------------------


@pytest.mark.parametrize("out", [".", "corpus", "corpus/sub", ".git", ".."])
def test_site_folder_never_replaces_the_repository_or_its_sources(small_repo: CorpusRepo, out: str) -> None:
    before = _tree_digest(small_repo.root / "corpus")
    with pytest.raises(UsageError, match="refusing"):
        build(small_repo.root, out=small_repo.root / out)
    assert _tree_digest(small_repo.root / "corpus") == before
    assert not (small_repo.root / ".pincite" / "index.sqlite").exists(), "refused before any work"


def test_a_manifest_file_that_pincite_did_not_write_is_not_enough(small_repo: CorpusRepo, tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "holiday.jpg").write_bytes(b"\xff\xd8")
    (folder / ".pincite-site.json").write_text("not json")
    with pytest.raises(UsageError, match="not a pincite site"):
        build(small_repo.root, out=folder)
    assert (folder / "holiday.jpg").read_bytes() == b"\xff\xd8"


# --- git status -------------------------------------------------------------------------------


def test_pincite_folder_ignores_itself_in_git(small_repo: CorpusRepo) -> None:
    build(small_repo.root, site=False)
    assert (small_repo.root / ".pincite" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert small_repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_extraction_cache_alone_also_ignores_itself(small_repo: CorpusRepo) -> None:
    from indexer.extract.cache import cached_extract
    from indexer.vcs.repo import GitRepo

    html = "<html><head><title>T</title></head><body><p>Some words to keep.</p></body></html>"
    small_repo.commit({"corpus/page.html": html})
    repo = GitRepo(small_repo.root)
    entry = repo.blob_at(small_repo.head(), "corpus/page.html")
    assert entry is not None
    cached_extract(repo, entry.sha, "corpus/page.html")
    assert any((small_repo.root / ".pincite" / "cache").rglob("*.json"))
    assert small_repo.git("status", "--porcelain", "--untracked-files=all") == ""
