"""URL snapshots end to end: a real HTTP server on 127.0.0.1, a real git repository.

The server is on a loopback address, so these tests fetch with allow_private=True; the
refusals of the default guard are in test_netguard.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GIT_ENV, CorpusRepo
from hypothesis import given
from hypothesis import strategies as st
from webserver import Route, WebServer

from indexer import __version__
from indexer.api import build
from indexer.citations.drift import verify
from indexer.cli.main import main
from indexer.errors import FetchError, RepositoryError
from indexer.extract.html import decode_html
from indexer.index.store import IndexReader
from indexer.snapshots.guard import FetchLimits
from indexer.snapshots.store import (
    FetchOptions,
    list_snapshots,
    refresh,
    snapshot,
    snapshot_path,
    snapshot_provenance,
)
from indexer.text.citation import Citation
from indexer.vcs.repo import GitRepo

LOCAL = FetchOptions(allow_private=True, limits=FetchLimits(max_bytes=1_000_000, total_timeout=10.0))

PAGE_V1 = """# Data retention

Application logs are kept for 90 days.

Backups are kept for one year and then destroyed.

Access to backups needs two people.
"""
PAGE_V2 = PAGE_V1.replace("kept for 90 days", "kept for 30 days")


pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.fixture
def repo(corpus_repo: CorpusRepo) -> CorpusRepo:
    corpus_repo.commit({"corpus/readme.md": "# Corpus\n\nSome text.\n"}, message="start")
    return corpus_repo


def tracked(repo: CorpusRepo) -> list[str]:
    return repo.git("ls-files").split()


def files_under(root: Path, folder: str) -> list[str]:
    base = root / folder
    return sorted(str(p.relative_to(root)) for p in base.rglob("*") if p.is_file()) if base.exists() else []


# -- storing and committing ---------------------------------------------------------------------
def test_a_page_is_stored_exactly_and_committed_with_its_metadata(web: WebServer, repo: CorpusRepo) -> None:
    body = PAGE_V1.encode()
    web.routes["/policies/retention.md"] = Route(
        body, headers={"Content-Type": "text/markdown; charset=utf-8", "ETag": '"abc"', "Content-Language": "en"}
    )
    url = web.url("/policies/retention.md#logs")
    before = repo.head()
    [result] = snapshot([url], repo.root, options=LOCAL)

    assert result.status == "new" and result.commit == repo.head()
    path = result.path
    assert path == f"snapshots/127.0.0.1_{web.port}/policies-retention-{path[-11:-3]}.md"
    assert path == snapshot_path(url, "md")
    assert (repo.root / path).read_bytes() == body
    assert repo.git("show", f"HEAD:{path}").encode() == body
    meta = json.loads(repo.git("show", f"HEAD:{path}.meta.json"))
    assert meta["url"] == url and meta["final_url"] == web.url("/policies/retention.md")
    assert meta["status"] == 200 and meta["content_type"] == "text/markdown" and meta["charset"] == "utf-8"
    assert meta["size"] == len(body) and meta["sha256"] == result.sha256
    assert meta["etag"] == '"abc"' and meta["content_language"] == "en" and meta["last_modified"] is None
    assert meta["resolved_ip"] == "127.0.0.1" and meta["pincite_version"] == __version__
    assert meta["extractor"].startswith("text/")
    assert meta["fetched_at"].endswith("Z")
    message = repo.git("log", "-1", "--format=%B")
    assert url in message and result.sha256 in message
    changed = repo.git("diff", "--name-only", before, "HEAD").split()
    assert changed == [path, path + ".meta.json"]
    assert repo.git("status", "--porcelain") == ""


def test_the_commit_holds_only_the_snapshot_not_staged_work(web: WebServer, repo: CorpusRepo) -> None:
    repo.write("corpus/draft.md", "# Draft\n")
    repo.git("add", "corpus/draft.md")
    url = web.page("/a.txt", "plain words\n", "text/plain")
    [result] = snapshot([url], repo.root, options=LOCAL)
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == [result.path, result.path + ".meta.json"]
    assert "A  corpus/draft.md" in repo.git("status", "--porcelain")


def test_attributes_cannot_change_the_committed_bytes(web: WebServer, repo: CorpusRepo) -> None:
    repo.commit({".gitattributes": "* text=auto eol=lf\n"})
    body = b"line one\r\nline two\r\n"
    url = web.page("/crlf.txt", body, "text/plain")
    [result] = snapshot([url], repo.root, options=LOCAL)
    blob = repo.git("rev-parse", f"HEAD:{result.path}").strip()
    assert GitRepo(repo.root).read_blob(blob) == body


def test_urls_differing_only_by_fragment_are_one_snapshot(web: WebServer, repo: CorpusRepo) -> None:
    url = web.page("/page.html", "<html><body><p>One page.</p></body></html>")
    assert snapshot_path(url + "#a", "html") == snapshot_path(url + "#b", "html") == snapshot_path(url, "html")
    results = snapshot([url + "#a", url + "#b"], repo.root, options=LOCAL)
    assert len(results) == 1 and len(web.requests) == 1
    again = snapshot([url + "#c"], repo.root, options=LOCAL)
    assert again[0].status == "unchanged" and again[0].path == results[0].path and again[0].commit is None


def test_a_snapshot_works_from_a_repository_without_commits(web: WebServer, corpus_repo: CorpusRepo) -> None:
    url = web.page("/first.md", "# First\n", "text/markdown")
    [result] = snapshot([url], corpus_repo.root, options=LOCAL)
    assert tracked(corpus_repo) == [result.path, result.path + ".meta.json"]


def test_no_commit_writes_the_files_only(web: WebServer, repo: CorpusRepo) -> None:
    before = repo.head()
    url = web.page("/nc.md", "# Not yet\n", "text/markdown")
    [result] = snapshot([url], repo.root, commit=False, options=LOCAL)
    assert result.commit is None and repo.head() == before
    assert (repo.root / result.path).read_text() == "# Not yet\n"


@given(st.text(alphabet="abcXYZ019/._-~%20é", max_size=40))
def test_snapshot_paths_are_stable_and_readable(path: str) -> None:
    url = "https://Docs.Example.org/" + path
    try:
        first = snapshot_path(url, "html")
    except Exception:  # not a valid URL at all: nothing to check
        return
    assert first == snapshot_path(url + "#frag", "html")
    parts = first.split("/")
    assert parts[0] == "snapshots" and parts[1] == "docs.example.org" and len(parts) == 3
    name = parts[2]
    assert name.endswith(".html") and len(name) <= 60 + 1 + 8 + 5
    assert all(c.isascii() and (c.isalnum() or c in "-._") for c in name)


# -- failures leave nothing behind --------------------------------------------------------------------
@pytest.mark.parametrize("status", [404, 500])
def test_a_failed_fetch_stores_and_commits_nothing(web: WebServer, repo: CorpusRepo, status: int) -> None:
    web.routes["/gone"] = Route(b"<p>error</p>", status)
    before = repo.head()
    with pytest.raises(FetchError, match=f"HTTP {status}"):
        snapshot([web.url("/gone")], repo.root, options=LOCAL)
    assert repo.head() == before and files_under(repo.root, "snapshots") == []


def test_one_failing_url_stores_none_of_the_others(web: WebServer, repo: CorpusRepo) -> None:
    good = web.page("/good.md", "# Good\n", "text/markdown")
    before = repo.head()
    with pytest.raises(FetchError):
        snapshot([good, web.url("/missing")], repo.root, options=LOCAL)
    assert repo.head() == before and files_under(repo.root, "snapshots") == []


def test_a_body_cut_short_stores_nothing(web: WebServer, repo: CorpusRepo) -> None:
    url = web.page("/cut.md", b"# Half a page", "text/markdown", declared_length=10_000)
    before = repo.head()
    with pytest.raises(FetchError):
        snapshot([url], repo.root, options=LOCAL)
    assert repo.head() == before and files_under(repo.root, "snapshots") == []


def test_a_failed_commit_puts_the_files_back(web: WebServer, repo: CorpusRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    url = web.page("/p.md", "# v1\n", "text/markdown")
    [first] = snapshot([url], repo.root, options=LOCAL)
    web.page("/p.md", "# v2\n", "text/markdown")
    for name in GIT_ENV:
        if name.startswith("GIT_COMMITTER") or name.startswith("GIT_AUTHOR"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    repo.git("config", "user.useConfigOnly", "true")
    before = repo.head()
    with pytest.raises(RepositoryError):
        snapshot([url], repo.root, options=LOCAL)
    assert repo.head() == before
    assert (repo.root / first.path).read_text() == "# v1\n"
    assert repo.git("status", "--porcelain") == ""


def test_an_interrupted_snapshot_leaves_no_file_and_no_commit(web: WebServer, repo: CorpusRepo) -> None:
    url = web.page("/slow.md", b"# Slow\n" + b"x" * 400, "text/markdown", trickle=0.05)
    before = repo.head()
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.Popen(
        [sys.executable, "-m", "indexer.cli.main", "snapshot", "--allow-private", "--repo", str(repo.root), url],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    for _ in range(200):  # the request arrives, then the body trickles for 20 s
        if web.requests:
            break
        time.sleep(0.05)
    assert web.requests, "the fetch never started"
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode != 0
    assert repo.head() == before and files_under(repo.root, "snapshots") == []
    assert repo.git("status", "--porcelain") == ""


def test_local_changes_to_a_snapshot_are_not_overwritten(web: WebServer, repo: CorpusRepo) -> None:
    url = web.page("/mine.md", "# v1\n", "text/markdown")
    [first] = snapshot([url], repo.root, options=LOCAL)
    (repo.root / first.path).write_text("# my edit\n")
    web.page("/mine.md", "# v2\n", "text/markdown")
    other = web.page("/other.md", "# other\n", "text/markdown")
    before = repo.head()
    with pytest.raises(RepositoryError, match="uncommitted changes"):
        snapshot([other, url], repo.root, options=LOCAL)
    assert (repo.root / first.path).read_text() == "# my edit\n"
    assert repo.head() == before and not (repo.root / snapshot_path(other, "md")).exists()


# -- charsets ---------------------------------------------------------------------------------------
def test_a_non_utf8_page_that_declares_its_charset_is_kept_byte_for_byte(web: WebServer, repo: CorpusRepo) -> None:
    html = (
        '<html><head><meta charset="windows-1252"><title>Caf\xe9</title></head>'
        "<body><p>Men\xfc: cr\xe8me br\xfbl\xe9e</p></body></html>"
    )
    body = html.encode("cp1252")
    url = web.page("/cafe.html", body, "text/html; charset=windows-1252")
    [result] = snapshot([url], repo.root, options=LOCAL)
    assert (repo.root / result.path).read_bytes() == body
    meta = snapshot_provenance(repo.root, repo.head(), result.path)
    assert meta is not None and meta.charset == "windows-1252"


@pytest.mark.parametrize(
    ("content_type", "body", "ext"),
    [
        ("text/plain; charset=iso-8859-1", "Prix: cr\xe8me br\xfbl\xe9e\n".encode("latin-1"), "txt"),
        ("text/html; charset=iso-8859-1", "<p>cr\xe8me br\xfbl\xe9e</p>".encode("latin-1"), "html"),
    ],
)
def test_a_charset_named_only_in_the_header_is_refused(
    web: WebServer, repo: CorpusRepo, content_type: str, body: bytes, ext: str
) -> None:
    url = web.page(f"/latin.{ext}", body, content_type)
    before = repo.head()
    with pytest.raises(FetchError, match="iso-8859-1"):
        snapshot([url], repo.root, options=LOCAL)
    assert repo.head() == before and files_under(repo.root, "snapshots") == []


def test_a_header_charset_that_contradicts_the_page_is_refused(web: WebServer, repo: CorpusRepo) -> None:
    body = '<meta charset="windows-1252"><p>cr\xe8me</p>'.encode("cp1252")
    url = web.page("/conflict.html", body, "text/html; charset=utf-8")
    with pytest.raises(FetchError, match="utf-8"):
        snapshot([url], repo.root, options=LOCAL)
    assert files_under(repo.root, "snapshots") == []


def test_latin1_read_as_browsers_do_agrees_with_the_extractor(web: WebServer, repo: CorpusRepo) -> None:
    body = b'<meta charset="iso-8859-1"><p>na\xefve \x93quotes\x94</p>'
    url = web.page("/latin.html", body, "text/html; charset=ISO-8859-1")
    [result] = snapshot([url], repo.root, options=LOCAL)
    assert (repo.root / result.path).read_bytes() == body


@pytest.mark.parametrize(
    ("label", "codec", "text"),
    [
        ("iso-8859-9", "cp1254", "G\u00fcn\u011f \u20ac 5"),  # 0x80 is the euro sign, as in windows-1254
        ("latin1", "cp1252", "na\u00efve \u201cquotes\u201d"),
        ("unicode-1-1-utf-8", "utf-8", "caf\u00e9 \u2014 ok"),
    ],
)
def test_the_snapshot_and_the_html_extractor_read_charset_labels_alike(
    web: WebServer, repo: CorpusRepo, label: str, codec: str, text: str
) -> None:
    body = f'<meta charset="{label}"><p>{text}</p>'.encode(codec)
    url = web.page(f"/{label}.html", body, f"text/html; charset={label}")
    [result] = snapshot([url], repo.root, options=LOCAL)
    assert (repo.root / result.path).read_bytes() == body
    assert text in decode_html(body, result.path)[0]


def test_utf7_is_never_honoured(web: WebServer, repo: CorpusRepo) -> None:
    body = b'<meta charset="utf-7"><p>+ADw-script+AD4-</p>'
    url = web.page("/seven.html", body, "text/html; charset=utf-7")
    with pytest.raises(FetchError, match="utf-7"):
        snapshot([url], repo.root, options=LOCAL)
    assert files_under(repo.root, "snapshots") == []


def test_a_utf8_page_with_a_bom_and_a_stale_header_is_kept(web: WebServer, repo: CorpusRepo) -> None:
    body = "\ufeff# Caf\xe9\n".encode()
    url = web.page("/bom.md", body, "text/markdown; charset=iso-8859-1")
    [result] = snapshot([url], repo.root, options=LOCAL)
    assert (repo.root / result.path).read_bytes() == body


# -- provenance, build, refresh and verify -----------------------------------------------------------
def test_provenance_names_the_url_and_fetch_time(web: WebServer, repo: CorpusRepo) -> None:
    url = web.page("/prov.md", "# Provenance\n", "text/markdown")
    [result] = snapshot([url], repo.root, options=LOCAL)
    meta = snapshot_provenance(repo.root, repo.head(), result.path)
    assert meta is not None and meta.url == url and meta.fetched_at and meta.path == result.path
    assert snapshot_provenance(repo.root, repo.head(), "corpus/readme.md") is None
    assert snapshot_provenance(repo.root, repo.head(), result.path + ".meta.json") is None
    assert [m.url for m in list_snapshots(repo.root)] == [url]


def test_snapshot_refresh_and_verify_end_to_end(web: WebServer, repo: CorpusRepo, tmp_path: Path) -> None:
    web.page("/retention.md", PAGE_V1, "text/markdown; charset=utf-8")
    url = web.url("/retention.md")
    [first] = snapshot([url], repo.root, options=LOCAL)
    pinned = repo.head()

    summary = build(repo.root, index_path=tmp_path / "index.sqlite", site=False)
    reader = IndexReader(tmp_path / "index.sqlite")
    blob = repo.git("rev-parse", f"HEAD:{first.path}").strip()
    version = reader.version_by_blob(blob)
    assert version is not None and version.source_class == "snapshot" and version.text == PAGE_V1
    assert first.path + ".meta.json" not in [s.path for s in summary.skipped]
    reader.close()

    git = GitRepo(repo.root)
    logs = Citation(commit=pinned, path=first.path, lines=(3, 3))
    backups = Citation(commit=pinned, path=first.path, lines=(5, 5))
    assert verify(logs, git).status == "verified"

    web.page("/retention.md", PAGE_V2, "text/markdown; charset=utf-8")
    [refreshed] = refresh([url], repo.root, options=LOCAL)
    assert refreshed.status == "changed" and refreshed.path == first.path and refreshed.commit == repo.head()
    assert refreshed.diffstat == (1, 1)
    assert (repo.root / first.path).read_text() == PAGE_V2

    drifted = verify(logs, GitRepo(repo.root))
    assert drifted.status == "drifted"
    expected = repo.git("diff", "-U0", pinned, "HEAD", "--", first.path)
    assert [h.header for h in drifted.hunks] == ["@@ -3,1 +3,1 @@"]
    assert "@@ -3 +3 @@" in expected and drifted.hunks[0].lines == (
        "-Application logs are kept for 90 days.",
        "+Application logs are kept for 30 days.",
    )
    assert verify(backups, GitRepo(repo.root)).status == "verified"


def test_resolve_and_verify_show_where_a_snapshot_came_from(web: WebServer, repo: CorpusRepo) -> None:
    import json

    from click.testing import CliRunner

    from indexer.cli.main import main

    url = web.page("/prov-cli.md", PAGE_V1, "text/markdown")
    [result] = snapshot([url], repo.root, options=LOCAL)
    cited = Citation(commit=repo.head(), path=result.path, lines=(3, 3)).text_form()
    runner = CliRunner()
    resolved = runner.invoke(main, ["resolve", cited, "--repo", str(repo.root), "--json"])
    assert resolved.exit_code == 0, resolved.output
    assert json.loads(resolved.output)["snapshot"]["url"] == url
    verified = runner.invoke(main, ["verify", cited, "--repo", str(repo.root)])
    assert verified.exit_code == 0, verified.output
    assert f"snapshot of {url} fetched " in verified.output


HTML_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Retention</title>
<script>var tracking = "never in the text";</script></head>
<body><nav><a href="/">Home</a></nav><article><h1>Data retention</h1>
<p>Application logs are kept for 90 days before they are deleted from every system.</p>
<p>Backups are kept for one year and then destroyed by the operations team on a schedule.</p>
<p>Access to backups needs two people from different teams, both named in the ticket.</p>
</article></body></html>
"""


def test_an_html_snapshot_is_indexed_and_verified_through_the_html_extractor(
    web: WebServer, repo: CorpusRepo, tmp_path: Path
) -> None:
    url = web.page("/retention.html", HTML_PAGE)
    [first] = snapshot([url], repo.root, options=LOCAL)
    pinned = repo.head()
    build(repo.root, index_path=tmp_path / "index.sqlite", site=False)
    reader = IndexReader(tmp_path / "index.sqlite")
    version = reader.version_by_blob(repo.git("rev-parse", f"HEAD:{first.path}").strip())
    reader.close()
    assert version is not None and version.source_class == "snapshot" and version.text is not None
    assert "tracking" not in version.text
    lines = version.text.split("\n")
    logs_line = next(i for i, line in enumerate(lines, 1) if "90 days" in line)
    access_line = next(i for i, line in enumerate(lines, 1) if "two people" in line)
    meta = snapshot_provenance(repo.root, pinned, first.path)
    assert meta is not None and meta.extractor is not None and meta.extractor.startswith("html/")

    web.page("/retention.html", HTML_PAGE.replace("90 days", "30 days"))
    [changed] = refresh([url], repo.root, options=LOCAL)
    assert changed.status == "changed" and changed.diffstat == (1, 1)
    git = GitRepo(repo.root)
    drifted = verify(Citation(commit=pinned, path=first.path, lines=(logs_line, logs_line)), git)
    assert drifted.status == "drifted" and any("30 days" in line for line in drifted.hunks[0].lines)
    kept = verify(Citation(commit=pinned, path=first.path, lines=(access_line, access_line)), git)
    assert kept.status == "verified"


def test_refresh_reports_unchanged_changed_and_failed(web: WebServer, repo: CorpusRepo) -> None:
    same = web.page("/same.md", "# Same\n", "text/markdown")
    moving = web.page("/moving.md", "# One\n\nold line\n", "text/markdown")
    dying = web.page("/dying.md", "# Dying\n", "text/markdown")
    snapshot([same, moving, dying], repo.root, options=LOCAL)
    start = repo.head()
    web.page("/moving.md", "# One\n\nnew line\nand another\n", "text/markdown")
    web.routes["/dying.md"] = Route(b"gone", 404, {"Content-Type": "text/plain"})

    results = {r.url: r for r in refresh([], repo.root, all_snapshots=True, options=LOCAL)}
    assert results[same].status == "unchanged" and results[same].commit is None
    assert results[moving].status == "changed" and results[moving].diffstat == (2, 1)
    assert results[dying].status == "failed" and "HTTP 404" in results[dying].reason
    assert repo.git("rev-list", "--count", f"{start}..HEAD").strip() == "1"
    dying_path = snapshot_path(dying, "md")
    assert (repo.root / dying_path).read_text() == "# Dying\n"
    assert repo.git("show", f"HEAD:{dying_path}") == "# Dying\n"


def test_refresh_of_a_page_that_changed_type_moves_the_snapshot(web: WebServer, repo: CorpusRepo) -> None:
    url = web.page("/doc", "plain text first\n", "text/plain")
    [first] = snapshot([url], repo.root, options=LOCAL)
    web.page("/doc", "# Markdown now\n", "text/markdown")
    [second] = refresh([url], repo.root, options=LOCAL)
    assert second.status == "changed" and second.path.endswith(".md") and first.path.endswith(".txt")
    assert tracked(repo) == sorted(["corpus/readme.md", second.path, second.path + ".meta.json"])


# -- the command line ---------------------------------------------------------------------------------
def test_cli_snapshot_and_refresh_json(web: WebServer, repo: CorpusRepo) -> None:
    url = web.page("/cli.md", "# CLI\n", "text/markdown")
    runner = CliRunner()
    out = runner.invoke(
        main, ["snapshot", "--allow-private", "--repo", str(repo.root), "--json", "-m", "Add CLI page", url]
    )
    assert out.exit_code == 0, out.output
    [record] = json.loads(out.output)
    assert record["status"] == "new" and record["commit"] == repo.head()
    assert repo.git("log", "-1", "--format=%s").strip() == "Add CLI page"
    again = runner.invoke(main, ["snapshot", "--refresh", "--all", "--allow-private", "--repo", str(repo.root)])
    assert again.exit_code == 0 and again.output.startswith("unchanged  " + url)


def test_cli_refusal_is_one_line_with_exit_code_6(repo: CorpusRepo) -> None:
    out = CliRunner().invoke(main, ["snapshot", "--repo", str(repo.root), "http://169.254.169.254/latest/"])
    assert out.exit_code == 6
    assert "refused http://169.254.169.254/latest/" in out.output and "Traceback" not in out.output


def test_cli_needs_a_url_and_all_needs_refresh(repo: CorpusRepo) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["snapshot", "--repo", str(repo.root)]).exit_code == 2
    assert runner.invoke(main, ["snapshot", "--all", "--repo", str(repo.root)]).exit_code == 2
    assert runner.invoke(main, ["snapshot", "--refresh", "--repo", str(repo.root)]).exit_code == 2
    empty = runner.invoke(main, ["snapshot", "--refresh", "--all", "--repo", str(repo.root)])
    assert empty.exit_code == 0 and "no snapshots to refresh" in empty.output
