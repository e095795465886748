"""A `pincite mcp` process and the official SDK's client talking to it (stdio, or HTTP), driven from plain code.

The client lives in one task on an event loop in a background thread (the SDK's task groups
must be entered and left in the same task); `call`, `list_tools` and the others hand it
requests and wait for the answers. The tests and the `mcp` benchmark scenario share it.

    with McpSession(repo, index) as session:
        result = session.call("search", {"query": "retention"})

    with McpSession.at(url) as session:   # a running `pincite mcp --http`, over Streamable HTTP
        ...
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from mcp import Client, StdioServerParameters
from mcp_types import (
    CallToolResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    ReadResourceResult,
)

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120.0
_T = TypeVar("_T")
_Job = tuple[Callable[[Client], Awaitable[Any]], "concurrent.futures.Future[Any]"]


def server_parameters(repo: Path, index: Path | None = None, *extra: str) -> StdioServerParameters:
    """How to start this checkout's `pincite mcp` (not whichever pincite is installed)."""
    args = ["-m", "indexer.cli.main", "mcp", "--repo", str(repo)]
    if index is not None:
        args += ["--index", str(index)]
    return StdioServerParameters(
        command=sys.executable, args=[*args, *extra], cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)}
    )


class McpSession:
    """One server process and one client session, usable from synchronous code."""

    def __init__(self, repo: Path, index: Path | None = None, *extra: str, url: str | None = None) -> None:
        self.parameters = server_parameters(repo, index, *extra)
        self.server: StdioServerParameters | str = url or self.parameters
        self._jobs: asyncio.Queue[_Job | None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    @classmethod
    def at(cls, url: str) -> McpSession:
        """A session with the server listening at `url` (the SDK's Streamable HTTP client)."""
        return cls(Path("."), url=url)

    def __enter__(self) -> McpSession:
        self._thread.start()
        self._ready.result(timeout=TIMEOUT)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    async def _serve(self) -> None:
        try:
            self._loop = asyncio.get_running_loop()
            self._jobs = asyncio.Queue()
            async with Client(self.server, read_timeout_seconds=TIMEOUT) as client:
                self._ready.set_result(None)
                while (job := await self._jobs.get()) is not None:
                    ask, answer = job
                    try:
                        answer.set_result(await ask(client))
                    except Exception as exc:
                        answer.set_exception(exc)
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            raise

    def _ask(self, ask: Callable[[Client], Awaitable[_T]]) -> _T:
        assert self._loop is not None and self._jobs is not None
        answer: concurrent.futures.Future[_T] = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._jobs.put_nowait, (ask, answer))
        return answer.result(timeout=TIMEOUT)

    def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        return self._ask(lambda c: c.call_tool(name, arguments))

    def list_tools(self) -> ListToolsResult:
        return self._ask(lambda c: c.list_tools())

    def list_resources(self) -> ListResourcesResult:
        return self._ask(lambda c: c.list_resources(cache_mode="bypass"))

    def list_resource_templates(self) -> ListResourceTemplatesResult:
        return self._ask(lambda c: c.list_resource_templates())

    def read_resource(self, uri: str) -> ReadResourceResult:
        return self._ask(lambda c: c.read_resource(uri, cache_mode="bypass"))

    def server_pid(self) -> int | None:
        """The server process's id, found among this process's children by its command line."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == os.getpid() and b"mcp" in cmdline and self.parameters.args[-1].encode() in cmdline:
                return int(entry.name)
        return None

    def close(self) -> None:
        if self._loop is not None and self._jobs is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._jobs.put_nowait, None)
        self._thread.join(timeout=TIMEOUT)


def clone_sample(destination: Path) -> Path:
    """A clone of this repository (the sample corpus and its history), without hard links into it."""
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(destination)], check=True)
    return destination


def rss_kib(pid: int) -> int:
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")
