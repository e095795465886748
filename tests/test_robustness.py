"""No committed file, setting, citation or request hangs, crashes or blocks a build (issue 31).

Each bound has its regression test here; docs/reliability.md lists them.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from indexer.api import build
from indexer.cli.main import main
from indexer.config import load_config
from indexer.errors import CitationSyntaxError, ConfigError
from indexer.site import budget
from indexer.site.asciidoc_view import available as asciidoc_available
from indexer.site.render import site_page, url_path
from indexer.site.serve import serve_in_thread
from indexer.text.charsets import git_encoding
from indexer.text.citation import parse_citation
from tests.conftest import CorpusRepo

# -- every renderer runs under a budget ------------------------------------------------------

DEEP_RST = "".join(" " * depth + "- item\n\n" for depth in range(0, 600, 2))
BOMBS = {
    "corpus/deep-list.md": "- " * 100_000 + "x\n",
    "corpus/deep-quote.md": ">" * 100_000 + " x\n",
    "corpus/deep.rst": DEEP_RST,
    "corpus/table.md": "| a | b |\n|---|---|\n" + "| c | d |\n" * 120_000,
    "corpus/line.md": "word " * 1_000_000 + "\n",
    "corpus/title.adoc": "= x" + " " * 200_000 + "y\n",
}


def test_every_bomb_is_shown_as_source_and_the_build_finishes(corpus_repo: CorpusRepo, tmp_path: Path) -> None:
    corpus_repo.commit({**BOMBS, "corpus/fine.md": "# Fine\n\n- a\n  - b\n"})
    site = tmp_path / "site"
    summary = build(corpus_repo.root, out=site)
    shown = {entry["path"]: entry["reason"] for entry in (summary.site or {})["shown_as_source"]}
    # Without Asciidoctor, AsciiDoc has no rendered view (its outline is within budget); with it, the
    # title bomb stalls Asciidoctor itself and meets the time limit.
    over = {path for path in BOMBS if asciidoc_available() or not path.endswith(".adoc")}
    assert set(shown) == over, shown
    if asciidoc_available():
        assert "of CPU" in shown["corpus/title.adoc"]
    assert "nested" in shown["corpus/deep-list.md"] and "nested" in shown["corpus/deep-quote.md"]
    assert "nested" in shown["corpus/deep.rst"]
    assert "bytes" in shown["corpus/table.md"] and "bytes" in shown["corpus/line.md"]
    for path in over:
        page = (site / "doc" / f"{path}.html").read_text(encoding="utf-8")
        assert "Shown as source only: " + shown[path] in page.replace("&#39;", "'")
        assert any(path in warning and "shown as source" in warning for warning in summary.warnings)
    assert "class=rendered-body>" in (site / "doc/corpus/fine.md.html").read_text(encoding="utf-8")
    assert (site / "doc/corpus/title.adoc.html").is_file()
    # A second build reuses the pages and still accounts for them.
    again = build(corpus_repo.root, out=site)
    assert {e["path"] for e in (again.site or {})["shown_as_source"]} == over


def test_nesting_is_read_from_the_parser_events() -> None:
    assert budget.markdown_nesting("- a\n  - b\n") == 4  # list, item, list, item (tight: no paragraphs)
    assert budget.refusal("markdown", "- " * 200 + "x") is not None
    assert budget.refusal("markdown", "# Title\n\nSome *words*.\n") is None


def test_a_renderer_that_does_not_end_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "RENDER_SECONDS", 0.05)

    def endless() -> None:
        while True:
            pass

    made = budget.within_budget("rst", "corpus/x.rst", "x", endless)
    assert made.value is None and made.refused == "rendering used more than 0.05 s of CPU"


# -- .gitattributes: a bytes-to-bytes codec is no text encoding ------------------------------

BYTES_CODECS = ("zlib", "base64", "hex", "bz2", "uu", "quopri", "rot13", "raw_unicode_escape", "hz")


@pytest.mark.parametrize("label", BYTES_CODECS)
def test_a_codec_that_is_not_a_text_encoding_is_an_unreadable_label(label: str) -> None:
    assert git_encoding(label) is None


def test_a_bytes_codec_in_gitattributes_skips_the_file_with_a_message(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({".gitattributes": "*.md encoding=zlib\n", "corpus/a.md": "# A\n\nText.\n"})
    summary = build(corpus_repo.root, site=False)
    reasons = {s.path: s.reason for s in summary.skipped}
    assert "encoding=zlib" in reasons["corpus/a.md"] and "cannot read as text" in reasons["corpus/a.md"]
    head = corpus_repo.head()
    result = CliRunner().invoke(main, ["verify", f"corpus/a.md@{head}#L1", "--repo", str(corpus_repo.root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output


# -- a damaged index is a message, and build makes it again ----------------------------------


def _damage_table(index: Path, table: str) -> None:
    """Overwrite the 4 KB root page of `table` with noise, as a bad disk sector would."""
    conn = sqlite3.connect(index)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with open(index, "r+b") as file:
        file.seek((root - 1) * size)
        file.write(random.Random(7).randbytes(size))


def test_a_damaged_index_is_reported_and_rebuilt(corpus_repo: CorpusRepo) -> None:
    head = corpus_repo.commit({f"corpus/d{n}.md": f"# Doc {n}\n\nRecords are kept {n} years.\n" for n in range(40)})
    build(corpus_repo.root, site=False)
    index = corpus_repo.root / ".pincite" / "index.sqlite"
    _damage_table(index, "path_versions")
    where = ["--repo", str(corpus_repo.root)]
    # search fails (exit 4); verify says the citation could not be checked (unresolvable, exit 7), and why.
    for args, code in ((["search", "records kept"], 4), (["verify", f"corpus/d5.md@{head}#L3"], 7)):
        result = CliRunner().invoke(main, [*args, *where])
        assert result.exit_code == code, (args, result.output)
        assert f"the index {index} is damaged: move it away or delete it; `pincite build` rebuilds it" in result.output
        assert not isinstance(result.exception, sqlite3.DatabaseError)
    result = CliRunner().invoke(main, ["build", "--no-site", *where])
    assert result.exit_code == 0, result.output
    assert "was damaged: kept as index.sqlite.damaged-" in result.output
    assert len(list(index.parent.glob("index.sqlite.damaged-*"))) == 1
    assert CliRunner().invoke(main, ["verify", f"corpus/d5.md@{head}#L3", *where]).exit_code == 0


# -- a long file name gets a hashed page; every published name fits the file system -----------


def test_a_name_of_255_bytes_gets_a_hashed_page_and_the_listing_links_to_it(
    corpus_repo: CorpusRepo, tmp_path: Path
) -> None:
    long_md, long_txt = "corpus/" + "a" * 252 + ".md", "corpus/" + "é" * 125 + ".txt"  # 255 and 254 bytes
    corpus_repo.commit({long_md: "# Long\n\nA long name.\n", long_txt: "text\n", "corpus/short.md": "# Short\n"})
    # A second version each, so that they have history pages (a path of one version has none).
    corpus_repo.commit({long_md: "# Long\n\nA long name, edited.\n", long_txt: "text, edited\n"})
    site = tmp_path / "site"
    build(corpus_repo.root, out=site)
    for path in (long_md, long_txt):
        rel = site_page("doc", path)
        assert rel.startswith("doc/~long/") and (site / rel).is_file()
        assert f'href="{url_path(rel)}"' in (site / "index.html").read_text(encoding="utf-8")
        assert (site / site_page("changes", path)).is_file()
    assert (site / "doc/corpus/short.md.html").is_file()
    for file in site.rglob("*"):
        assert len(file.name.encode()) <= 255, file
        assert len(str(file.relative_to(site)).encode()) <= 1100, file


# -- a killed build leaves nothing in the repository ------------------------------------------

# Runs a build whose site stage says it has started and then waits to be killed.
KILLABLE_BUILD = """
import sys, time
from indexer.api import build
from indexer.site import builder

def run_until_killed(self):
    print("rendering", flush=True)
    while True:
        time.sleep(1)

builder._SiteBuilder.run = run_until_killed
build(sys.argv[1])
"""


def _build_until(corpus_repo: CorpusRepo, sig: signal.Signals) -> int:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLABLE_BUILD, str(corpus_repo.root)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "rendering\n"  # the temporary site folder exists now
    proc.send_signal(sig)
    return proc.wait()


def test_a_terminated_build_removes_its_temporary_site_and_git_status_stays_clean(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n", ".gitignore": "_site/\n"})
    assert _build_until(corpus_repo, signal.SIGTERM) == 128 + signal.SIGTERM
    assert corpus_repo.git("status", "--porcelain", "--untracked-files=all") == ""
    work = corpus_repo.root / "._site.pincite"
    assert not list(work.glob("*.tmp*")) and not list(corpus_repo.root.glob("._site.*.tmp*"))


def test_a_build_removes_what_a_killed_build_left(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n", ".gitignore": "_site/\n"})
    # An earlier pincite's leftovers beside the site, of a process that is gone.
    legacy = corpus_repo.root / "._site.999999999.tmp"
    (legacy / "doc").mkdir(parents=True)
    (corpus_repo.root / "._site.999999999.tmp.search").mkdir()
    (corpus_repo.root / "._site.lock").touch()
    assert _build_until(corpus_repo, signal.SIGKILL) == -signal.SIGKILL
    work = corpus_repo.root / "._site.pincite"
    assert list(work.glob("*.tmp")), "kill -9 runs no cleanup"
    build(corpus_repo.root)
    assert not list(work.glob("*.tmp*"))
    assert not legacy.exists() and not (corpus_repo.root / "._site.lock").exists()
    assert corpus_repo.git("status", "--porcelain", "--untracked-files=all") == ""
    assert (corpus_repo.root / "_site" / "index.html").is_file()


# -- settings are checked by kind and bounds, with the setting's name ----------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("fetch_max_bytes = 1e400", "setting 'fetch_max_bytes' must be a positive number"),
        ("extract_timeout_seconds = nan", "setting 'extract_timeout_seconds' must be a positive number"),
        ("extract_timeout_seconds = inf", "setting 'extract_timeout_seconds' must be a positive number"),
        ("max_file_bytes = 2.5", "setting 'max_file_bytes' must be a whole number"),
        ("site_search_delta_share = 2", "setting 'site_search_delta_share' is 2, over the most of 1"),
        ("site_url = \"javascript:alert('x')//\"", "setting 'site_url' = .* is not an http.s. URL"),
        ('site_url = "https://a.example/\\"onmouseover=x"', "is not an http.s. URL"),
        ('site_url = "ftp://a.example/"', "is not an http.s. URL"),
        ('history_start = "--upload-pack=touch x"', "setting 'history_start' = .* is not a revision"),
        ('site_title = "a\\u0000b"', "setting 'site_title' must be one line"),
    ],
)
def test_a_setting_out_of_bounds_is_refused_by_name(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / "pincite.toml").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path)


def test_settings_within_bounds_are_taken(tmp_path: Path) -> None:
    (tmp_path / "pincite.toml").write_text(
        'site_url = "https://example.org/corpus/"\nmax_file_bytes = 5e6\nextract_timeout_seconds = 0.5\n'
    )
    config = load_config(tmp_path)
    assert (config.site_url, config.max_file_bytes, config.extract_timeout_seconds) == (
        "https://example.org/corpus/",
        5_000_000,
        0.5,
    )
    assert isinstance(config.max_file_bytes, int)


def test_a_variable_out_of_bounds_is_refused_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINCITE_EXTRACT_TIMEOUT_SECONDS", "nan")
    with pytest.raises(ConfigError, match="extract_timeout_seconds"):
        load_config(tmp_path)
    monkeypatch.setenv("PINCITE_EXTRACT_TIMEOUT_SECONDS", "1e400")
    with pytest.raises(ConfigError, match="extract_timeout_seconds"):
        load_config(tmp_path)


# -- citations: every string ends in a result or a one-line error -----------------------------

SHA = "c" * 40


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"corpus/a.md@{SHA}#L{'9' * 5000}", "has a number of more than 15 digits"),
        (f"http://[::1/v/{'a' * 40}.html?commit={SHA}&path=corpus/a.md#L1", "not a URL"),
        (f"corpus/{'p' * 300_000}.md@{SHA}#L1", "the path is 300,010 bytes, longer than the 4,096"),
        (f"corpus/a.md/.@{SHA}#L1", "did you mean 'corpus/a.md'"),
        (f"corpus//a.md@{SHA}#L1", "did you mean 'corpus/a.md'"),
        (f"http://x/v/{'a' * 40}.html?commit={SHA}&path=corpus/./a.md#L1", "did you mean 'corpus/a.md'"),
        (f"../a.md@{SHA}#L1", "is not a repository path as git writes it"),
    ],
)
def test_a_citation_past_the_grammars_bounds_is_a_syntax_error(text: str, message: str) -> None:
    with pytest.raises(CitationSyntaxError, match=message):
        parse_citation(text)


def test_pathspec_magic_is_a_path_that_does_not_exist(corpus_repo: CorpusRepo) -> None:
    head = corpus_repo.commit({"corpus/a.md": "# A\n\nline\n"})
    result = CliRunner().invoke(main, ["verify", f":(icase)CORPUS/A.MD@{head}#L1", "--repo", str(corpus_repo.root)])
    assert result.exit_code == 7 and ":(icase)CORPUS/A.MD does not exist" in result.output
    result = CliRunner().invoke(main, ["verify", f"corpus/*.md@{head}#L1", "--repo", str(corpus_repo.root)])
    assert result.exit_code == 7 and "does not exist" in result.output


def test_check_reports_each_bad_citation_and_checks_the_rest(corpus_repo: CorpusRepo) -> None:
    head = corpus_repo.commit({"corpus/a.md": "# A\n\nline two\nline three\n"})
    bad = [
        f"corpus/a.md@{head}#L{'9' * 5000}",
        f"corpus/{'p' * 300_000}.md@{head}#L1",
        f"corpus/a.md/.@{head}#L1",
        f"http://x/v/{'a' * 40}.html?commit={head}&path=corpus//a.md#L1",
    ]
    doc = corpus_repo.root / "notes.md"
    doc.write_text("\n\n".join([f"See {c}" for c in bad] + [f"Good corpus/a.md@{head}#L3"]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(doc), "--repo", str(corpus_repo.root), "--json"])
    assert result.exit_code == 7 and not isinstance(result.exception, (ValueError, OSError)), result.output
    records = json.loads(result.output)["records"]
    assert [r["verdict"] for r in records][-1] == "verified" and len(records) >= 4
    assert any("did you mean 'corpus/a.md'" in json.dumps(r) for r in records)


# -- a repository's template that asks too much is a template error ----------------------------


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("{% for x in range(10**7) %}{{ x }}{% endfor %}", "home.html:1: OverflowError: Range too big"),
        ("{{ 'x' * 10**9 }}", "a repetition of 1,000,000,000 items is more than a template may make"),
        ("{{ 2 ** 100000000 }}", "an exponent of 100000000 is more than a template may use"),
        ("{{ 1 / 0 }}", "ZeroDivisionError"),
    ],
)
def test_a_template_that_asks_too_much_is_a_site_template_error(
    corpus_repo: CorpusRepo, tmp_path: Path, expression: str, message: str
) -> None:
    corpus_repo.commit(
        {
            "corpus/a.md": "# A\n",
            "pincite.toml": 'template_dir = "templates"\n',
            "templates/home.html": "{% extends 'base.html' %}{% block content %}" + expression + "{% endblock %}",
        }
    )
    result = CliRunner().invoke(main, ["build", "--repo", str(corpus_repo.root), "--out", str(tmp_path / "site")])
    assert result.exit_code == ConfigError.exit_code, result.output
    assert "site template error" in result.output and message in result.output, result.output[:600]
    assert not isinstance(result.exception, (OverflowError, ArithmeticError, MemoryError))


# -- the MCP server answers a request it cannot read ------------------------------------------


def _mcp_answer(proc: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    """The server's answer to `request_id`; fails when none comes within a minute (it would hang)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = proc.stdout.readline()
        if not line:
            break
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)
    raise AssertionError(f"no answer to request {request_id}")


def test_an_mcp_request_with_params_not_an_object_is_answered(corpus_repo: CorpusRepo) -> None:
    corpus_repo.commit({"corpus/a.md": "# A\n"})
    build(corpus_repo.root, site=False)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "indexer.cli.main", "mcp", "--repo", str(corpus_repo.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None
    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "notadict"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
        ):
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        assert "result" in _mcp_answer(proc, 1)
        assert _mcp_answer(proc, 2)["error"]["code"] == -32602
        assert _mcp_answer(proc, 3)["result"]["tools"]  # and the server goes on serving
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


# -- serve: files of the site, nothing else ----------------------------------------------------


def test_serve_lists_no_folder_and_follows_no_link_out_of_the_site(tmp_path: Path) -> None:
    site, secret = tmp_path / "site", tmp_path / "secret.txt"
    secret.write_text("private", encoding="utf-8")
    (site / "v").mkdir(parents=True)
    (site / "index.html").write_text("<h1>home</h1>", encoding="utf-8")
    (site / "v" / "a.html").write_text("page", encoding="utf-8")
    (site / "docs").mkdir()
    (site / "docs" / "index.html").write_text("docs home", encoding="utf-8")
    (site / "leak.txt").symlink_to(secret)
    (site / "out").symlink_to(tmp_path)
    server, base = serve_in_thread(site)
    try:

        def status(path: str) -> int:
            try:
                with urllib.request.urlopen(base + path) as response:
                    return int(response.status)
            except urllib.error.HTTPError as exc:
                return exc.code

        assert status("") == 200 and status("v/a.html") == 200 and status("docs/") == 200
        assert status("v/") == 404  # a folder without index.html is not listed
        assert status("leak.txt") == 404 and status("out/secret.txt") == 404 and status("out/") == 404
    finally:
        server.shutdown()
        server.server_close()
