"""`pincite mcp --http`: a real server process on 127.0.0.1 and the official SDK's Streamable HTTP client.

The same tools as stdio, read-only unless --allow-build; Host and Origin checked on every
request against DNS rebinding (421 and 403, as the MCP specification asks); loopback unless a
remote address is explicitly allowed, and never every address at once.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from conftest import CorpusRepo

from indexer.cli.main import main
from indexer.errors import UsageError
from tests.mcp_client import ROOT, TIMEOUT, McpSession

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class HttpServer:
    """`pincite mcp --http --port 0` in its own process; `url` is the endpoint it printed."""

    def __init__(self, repo: Path, *extra: str, temp: Path | None = None) -> None:
        command = [sys.executable, "-m", "indexer.cli.main", "mcp", "--http", "--port", "0", "--repo", str(repo)]
        env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **({"TMPDIR": str(temp)} if temp else {})}
        self.process = subprocess.Popen([*command, *extra], cwd=ROOT, env=env, stderr=subprocess.PIPE)
        self.url = self._announced()

    def _announced(self) -> str:
        found: list[str] = []
        reader = threading.Thread(target=lambda: found.append(self.process.stderr.readline().decode()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(TIMEOUT)
        match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", found[0] if found else "")
        if match is None:
            self.close()
            raise AssertionError(f"the server announced no address: {found}")
        return match.group(1)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(TIMEOUT)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> CorpusRepo:
    repo = CorpusRepo(tmp_path_factory.mktemp("http") / "repo")
    repo.commit({"corpus/policy.md": "# Retention\n\nLogs are kept for ninety days.\n"})
    built = CliRunner().invoke(main, ["build", "--repo", str(repo.root), "--no-site"])
    assert built.exit_code == 0, built.output
    return repo


@pytest.fixture(scope="module")
def server(corpus: CorpusRepo) -> Iterator[HttpServer]:
    running = HttpServer(corpus.root)
    try:
        yield running
    finally:
        running.close()


def test_the_official_client_cites_over_http(server: HttpServer, corpus: CorpusRepo) -> None:
    with McpSession.at(server.url) as session:
        tools = {tool.name: tool for tool in session.list_tools().tools}
        assert set(tools) == {"search", "cite", "resolve", "verify", "check_answer", "locate"}  # no build
        assert all(t.annotations and t.annotations.read_only_hint for t in tools.values())
        hits = session.call("search", {"query": "logs"}).structured_content
        assert hits is not None and "Logs are kept for ninety days." in hits["hits"][0]["text"]
        cited = session.call("cite", {"path": "corpus/policy.md", "quote": "kept for ninety days"}).structured_content
        assert cited is not None and cited["status"] == "cited"
        draft = f'Logs stay "kept for ninety days" ({cited["cited"]["citation"]}).'
        checked = session.call("check_answer", {"draft": draft}).structured_content
        assert checked is not None and checked["ok"] is True
        [resource] = session.list_resources().resources
        assert str(resource.uri).endswith("/corpus/policy.md")


def test_a_server_stopped_by_sigterm_removes_its_scratch_objects(corpus: CorpusRepo, tmp_path: Path) -> None:
    # `docker stop`, systemd and CI stop a server with SIGTERM: a read-only repository's folder for
    # the objects it writes (under TMPDIR) must go with it, as it does when the client hangs up.
    running = HttpServer(corpus.root, temp=tmp_path)
    with McpSession.at(running.url) as session:
        assert session.call("search", {"query": "logs"}).structured_content is not None
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("pincite-objects-")]  # made while it ran
    running.close()
    assert running.process.returncode in (0, 128 + 15)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("pincite-objects-")] == []


def test_the_same_server_writes_nothing(server: HttpServer, corpus: CorpusRepo) -> None:
    index = corpus.root / ".pincite" / "index.sqlite"
    before = index.stat().st_mtime_ns
    with McpSession.at(server.url) as session:
        assert session.call("build", {}).is_error  # not a tool here
    assert index.stat().st_mtime_ns == before and corpus.git("status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 200),  # no Origin: not a browser
        ({"Origin": "http://127.0.0.1:{port}"}, 200),
        ({"Origin": "http://localhost:{port}"}, 200),
        ({"Origin": "http://evil.example"}, 403),  # a web page of another site
        ({"Origin": "http://localhost:1{port}"}, 403),  # another port is another origin
        ({"Origin": "null"}, 403),
        ({"Host": "evil.example:{port}"}, 421),  # DNS rebinding: another name for our address
    ],
)
def test_host_and_origin_are_checked_on_every_request(server: HttpServer, headers: dict[str, str], status: int) -> None:
    sent = {**HEADERS, **{k: v.format(port=server.port) for k, v in headers.items()}}
    answer = httpx.post(server.url, json=INITIALIZE, headers=sent, timeout=TIMEOUT)
    assert answer.status_code == status, answer.text


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--http", "--host", "10.1.2.3"), "is not a loopback address"),
        (("--http", "--host", "0.0.0.0", "--allow-remote"), "listens on every address"),
        (("--http", "--host", "::", "--allow-remote"), "listens on every address"),
        (("--http", "--port", "70000"), "is not a TCP port"),
        (("--port", "9000"), "--port only work with --http"),
        (("--allow-remote",), "--allow-remote only work with --http"),
    ],
)
def test_an_address_it_must_not_listen_on_is_a_usage_error(
    corpus: CorpusRepo, args: tuple[str, ...], said: str
) -> None:
    result = CliRunner().invoke(main, ["mcp", *args, "--repo", str(corpus.root)])
    assert result.exit_code == UsageError.exit_code, result.output
    assert said in result.output and "Traceback" not in result.output


def test_a_port_in_use_is_named(server: HttpServer, corpus: CorpusRepo) -> None:
    result = CliRunner().invoke(main, ["mcp", "--http", "--port", str(server.port), "--repo", str(corpus.root)])
    assert result.exit_code == UsageError.exit_code, result.output
    assert f"cannot listen on 127.0.0.1:{server.port}" in result.output
