"""The network guard: the only module in pincite that opens network connections.

`fetch(url)` gets one web page for `pincite snapshot`, refusing everything a hostile URL
or server could use against the machine running pincite (server-side request forgery)
or against the corpus (a body that is not what it claims to be):

- only `http` and `https`; credentials in the URL are refused and never stored;
- the host is resolved once and every address is checked (`refusal_reason`); the TCP
  connection then goes to a checked address, while the Host header and the TLS server
  name stay the URL's hostname, so a DNS answer that changes between check and connect
  (rebinding) cannot redirect the connection;
- proxy environment variables and `.netrc` are ignored (`trust_env=False`);
- redirects are refused, naming the target to snapshot explicitly instead;
- only status 200 and an allowlisted content type are accepted;
- the body is streamed under a size cap, decompressed by pincite itself under the same
  cap (a gzip bomb stops at the cap), within connect, read and total time limits.

`allow_private=True` switches off the address checks (intranet pages). It is unsafe on any
machine that can reach services which trust their network: see docs/security.md.
"""

from __future__ import annotations

import codecs
import hashlib
import shlex
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpcore
import httpx

from indexer import __version__
from indexer.text import charsets
from indexer.errors import FetchError, GuardRefusal
from indexer.snapshots.netaddr import connectable, parse_url, redact, refusal_reason

USER_AGENT = f"pincite/{__version__}"
# Media type -> file extension of the stored body.
ALLOWED_TYPES: dict[str, str] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "txt",
    "text/markdown": "md",
    "text/x-markdown": "md",
    "application/pdf": "pdf",
}
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
KEPT_HEADERS = ("etag", "last-modified", "content-language")

Resolver = Callable[[str, int], list[str]]
# Opens a TCP stream to an already checked address. Tests stand in for the public
# internet with their own; everything else uses httpcore's plain socket backend.
Connector = Callable[[str, int, float | None], httpcore.NetworkStream]


@dataclass(frozen=True)
class FetchLimits:
    """Size and time limits of one fetch (seconds and bytes)."""

    max_bytes: int = 10_000_000
    connect_timeout: float = 10.0
    read_timeout: float = 15.0
    total_timeout: float = 30.0


@dataclass(frozen=True)
class Target:
    """A URL the guard accepted: where the request goes and which addresses it may use."""

    url: str  # as the request sends it: canonical, no fragment, no credentials
    host: str
    port: int
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class FetchedPage:
    url: str  # as given
    final_url: str
    status: int
    media_type: str
    charset: str | None
    extension: str
    body: bytes
    sha256: str
    resolved_ip: str
    fetched_at: str  # ISO 8601 UTC, seconds
    headers: dict[str, str] = field(default_factory=dict)  # the KEPT_HEADERS present


# -- checking URLs and addresses ------------------------------------------------------
def check_url(
    url: str, *, allow_private: bool = False, resolver: Resolver | None = None, timeout: float = 10.0
) -> Target:
    """Accept `url` for fetching or raise GuardRefusal / UsageError saying why.

    `timeout` bounds the DNS lookup, which the system resolver would not.
    """
    parsed = parse_url(url)
    canonical, host, literal, port = parsed.canonical, parsed.host, parsed.literal, parsed.port
    if literal is not None:
        addresses = [literal]
    else:
        bare = host.rstrip(".")
        if not allow_private and (bare == "localhost" or bare.endswith(".localhost")):
            raise GuardRefusal(f"refused {redact(url)}: {host} names this machine", hint=_PRIVATE_HINT)
        addresses = _resolve(url, host, port, resolver or system_resolver, timeout)
    if not allow_private:
        for address in addresses:
            reason = refusal_reason(address)
            if reason:
                via = "" if literal is not None else f"{host} resolves to {address}; "
                raise GuardRefusal(f"refused {redact(url)}: {via}{reason}", hint=_PRIVATE_HINT)
    connect_to = tuple(connectable(a) for a in addresses)
    return Target(canonical, host, port, connect_to)


_PRIVATE_HINT = (
    "pincite snapshots public pages only; for an intranet page use --allow-private (unsafe, see docs/security.md)"
)


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for `host`, in its order, without repeats."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _resolve(url: str, host: str, port: int, resolver: Resolver, timeout: float) -> list[str]:
    answer: list[list[str] | BaseException] = []

    def lookup() -> None:
        try:
            answer.append(resolver(host, port))
        except BaseException as exc:  # handed to the caller's thread below
            answer.append(exc)

    worker = threading.Thread(target=lookup, name="pincite-resolve", daemon=True)
    worker.start()
    worker.join(timeout)
    if not answer:  # the lookup thread is abandoned: getaddrinfo cannot be cancelled
        raise FetchError(f"{redact(url)}: timed out resolving {host} ({timeout:g} s)", hint="check the host name")
    result = answer[0]
    if isinstance(result, (OSError, UnicodeError)):
        raise FetchError(f"could not resolve {host} for {redact(url)}: {result}", hint="check the host name")
    if isinstance(result, BaseException):
        raise result
    if not result:
        raise FetchError(f"could not resolve {host} for {redact(url)}: no addresses", hint="check the host name")
    return list(result)


# -- connecting to the checked address only -------------------------------------------
class _DeadlineStream(httpcore.NetworkStream):
    """A stream whose every read, write and TLS handshake ends by the fetch's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def _left(self, timeout: float | None, error: type[Exception]) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise error("the total time limit of the fetch was reached")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        left = self._left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, left), self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _PinnedBackend(httpcore.NetworkBackend):
    """Ignores the host httpcore asks for and connects to the checked addresses only.

    httpcore still uses the URL's hostname for the Host header and as the TLS server name
    (SNI and certificate check), so the page is the hostname's, over the checked address.
    """

    def __init__(self, addresses: tuple[str, ...], connector: Connector, deadline: float) -> None:
        self._addresses = addresses
        self._connector = connector
        self._deadline = deadline
        self.connected_to: str | None = None

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        del host, local_address, socket_options  # the checked addresses are the only destination
        last_error: Exception | None = None
        for address in self._addresses:
            left = self._deadline - time.monotonic()
            if left <= 0:
                break
            try:
                stream = self._connector(address, port, left if timeout is None else min(timeout, left))
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc
                continue
            self.connected_to = address
            return _DeadlineStream(stream, self._deadline)
        if isinstance(last_error, httpcore.ConnectError):
            raise last_error
        raise httpcore.ConnectTimeout("could not connect within the time limit")


def _default_connector(address: str, port: int, timeout: float | None) -> httpcore.NetworkStream:
    return httpcore.SyncBackend().connect_tcp(address, port, timeout=timeout)


class _PinnedTransport(httpx.BaseTransport):
    """An httpx transport over an httpcore pool whose network backend is pinned."""

    def __init__(self, backend: _PinnedBackend) -> None:
        self._pool = httpcore.ConnectionPool(
            # SSL_CERT_FILE / SSL_CERT_DIR choose the trusted CAs (an intranet's own CA).
            ssl_context=httpx.create_ssl_context(trust_env=True),
            max_connections=1,
            http1=True,
            http2=False,
            retries=0,
            network_backend=backend,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _mapped_errors():
            response = self._pool.handle_request(core_request)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_MappedStream(response.stream),  # type: ignore[arg-type]
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


class _MappedStream(httpx.SyncByteStream):
    def __init__(self, inner: Iterable[bytes]) -> None:
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        with _mapped_errors():
            yield from self._inner

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


_ERROR_MAP: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.NetworkError, httpx.NetworkError),
)


class _mapped_errors:  # noqa: N801 - used as a context manager
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if exc is None:
            return None
        for core, mapped in _ERROR_MAP:
            if isinstance(exc, core):
                raise mapped(str(exc) or core.__name__) from exc
        return None


# -- fetching ---------------------------------------------------------------------------
def fetch(
    url: str,
    *,
    allow_private: bool = False,
    limits: FetchLimits | None = None,
    resolver: Resolver | None = None,
    connector: Connector | None = None,
) -> FetchedPage:
    """GET `url` through the guard; the whole body in memory, or FetchError / GuardRefusal."""
    limits = limits or FetchLimits()
    target = check_url(url, allow_private=allow_private, resolver=resolver, timeout=limits.connect_timeout)
    deadline = time.monotonic() + limits.total_timeout
    backend = _PinnedBackend(target.addresses, connector or _default_connector, deadline)
    timeout = httpx.Timeout(
        connect=limits.connect_timeout, read=limits.read_timeout, write=limits.read_timeout, pool=limits.connect_timeout
    )
    headers = {
        "User-Agent": USER_AGENT,
        "Accept": "text/html, application/xhtml+xml, text/markdown, text/plain;q=0.9, application/pdf;q=0.9",
        "Accept-Encoding": "gzip, deflate",
    }
    shown = redact(url)
    try:
        with (
            httpx.Client(
                transport=_PinnedTransport(backend),
                trust_env=False,
                follow_redirects=False,
                timeout=timeout,
                headers=headers,
            ) as client,
            client.stream("GET", target.url) as response,
        ):
            media_type, charset, extension = _accept_response(shown, target, response, limits)
            body = _read_body(shown, response, limits, deadline)
            kept = {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers}
            status = response.status_code
    except httpx.TimeoutException as exc:
        raise FetchError(
            f"{shown}: timed out ({exc})",
            hint=f"the limits are {limits.connect_timeout:g} s to connect, {limits.read_timeout:g} s between "
            f"reads and {limits.total_timeout:g} s in total (setting fetch_timeout_seconds)",
        ) from exc
    except httpx.HTTPError as exc:
        raise FetchError(f"{shown}: the fetch failed ({type(exc).__name__}: {exc})", hint="try again later") from exc
    return FetchedPage(
        url=url,
        final_url=target.url,
        status=status,
        media_type=media_type,
        charset=charset,
        extension=extension,
        body=body,
        sha256=hashlib.sha256(body).hexdigest(),
        resolved_ip=backend.connected_to or "",
        fetched_at=datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        headers=kept,
    )


def _accept_response(
    shown: str, target: Target, response: httpx.Response, limits: FetchLimits
) -> tuple[str, str | None, str]:
    """(media type, charset, extension) of an acceptable response; FetchError otherwise."""
    status = response.status_code
    if status in REDIRECT_STATUSES:
        where = _redirect_target(target.url, response.headers.get("location", ""))
        raise FetchError(
            f"{shown}: the server redirects (HTTP {status}) to {where}; pincite does not follow redirects",
            hint=f"check that address and snapshot it explicitly: pincite snapshot {shlex.quote(where)}",
        )
    if status != 200:
        raise FetchError(
            f"{shown}: HTTP {status} {response.reason_phrase}; nothing was stored",
            hint="check the address; only pages answering 200 OK are snapshotted",
        )
    raw_type = response.headers.get("content-type", "")
    media_type, params = _parse_content_type(raw_type)
    if media_type not in ALLOWED_TYPES:
        raise FetchError(
            f"{shown}: content type {raw_type or '(none)'!r} is not snapshotted",
            hint="pincite snapshots HTML, plain text, Markdown and PDF",
        )
    charset = params.get("charset")
    if charset is not None and charsets.lookup(charset) is None:
        raise FetchError(
            f"{shown}: unknown charset {charset!r} in {raw_type!r}",
            hint="pincite reads charsets as browsers do (WHATWG labels); UTF-7 is never read",
        )
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > limits.max_bytes:
        raise FetchError(
            f"{shown}: the body is {int(length)} bytes, over the limit of {limits.max_bytes}",
            hint="raise fetch_max_bytes in the configuration if the page is wanted",
        )
    return media_type, charset, ALLOWED_TYPES[media_type]


def _redirect_target(base: str, location: str) -> str:
    if not location:
        return "(no Location header)"
    try:
        return redact(str(httpx.URL(base).join(location)))
    except (httpx.InvalidURL, ValueError):
        return repr(location)


def _parse_content_type(value: str) -> tuple[str, dict[str, str]]:
    media_type, _, rest = value.partition(";")
    params: dict[str, str] = {}
    for item in rest.split(";"):
        name, eq, val = item.partition("=")
        if eq:
            params[name.strip().lower()] = val.strip().strip('"').strip()
    return media_type.strip().lower(), params


def _read_body(shown: str, response: httpx.Response, limits: FetchLimits, deadline: float) -> bytes:
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    decoder = _decoder_for(shown, encoding)
    cap = limits.max_bytes
    over = FetchError(
        f"{shown}: the body is over the limit of {cap} bytes{'' if decoder is None else ' once decompressed'}; "
        "nothing was stored",
        hint="raise fetch_max_bytes in the configuration if the page is wanted",
    )
    parts: list[bytes] = []
    received = produced = 0
    for chunk in response.iter_raw():
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("the total time limit of the fetch was reached")
        received += len(chunk)
        if received > cap:
            raise over
        pending = chunk
        while pending:
            if decoder is None:
                out, pending = pending, b""
            else:
                out = _inflate(shown, decoder, pending, cap - produced + 1)
                pending = decoder.unconsumed_tail
            produced += len(out)
            if produced > cap:
                raise over
            parts.append(out)
    if decoder is not None:
        tail = decoder.flush()
        produced += len(tail)
        if produced > cap:
            raise over
        parts.append(tail)
        if not decoder.eof:
            raise FetchError(f"{shown}: the compressed body ends early; nothing was stored", hint="try again later")
    return b"".join(parts)


def _decoder_for(shown: str, encoding: str) -> Any:
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS)
    raise FetchError(f"{shown}: unsupported content encoding {encoding!r}", hint="the server should send gzip or none")


def _inflate(shown: str, decoder: Any, data: bytes, max_length: int) -> bytes:
    try:
        out: bytes = decoder.decompress(data, max_length)
    except zlib.error as exc:
        raise FetchError(f"{shown}: the compressed body is corrupt ({exc}); nothing was stored") from exc
    return out
