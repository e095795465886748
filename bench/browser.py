"""The browser side of the site scenarios: chromium through Playwright, and a local server that counts bytes."""

from __future__ import annotations

import gzip
import http.server
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from tests.browser import CHROMIUM, CHROMIUM_ARGS

TEXT = (".html", ".js", ".css", ".json")


def launch(playwright: Any) -> Any:
    """Debian's chromium, as the browser tests launch it."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


@dataclass(frozen=True)
class Request:
    path: str
    raw: int  # bytes of the file
    wire: int  # what a host that gzips text (as most static hosts do) would send; Pagefind's files as they are


class CountingServer:
    """A site served on the loopback address, every request's bytes counted.

    With `static`, files under `/static/` come from that folder when it has them (a site built
    before a change to the scripts then runs the current ones).
    """

    def __init__(self, site: Path, static: Path | None = None) -> None:
        from indexer.site.serve import HOST, SiteRequestHandler

        self.lock = threading.Lock()
        self.requests: list[Request] = []
        counter = self

        class Counting(SiteRequestHandler):
            def translate_path(self, path: str) -> str:
                rel = unquote(urlsplit(path).path)
                if static is not None and rel.startswith("/static/") and (static / rel[len("/static/") :]).is_file():
                    return str(static / rel[len("/static/") :])
                return str(super().translate_path(path))

            def copyfile(self, source: Any, outputfile: Any) -> None:
                data = source.read()
                outputfile.write(data)
                text = self.path.split("?")[0].endswith(TEXT)
                wire = len(gzip.compress(data, 6)) if text else len(data)
                with counter.lock:
                    counter.requests.append(Request(self.path, len(data), wire))

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((HOST, 0), lambda *a: Counting(*a, directory=str(site)))
        self.base = f"http://{HOST}:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self) -> list[Request]:
        """The requests since the last take."""
        with self.lock:
            seen, self.requests = self.requests, []
        return seen

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> CountingServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
