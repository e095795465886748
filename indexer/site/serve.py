"""`pincite serve`: preview a built site on 127.0.0.1 (a static host, nothing more).

The standard library's file server, bound to the loopback address only, with the MIME
types Pagefind's files need and headers that keep the preview as strict as a good host:
`nosniff`, so a `.txt` original is never guessed to be HTML. It serves files of the site and
nothing else: no folder listings (a folder without `index.html` is 404), and no file a
symbolic link leads to outside the site folder.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from http import HTTPStatus
from pathlib import Path
from typing import Any

from indexer.errors import UsageError

HOST = "127.0.0.1"
MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
    ".sqlite": "application/vnd.sqlite3",
    ".wasm": "application/wasm",
    ".pagefind": "application/wasm",
    ".pf_meta": "application/octet-stream",
    ".pf_index": "application/octet-stream",
    ".pf_fragment": "application/octet-stream",
    ".pf_filter": "application/octet-stream",
}


class SiteRequestHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site folder on loopback: no directory listings, nothing outside the folder."""

    def send_head(self) -> Any:
        path = self.translate_path(self.path)
        served = os.path.join(path, "index.html") if os.path.isdir(path) else path
        if not _inside(served, self.directory):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "File not found")  # a static host lists no folders
        return None

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        suffix = os.path.splitext(str(path))[1].lower()
        return MIME_TYPES.get(suffix) or super().guess_type(path)

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        if getattr(self.server, "quiet", False):
            return
        super().log_message(format, *args)


def _inside(path: str, root: str) -> bool:
    """Whether `path`, its symbolic links followed, is a file inside the folder `root`."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real.startswith(top + os.sep) and os.path.isfile(real)


def make_server(site_dir: Path, port: int = 8000, *, quiet: bool = False) -> http.server.ThreadingHTTPServer:
    """A server for `site_dir` on 127.0.0.1:`port` (0 picks a free port); call serve_forever()."""
    if not (site_dir / "index.html").is_file():
        raise UsageError(f"{site_dir}: no built site here (index.html missing)", hint="run `pincite build` first")
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port} is not a TCP port (0-65535)")
    handler = functools.partial(SiteRequestHandler, directory=str(site_dir))
    try:
        server = http.server.ThreadingHTTPServer((HOST, port), handler)
    except OSError as exc:
        raise UsageError(f"cannot listen on {HOST}:{port}: {exc.strerror}", hint="pick another --port") from exc
    server.quiet = quiet  # type: ignore[attr-defined]
    return server


def serve_in_thread(site_dir: Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start a quiet server in a daemon thread; return it and its base URL (for tests and benchmarks)."""
    server = make_server(site_dir, port, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{HOST}:{server.server_address[1]}/"
