"""`pincite mcp`: the agent tools served over the Model Context Protocol, with the official SDK.

Transports: stdio (an MCP client starts `pincite mcp` itself), or Streamable HTTP (`--http`)
for an agent that is not a local process, at `http://HOST:PORT/mcp`. HTTP listens on 127.0.0.1
unless told otherwise; another address is refused without `allow_remote`, and an unspecified one
(0.0.0.0, ::) always, since the Host header check needs the address clients use. Every request's
Host must name the address listened on and its Origin, when present, that address or a loopback
name with the same port (421 and 403 otherwise), as the MCP specification asks against DNS
rebinding: a web page the user visits cannot reach the server through its own host name. The
tools are the same on both transports, read-only unless `allow_build`; HTTP has no
authentication, so whoever can reach the address can read the corpus.

Tools (agent_tools.AgentTools; input and output schemas come from their signatures and
return shapes): search, cite, resolve, verify, check_answer, locate, and build when the
server is started with `allow_build`. All but build are read-only and closed-world.

Resources: every indexed document at the indexed commit, as `pincite://<commit>/<path>`
(the path percent-encoded), listed RESOURCES_PAGE at a time with an opaque cursor (the commit
and an offset: a cursor from before a rebuild is refused, not silently applied to another
listing), and the template `pincite://{commit}/{+path}{?lines,chars}`, which reads any
document at any commit whole, or the span `?lines=12-18` / `?chars=120-340`.

Prompts: `answer-with-citations`, the loop an agent follows to answer a question from the
corpus (search -> cite -> draft -> check_answer), as a user message to start from.

A `PinciteError` (a bad argument, an unknown path, a malformed citation) becomes an MCP
tool error (or resource error) whose text is the message the CLI prints for it; anything
else is the SDK's generic tool error. Either way the server goes on serving. A request the
SDK cannot read (`"params": "notadict"`) is answered with JSON-RPC's invalid-params or
invalid-request error, so that its client does not wait for ever.

Every call runs on one worker thread of the server's own, in the order the calls came: the
event loop stays free to read and answer messages, and the git processes and the SQLite
connection behind the warm caches are only ever used from that thread.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import inspect
import ipaddress
import json
import re
import socket
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import quote

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    ErrorData,
    JSONRPCError,
    ListResourcesResult,
    PaginatedRequestParams,
    Resource,
    ToolAnnotations,
)
from pydantic import ValidationError

from indexer import __version__
from indexer.errors import PinciteError, UsageError
from indexer.extract.registry import extractor_for
from indexer.integrations.agent_tools import AgentTools
from indexer.machine import terminated_as_exit

SCHEME = "pincite"
DOCUMENT_TEMPLATE = SCHEME + "://{commit}/{+path}{?lines,chars}"
INSTRUCTIONS = """\
pincite answers from a git corpus with citations that are checked, never guessed.
Loop: `search` (or `locate` a remembered quote) -> `cite` by quote -> write the draft, each quote
in double quotes (or a blockquote) followed by its citation -> `check_answer` -> fix what it reports
-> check again. Copy `citation` strings exactly as returned and quote from `text`; never type offsets
or SHAs yourself. A quote that is `failed` stands nowhere in the corpus: drop it or find the real
words with `search`. A `wrong_ref` quote stands elsewhere: use `corrected.citation`.
"""
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_BUILDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
RESOURCES_PAGE = 100  # documents per resources/list reply
ANSWER_PROMPT = """\
Answer this question from the corpus, with a checked citation for every claim: {question}

1. `search` for the words the answer needs (several short queries beat one long one).
2. For each passage you will rely on, `cite` it by quote: copy the exact words from the hit's `text`.
3. Write the answer. Put each quote in double quotes, followed by the citation string exactly as returned.
4. Run `check_answer` on the whole draft. Replace every `failed` quote (it stands nowhere: find the real
   words with `search`) and every `wrong_ref` one (use `corrected.citation`), then check again.
5. Answer only when every quote is `matched`; say plainly what the corpus does not say.
"""
HTTP_PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def document_uri(commit: str, path: str) -> str:
    return f"{SCHEME}://{commit}/{quote(path, safe='/')}"


class PinciteServer(MCPServer[Any]):
    """The SDK's server, listing the indexed documents as resources (they change with each build)."""

    def __init__(self, tools: AgentTools) -> None:
        super().__init__(
            name="pincite",
            title="pincite: cite a git corpus",
            version=__version__,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
        )
        self.tools = tools
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pincite")

    def on_worker(self, method: Callable[_P, _R]) -> Callable[_P, Awaitable[_R]]:
        """`method` as a coroutine that runs it on the worker thread (its signature and schema unchanged)."""

        @functools.wraps(method)
        async def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            return await asyncio.wrap_future(self.worker.submit(method, *args, **kwargs))

        return call

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop (as `MCPServer.run_stdio_async`), with unreadable requests answered."""
        async with stdio_server() as (read_stream, write_stream):
            lowlevel = self._lowlevel_server
            answered = _UnreadableAnswered(read_stream, write_stream)
            await lowlevel.run(answered, write_stream, lowlevel.create_initialization_options())

    async def run_http_async(self, listening: socket.socket, security: TransportSecuritySettings) -> None:
        """The SDK's Streamable HTTP app on the socket `listening` (already bound), until interrupted."""
        import uvicorn  # a dependency of the SDK

        app = self.streamable_http_app(streamable_http_path=HTTP_PATH, transport_security=security)
        await uvicorn.Server(uvicorn.Config(app, log_level="warning")).serve(sockets=[listening])

    async def _handle_list_resources(self, ctx: Any, params: PaginatedRequestParams | None) -> ListResourcesResult:
        try:
            commit, paths = await self.on_worker(self.tools.documents)()
        except PinciteError as exc:
            raise ResourceError(str(exc)) from exc
        start = _cursor_offset(params.cursor if params else None, commit, len(paths))
        page = paths[start : start + RESOURCES_PAGE]
        more = start + RESOURCES_PAGE < len(paths)
        return ListResourcesResult(
            resources=[_resource(commit, path) for path in page],
            next_cursor=_cursor(commit, start + RESOURCES_PAGE) if more else None,
        )

    async def list_resources(self) -> list[Resource]:
        """Every document at once (the SDK's own callers); clients get pages through resources/list."""
        commit, paths = await self.on_worker(self.tools.documents)()
        return [_resource(commit, path) for path in paths]


def create_server(tools: AgentTools) -> PinciteServer:
    """The MCP server of `tools`: their methods as tools, their documents as resources."""
    server = PinciteServer(tools)
    readers: list[tuple[Callable[..., Any], str]] = [
        (tools.search, "Search the corpus"),
        (tools.cite, "Cite a passage"),
        (tools.resolve, "Read a citation"),
        (tools.verify, "Verify citations"),
        (tools.check_answer, "Check a draft answer"),
        (tools.locate, "Locate a quote"),
    ]
    if tools.allow_build:
        readers.append((tools.build, "Build the index"))
    for method, title in readers:
        annotations = _BUILDS if method == tools.build else _READ_ONLY
        tool = server.on_worker(_tool_errors(method))
        server.add_tool(
            tool,
            title=title,
            description=one_paragraph(method.__doc__),
            annotations=annotations,
            structured_output=True,
        )

    @server.prompt(
        name="answer-with-citations",
        title="Answer with checked citations",
        description="Answer a question from the corpus: search, cite by quote, draft, check_answer, fix, check again.",
    )
    def answer_with_citations(question: str) -> str:
        return ANSWER_PROMPT.format(question=question)

    @server.resource(
        DOCUMENT_TEMPLATE,
        name="document",
        title="A document at a commit",
        description="A document's text at a commit (extracted text for PDF and HTML), whole or the span "
        "?lines=A-B (1-based, inclusive) or ?chars=A-B (code points, end exclusive).",
        mime_type="text/plain",
    )
    async def document(commit: str, path: str, lines: str | None = None, chars: str | None = None) -> str:
        try:
            return await server.on_worker(tools.read)(commit, path, lines=lines, chars=chars)
        except PinciteError as exc:
            raise ResourceError(str(exc)) from exc

    return server


@dataclass(frozen=True)
class Http:
    """Where the Streamable HTTP transport listens (port 0: any free port)."""

    host: str  # `pincite mcp --host`: 127.0.0.1 unless told otherwise
    port: int
    allow_remote: bool = False


def serve(
    repo: Path | str, index_path: Path | str | None = None, allow_build: bool = False, http: Http | None = None
) -> None:
    """Serve the corpus repository at `repo` on stdin/stdout until the client closes them, or over HTTP."""
    listening = listen(http) if http is not None else None  # a refused address fails before anything is opened
    tools = AgentTools(repo, index_path=index_path, allow_build=allow_build)
    server = create_server(tools)
    # A server stopped by SIGTERM (`docker stop`, systemd, CI) still closes its repository's scratch folder.
    with terminated_as_exit():
        try:
            if http is None or listening is None:
                server.run("stdio")
            else:
                url = endpoint(listening)
                print(f"pincite MCP server (Streamable HTTP) at {url}; Ctrl-C stops it", file=sys.stderr, flush=True)
                anyio.run(server.run_http_async, listening, transport_security(http, listening))
        finally:
            server.worker.submit(tools.close).result()
            server.worker.shutdown()
            if listening is not None:
                listening.close()


def listen(http: Http) -> socket.socket:
    """A socket bound to `http`'s address: a loopback one, or another only with `allow_remote`."""
    if not 0 <= http.port <= 65535:
        raise UsageError(f"--port {http.port} is not a TCP port (0-65535)")
    host = http.host.strip("[]")
    address = _address(host)
    if address is not None and address.is_unspecified:
        raise UsageError(
            f"--host {http.host} listens on every address, and no Host header could be checked",
            hint="give the one address clients connect to (with --allow-remote), or keep 127.0.0.1",
        )
    loopback = host == "localhost" or (address is not None and address.is_loopback)
    if not loopback and not http.allow_remote:
        raise UsageError(
            f"--host {http.host} is not a loopback address: anyone who reaches it could read the corpus",
            hint="keep the default 127.0.0.1, or add --allow-remote (there is no authentication: "
            "put it behind a proxy that has some)",
        )
    family = socket.AF_INET6 if address is not None and address.version == 6 else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, http.port))
        listening.listen(128)
    except OSError as exc:
        listening.close()
        raise UsageError(
            f"cannot listen on {http.host}:{http.port}: {exc.strerror}", hint="pick another --port"
        ) from exc
    return listening


def endpoint(listening: socket.socket) -> str:
    return f"http://{_authority(listening)}{HTTP_PATH}"


def transport_security(http: Http, listening: socket.socket) -> TransportSecuritySettings:
    """The Host and Origin values accepted: the address listened on as given and as bound, and for
    loopback its other names; each with the port listened on, never another."""
    bound, port = _authority(listening).rsplit(":", 1)
    given = f"[{http.host.strip('[]')}]" if ":" in http.host else http.host
    address = _address(bound.strip("[]"))
    loopback = address is not None and address.is_loopback
    names = list(dict.fromkeys([given, bound, *(LOOPBACK_NAMES if loopback else ())]))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:{port}" for name in names],
        allowed_origins=[f"{scheme}://{name}:{port}" for name in names for scheme in ("http", "https")],
    )


def _authority(listening: socket.socket) -> str:
    host, port = listening.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None  # a name


def _tool_errors(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """The same tool, its `PinciteError`s turned into tool errors that carry the CLI's message."""

    @functools.wraps(method)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(*args, **kwargs)
        except PinciteError as exc:
            raise ToolError(str(exc)) from exc

    return call


def one_paragraph(docstring: str | None) -> str:
    """A docstring as one line of prose: the indentation runs a wrapped docstring carries folded to spaces."""
    return re.sub(r"\s+", " ", inspect.cleandoc(docstring or "")).strip()


def _resource(commit: str, path: str) -> Resource:
    return Resource(
        uri=document_uri(commit, path), name=path, description=f"{path} at {commit[:12]}", mime_type=_mime_type(path)
    )


def _cursor(commit: str, offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps([commit, offset]).encode()).decode()


def _cursor_offset(cursor: str | None, commit: str, total: int) -> int:
    """Where a listing resumes; a cursor that is not ours, or is from another build, is invalid params."""
    if cursor is None:
        return 0
    try:
        made_at, offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, TypeError, binascii.Error) as exc:
        raise MCPError(INVALID_PARAMS, f"invalid cursor {cursor[:40]!r}: list resources again without one") from exc
    if made_at != commit or not isinstance(offset, int) or not 0 <= offset <= total:
        raise MCPError(INVALID_PARAMS, "the cursor is from another build of the index: list resources again")
    return offset


class _UnreadableAnswered:
    """The transport's read stream, where a request the SDK could not read is answered, not dropped.

    The SDK hands the server an exception for a line that is not a valid message and the server
    logs it; a request among them (it has an id and a method) would never get its answer.
    """

    def __init__(self, inner: Any, write: Any) -> None:
        self.inner, self.write = inner, write

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # `last_context`, read after each message

    async def receive(self) -> Any:
        while True:
            item = await self.inner.receive()
            answer = _answer_unreadable(item) if isinstance(item, ValidationError) else None
            if answer is None:
                return item
            await self.write.send(SessionMessage(answer))

    def __aiter__(self) -> _UnreadableAnswered:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _UnreadableAnswered:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self.inner.__aexit__(*exc)
        return result


def _answer_unreadable(error: ValidationError) -> JSONRPCError | None:
    """The JSON-RPC error answering the request `error` could not read; None when it was no request."""
    for problem in error.errors():
        message = problem.get("input")
        if not isinstance(message, dict) or "method" not in message:
            continue
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            return None  # a notification (or an id JSON-RPC does not allow): nothing to answer
        params = message.get("params")
        if "params" in message and not isinstance(params, (dict, list)):
            return JSONRPCError(
                jsonrpc="2.0",
                id=request_id,
                error=ErrorData(code=INVALID_PARAMS, message="params must be an object"),
            )
        return JSONRPCError(
            jsonrpc="2.0", id=request_id, error=ErrorData(code=INVALID_REQUEST, message="not a valid request")
        )
    return None


def _mime_type(path: str) -> str:
    extractor = extractor_for(path)
    if extractor is not None and extractor.source_class == "text" and path.lower().endswith((".md", ".markdown")):
        return "text/markdown"
    return "text/plain"  # extracted documents are read as their extracted text
