"""Agent commands: `pincite mcp`, the Model Context Protocol server."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click
from click.core import ParameterSource

from indexer.cli.common import index_option, repo_option
from indexer.errors import UsageError

DEFAULT = ParameterSource.DEFAULT
MCP_INSTALL = "pip install 'pincite[mcp]'"


@click.command("mcp")
@repo_option
@index_option
@click.option(
    "--allow-build",
    is_flag=True,
    help="Also offer a `build` tool, which writes the index (off: the server writes nothing).",
)
@click.option(
    "--http", "use_http", is_flag=True, help="Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: the address to listen on.")
@click.option("--port", default=8765, show_default=True, type=int, help="With --http: the TCP port (0: any free port).")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="With --http: allow a --host that is not loopback (unsafe: there is no authentication).",
)
def mcp_command(
    repo: Path,
    index_path: Path | None,
    allow_build: bool,
    use_http: bool,
    host: str,
    port: int,
    allow_remote: bool,
) -> None:
    """Serve the corpus to an agent over the Model Context Protocol (stdio, or HTTP).

    Tools: search, cite, resolve, verify, check_answer, locate (and build with
    --allow-build). Resources: pincite://<commit>/<path>, whole or by span. An MCP
    client starts this command itself; docs/agents.md shows the configuration.
    With --http it serves Streamable HTTP on 127.0.0.1 for agents that are not a
    local process, checking each request's Host and Origin (DNS rebinding).
    The server reads git objects and the index, never writes them (unless
    --allow-build) and never touches the network beyond its own address.

    \b
    Examples:
      pincite mcp --repo /path/to/corpus
      pincite mcp --index /tmp/corpus.sqlite --allow-build
      pincite mcp --http --port 8765
    """
    given = click.get_current_context().get_parameter_source
    http_only = [f"--{name.replace('_', '-')}" for name in ("host", "port", "allow_remote") if given(name) != DEFAULT]
    if http_only and not use_http:
        raise UsageError(f"{', '.join(http_only)} only work with --http", hint="add --http, or drop them for stdio")
    if importlib.util.find_spec("mcp") is None:
        raise UsageError("the MCP server needs the official `mcp` Python SDK", hint=f"install it: {MCP_INSTALL}")
    from indexer.integrations.mcp_server import Http, serve  # the SDK loads only for this command

    serve(repo, index_path, allow_build, Http(host, port, allow_remote) if use_http else None)
