"""`pincite serve`: the site preview command."""

from __future__ import annotations

from pathlib import Path

import click

from indexer import api
from indexer.cli.common import repo_option


@click.command("serve")
@click.option("--port", default=8000, show_default=True, type=int, help="TCP port on 127.0.0.1 (0: any free port).")
@click.option(
    "--dir",
    "site_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="The built site folder (default: `site_dir` from the config of --repo, _site).",
)
@repo_option
def serve_command(port: int, site_dir: Path | None, repo: Path) -> None:
    """Preview the built static site at http://127.0.0.1:PORT/ (loopback only).

    \b
    Examples:
      pincite build && pincite serve            then open http://127.0.0.1:8000/
      pincite serve --dir public --port 9000

    Any static file host serves the same folder; this one only adds the MIME types
    Pagefind's index files need. Stop it with Ctrl-C.
    """
    preview = api.serve(repo, site_dir=site_dir, port=port)
    server = preview.server
    click.echo(f"serving {preview.folder} at {preview.url} (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.server_close()
