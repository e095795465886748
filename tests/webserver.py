"""A real HTTP server on 127.0.0.1 for the snapshot and network-guard tests.

Each route answers with a status, headers and a body; a route can trickle its body byte by
byte, send no Content-Length (the body ends when the connection closes), or promise more
bytes than it sends. Every request is recorded (path and headers).
"""

from __future__ import annotations

import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpcore


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})
    trickle: float | None = None  # seconds between single bytes
    send_length: bool = True
    declared_length: int | None = None  # a Content-Length that lies


@dataclass(frozen=True)
class Seen:
    path: str
    headers: dict[str, str]


class WebServer:
    def __init__(self, tls: tuple[Path, Path] | None = None) -> None:
        """`tls`: (certificate, key) files to serve https; `server_names` records each TLS SNI."""
        self.routes: dict[str, Route] = {}
        self.requests: list[Seen] = []
        self.server_names: list[str | None] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(Seen(self.path, dict(self.headers.items())))
                route = server.routes.get(self.path, Route(b"not found", 404, {"Content-Type": "text/plain"}))
                self.send_response(route.status)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                if route.send_length:
                    length = len(route.body) if route.declared_length is None else route.declared_length
                    self.send_header("Content-Length", str(length))
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    if route.trickle is None:
                        self.wfile.write(route.body)
                    else:
                        for i in range(len(route.body)):
                            self.wfile.write(route.body[i : i + 1])
                            self.wfile.flush()
                            time.sleep(route.trickle)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            context.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)  # type: ignore[assignment,func-returns-value]
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def url(self, path: str, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    def page(self, path: str, body: bytes | str, content_type: str = "text/html; charset=utf-8", **kw: object) -> str:
        data = body.encode("utf-8") if isinstance(body, str) else body
        headers = {"Content-Type": content_type} if content_type else {}
        self.routes[path] = Route(data, headers=headers, **kw)  # type: ignore[arg-type]
        return self.url(path)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def serve() -> Iterator[WebServer]:
    """Body of each test module's `web` fixture: a server for one test."""
    server = WebServer()
    yield server
    server.close()


def internet_via(server: WebServer, log: list[tuple[str, int]]) -> Callable[[str, int, float | None], object]:
    """A connector standing in for the public internet: every public address is `server`.

    It records the address the guard asked for, so a test sees where the connection went.
    """

    def connect(address: str, port: int, timeout: float | None) -> httpcore.NetworkStream:
        log.append((address, port))
        return httpcore.SyncBackend().connect_tcp("127.0.0.1", server.port, timeout=timeout)

    return connect


def self_signed(folder: Path, hostname: str) -> tuple[Path, Path]:
    """A certificate for `hostname` (and its key), made with the openssl command."""
    cert, key = folder / f"{hostname}.crt", folder / f"{hostname}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", str(key),
         "-out", str(cert), "-subj", f"/CN={hostname}", "-addext", f"subjectAltName=DNS:{hostname}"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key
