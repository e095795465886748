"""Agent commands: `pincite mcp`, the Model Context Protocol server."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click

from indexer.cli.common import index_option, repo_option
from indexer.errors import UsageError

MCP_INSTALL = "pip install 'pincite[mcp]'"


@click.command("mcp")
@repo_option
@index_option
@click.option(
    "--allow-build",
    is_flag=True,
    help="Also offer a `build` tool, which writes the index (off: the server writes nothing).",
)
def mcp_command(repo: Path, index_path: Path | None, allow_build: bool) -> None:
    """Serve the corpus to an agent over the Model Context Protocol (stdio).

    Tools: search, cite, resolve, verify, check_answer, locate (and build with
    --allow-build). Resources: pincite://<commit>/<path>, whole or by span. An MCP
    client starts this command itself; docs/agents.md shows the configuration.
    The server reads git objects and the index, never writes them (unless
    --allow-build) and never touches the network.

    \b
    Examples:
      pincite mcp --repo /path/to/corpus
      pincite mcp --index /tmp/corpus.sqlite --allow-build
    """
    if importlib.util.find_spec("mcp") is None:
        raise UsageError("the MCP server needs the official `mcp` Python SDK", hint=f"install it: {MCP_INSTALL}")
    from indexer.integrations.mcp_server import serve  # the SDK loads only for this command

    serve(repo, index_path, allow_build)
