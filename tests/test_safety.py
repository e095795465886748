"""Never clobber, never crash: pincite writes only where it may, and fails with a message."""

from __future__ import annotations

import errno
import hashlib
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from indexer import build
from indexer.cli.main import main
from indexer.errors import ConfigError, IndexError_, OutputError, RepositoryError, UsageError
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


# --- failures are messages, and leave the previous outputs whole ---------------------------------


@pytest.fixture
def built(small_repo: CorpusRepo, tmp_path: Path) -> tuple[CorpusRepo, Path, Path]:
    """A repository with an index and a site from a first build, and a new commit to build next."""
    index, site = small_repo.root / ".pincite" / "index.sqlite", tmp_path / "site"
    build(small_repo.root, out=site)
    small_repo.commit({"corpus/d3.md": "# Three\n\nNew.\n"})
    return small_repo, index, site


def _no_space(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_disk_full_while_writing_the_index(
    built: tuple[CorpusRepo, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, index, site = built
    before, site_before = _digest(index), _tree_digest(site)
    monkeypatch.setattr("indexer.index.store.replace_durably", _no_space)
    result = _run("build", "--repo", str(repo.root), "--out", str(site))
    assert result.exit_code == OutputError.exit_code, result.output
    assert "no space left" in result.output and "Traceback" not in result.output
    assert _digest(index) == before and _tree_digest(site) == site_before
    assert not list(index.parent.glob(".*.tmp")), "the half-written index is removed"


def test_sqlite_reports_a_full_disk_as_a_message(
    built: tuple[CorpusRepo, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, index, site = built
    before = _digest(index)
    from indexer.index import store

    def full(self: store.IndexWriter, **_kwargs: object) -> int:
        return _sqlite_full()

    monkeypatch.setattr(store.IndexWriter, "add_version", full)
    with pytest.raises(OutputError, match="no space left while writing the index"):
        build(repo.root, out=site)
    assert _digest(index) == before


def _sqlite_full() -> int:
    """A real SQLITE_FULL error, as SQLite raises it when the disk fills (a one-page database full)."""
    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA max_page_count = 1")
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,))
    raise AssertionError("SQLite accepted the row")  # pragma: no cover


def test_disk_full_while_writing_the_site(
    built: tuple[CorpusRepo, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _index, site = built
    site_before = _tree_digest(site)
    monkeypatch.setattr("indexer.site.manifest.Manifest.save", lambda *_args: _no_space())
    result = _run("build", "--repo", str(repo.root), "--out", str(site))
    assert result.exit_code == OutputError.exit_code, result.output
    assert "no space left while writing the site" in result.output and "Traceback" not in result.output
    assert _tree_digest(site) == site_before
    assert not list(site.parent.glob(".site.*.tmp")), "the half-written site is removed"


def test_read_only_index_folder(built: tuple[CorpusRepo, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests run as root here, where chmod does not stop writes: inject what the kernel says instead.
    repo, index, _site = built
    before = _digest(index)
    real_open = open

    def read_only(file: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if "w" in mode:
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("indexer.locks.open", read_only, raising=False)
    result = _run("build", "--repo", str(repo.root), "--no-site")
    assert result.exit_code == OutputError.exit_code, result.output
    assert "not allowed to write the index" in result.output and "Traceback" not in result.output
    assert _digest(index) == before


def test_index_option_naming_a_folder_fails_before_any_work(built: tuple[CorpusRepo, Path, Path]) -> None:
    repo, _index, site = built
    folder = repo.root.parent / "a-folder"
    folder.mkdir()
    site_before = _tree_digest(site)
    result = _run("build", "--repo", str(repo.root), "--out", str(site), "--index", str(folder))
    assert result.exit_code == IndexError_.exit_code, result.output
    assert "is a folder" in result.output and "Traceback" not in result.output
    assert list(folder.iterdir()) == [] and _tree_digest(site) == site_before


def test_search_limit_out_of_range_is_a_usage_error(built: tuple[CorpusRepo, Path, Path]) -> None:
    repo, _index, _site = built
    result = _run("search", "seven", "--repo", str(repo.root), "--limit", "99999999999999999999999")
    assert result.exit_code == UsageError.exit_code, result.output
    assert "limit must be between 1 and 1000" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("foreign", ["text", "sqlite", "folder"])
def test_search_in_a_file_that_is_not_an_index_never_says_delete_it(
    built: tuple[CorpusRepo, Path, Path], tmp_path: Path, foreign: str
) -> None:
    repo, _index, _site = built
    target = tmp_path / "passwd"
    if foreign == "text":
        target.write_text("root:x:0:0:root:/root:/bin/bash\n")
    elif foreign == "sqlite":
        sqlite3.connect(target).execute("CREATE TABLE users (name TEXT)").connection.close()
    else:
        target.mkdir()
    result = _run("search", "seven", "--repo", str(repo.root), "--index", str(target))
    assert result.exit_code == IndexError_.exit_code, result.output
    assert "not a pincite index" in result.output or "is a folder" in result.output
    assert "delete" not in result.output and "Traceback" not in result.output
    assert target.exists()


# --- templates -------------------------------------------------------------------------------


def test_a_template_cannot_run_a_command(small_repo: CorpusRepo, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = f"{{{{ cycler.__init__.__globals__.os.system('touch {marker}') }}}}"
    small_repo.commit(
        {
            "pincite.toml": 'template_dir = "templates"\n',
            "templates/home.html": "{% extends 'base.html' %}{% block content %}" + payload + "{% endblock %}",
        }
    )
    result = _run("build", "--repo", str(small_repo.root), "--out", str(tmp_path / "site"))
    assert not marker.exists(), "the template ran a shell command"
    assert result.exit_code == ConfigError.exit_code, result.output
    assert "unsafe" in result.output and "Traceback" not in result.output


def test_sandboxed_templates_still_override_the_shipped_ones(small_repo: CorpusRepo, tmp_path: Path) -> None:
    small_repo.commit(
        {
            "pincite.toml": 'template_dir = "templates"\n',
            "templates/home.html": "{% extends 'base.html' %}{% block content %}<h1>{{ 'ours' | upper }}</h1>"
            "{% endblock %}",
        }
    )
    build(small_repo.root, out=tmp_path / "site")
    assert "<h1>OURS</h1>" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


# --- roots -----------------------------------------------------------------------------------


def test_dot_root_indexes_the_whole_repository(small_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    small_repo.commit({"notes.md": "# Notes\n\nAt the top.\n"})
    monkeypatch.setenv("PINCITE_ROOTS", ".")
    summary = build(small_repo.root, site=False)
    assert summary.documents == 3 and not summary.skipped


@pytest.mark.parametrize("root", ["/", "/etc", "../elsewhere", "corpus/../..", "C:\\\\corpus"])
def test_absolute_or_escaping_roots_are_refused(
    small_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch, root: str
) -> None:
    monkeypatch.setenv("PINCITE_ROOTS", root)
    result = _run("build", "--repo", str(small_repo.root), "--no-site")
    assert result.exit_code == ConfigError.exit_code, result.output
    assert "`roots`" in result.output and "Traceback" not in result.output and "pathspec" not in result.output


def test_roots_are_normalised(small_repo: CorpusRepo) -> None:
    small_repo.commit({"pincite.toml": 'roots = ["./corpus/", "corpus/../corpus"]\n'})
    assert build(small_repo.root, site=False).documents == 2


# --- builds that index nothing -----------------------------------------------------------------


def test_a_build_that_indexes_nothing_fails_and_says_why(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({f"corpus/scan{n}.png": b"\x89PNG\x00" + bytes([n]) for n in range(3)})
    result = _run("build", "--repo", str(corpus_repo.root), "--no-site")
    assert result.exit_code == RepositoryError.exit_code, result.output
    assert "no document indexed (skipped: 3 .png)" in result.output
    assert "all 3 .png file(s) were skipped: binary" in result.output


def test_a_whole_type_skipped_is_a_warning_after_the_skipped_list(small_repo: CorpusRepo) -> None:
    small_repo.commit(
        {"corpus/a.png": b"\x89PNG\x00a", "corpus/b.png": b"\x89PNG\x00b", "corpus/bad.md": b"\xff\xfe bytes"}
    )
    result = _run("build", "--repo", str(small_repo.root), "--no-site")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    warning = next((line for line in lines if line.startswith("warning: all 2 .png file(s) were skipped: binary")), "")
    assert warning in lines
    assert lines.index(warning) > max(i for i, line in enumerate(lines) if line.startswith("skipped:"))
    assert not any("all" in line and ".md" in line for line in lines if line.startswith("warning:")), "one .md skipped"


# --- messages name the right file --------------------------------------------------------------


def test_one_bad_blob_under_two_paths_names_each_path_once(small_repo: CorpusRepo) -> None:
    corrupt = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ngarbage"
    small_repo.commit({"corpus/a/one.pdf": corrupt, "corpus/b/two.pdf": corrupt})
    result = _run("build", "--repo", str(small_repo.root), "--no-site")
    skipped = sorted(line for line in result.output.splitlines() if line.startswith("skipped:"))
    assert len(skipped) == 2, result.output
    assert skipped[0].startswith("skipped: corpus/a/one.pdf: not a readable PDF")
    assert skipped[1].startswith("skipped: corpus/b/two.pdf: not a readable PDF")
    assert not any("one.pdf" in line and "two.pdf" in line for line in skipped), skipped


# --- failures are remembered -------------------------------------------------------------------

CORRUPT_PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ngarbage"


def test_a_failure_is_not_extracted_again_until_something_changes(
    small_repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_repo.commit({"corpus/bad.pdf": CORRUPT_PDF})
    first = build(small_repo.root, site=False)
    assert first.extracted == 3 and [s.path for s in first.skipped] == ["corpus/bad.pdf"]

    small_repo.commit({"corpus/d3.md": "# Three\n"})
    again = build(small_repo.root, site=False)
    assert (again.extracted, again.failures_reused) == (1, 1)
    assert [(s.path, s.reason.split(" (")[0]) for s in again.skipped] == [("corpus/bad.pdf", "not a readable PDF")]

    assert build(small_repo.root, site=False, retry_skipped=True).extracted == 1
    small_repo.commit({"pincite.toml": "pdf_max_pages = 10\n"})
    assert build(small_repo.root, site=False).extracted == 1, "other limits: tried again"
    monkeypatch.setattr("indexer.extract.pdf.VERSION", 999)
    assert build(small_repo.root, site=False).extracted == 1, "another extractor identity: tried again"
    assert build(small_repo.root, site=False).extracted == 0


def test_the_summary_says_failures_were_not_retried(small_repo: CorpusRepo) -> None:
    small_repo.commit({"corpus/bad.pdf": CORRUPT_PDF})
    build(small_repo.root, site=False)
    result = _run("build", "--repo", str(small_repo.root), "--no-site")
    assert "1 known to fail: not retried, --retry-skipped retries them" in result.output, result.output
    assert "--retry-skipped" in _run("build", "--help").output


# --- the network -------------------------------------------------------------------------------


def test_no_command_but_snapshot_touches_the_network(
    small_repo: CorpusRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    attempts: list[object] = []

    def refuse(*args: object, **_kwargs: object) -> None:
        attempts.append(args)
        raise OSError("network use outside `pincite snapshot`")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    head = small_repo.head()
    note = tmp_path / "note.md"
    note.write_text(f'"Retention is seven years." (corpus/d1.md@{head}#L3)\n', encoding="utf-8")
    repo = ["--repo", str(small_repo.root)]
    for args in (
        ["build", "--out", str(tmp_path / "site")],
        ["search", "retention"],
        ["cite", "corpus/d1.md", "--lines", "3"],
        ["resolve", f"corpus/d1.md@{head}#L3"],
        ["verify", f"corpus/d1.md@{head}#L3"],
        ["check", str(note)],
        ["locate", "Retention is seven years."],
        ["doctor"],
    ):
        result = _run(*args, *repo)
        assert result.exit_code == 0, (args, result.output)
    assert attempts == []
