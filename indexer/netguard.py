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
import ipaddress
import re
import socket
import ssl
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

import httpcore
import httpx

from . import __version__
from .errors import FetchError, GuardRefusal, UsageError

USER_AGENT = f"pincite/{__version__}"
ALLOWED_SCHEMES = ("http", "https")
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

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
# Opens a TCP stream to an already checked address. Tests stand in for the public
# internet with their own; everything else uses httpcore's plain socket backend.
Connector = Callable[[str, int, float | None], httpcore.NetworkStream]

_BLOCKED: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", "an unspecified ('this network') address"),
    ("10.0.0.0/8", "a private address"),
    ("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
    ("127.0.0.0/8", "a loopback address"),
    ("169.254.0.0/16", "a link-local address (cloud metadata services live here)"),
    ("172.16.0.0/12", "a private address"),
    ("192.0.0.0/24", "an IETF protocol assignment address"),
    ("192.0.2.0/24", "a documentation address"),
    ("192.88.99.0/24", "a 6to4 relay anycast address"),
    ("192.168.0.0/16", "a private address"),
    ("198.18.0.0/15", "a benchmarking address"),
    ("198.51.100.0/24", "a documentation address"),
    ("203.0.113.0/24", "a documentation address"),
    ("224.0.0.0/4", "a multicast address"),
    ("240.0.0.0/4", "a reserved address"),
    ("::/128", "the unspecified address"),
    ("::1/128", "a loopback address"),
    ("64:ff9b:1::/48", "a local-use NAT64 address"),
    ("100::/64", "a discard-only address"),
    ("2001::/32", "a Teredo tunnel address"),
    ("2001::/23", "an IETF protocol assignment address"),
    ("2001:db8::/32", "a documentation address"),
    ("fc00::/7", "a unique-local (private) address"),
    ("fe80::/10", "a link-local address"),
    ("fec0::/10", "a site-local address"),
    ("ff00::/8", "a multicast address"),
)
_BLOCKED_NETS = tuple((ipaddress.ip_network(net), why) for net, why in _BLOCKED)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_LEGACY_IPV4 = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}", re.IGNORECASE)


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
def refusal_reason(address: str) -> str | None:
    """Why the guard refuses to connect to `address`, or None when it is a public address."""
    try:
        ip: Address = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address!r} is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            inner = refusal_reason(str(embedded))
            return f"{ip} embeds {embedded}, {inner}" if inner else None
    for net, why in _BLOCKED_NETS:
        if ip.version == net.version and ip in net:
            return f"{ip} is {why}"
    if not ip.is_global:
        return f"{ip} is not a public address"
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped, -compatible, NAT64 or 6to4 address reaches."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def redact(url: str) -> str:
    """The URL without credentials, for messages: a password never reaches a log."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))


def check_url(url: str, *, allow_private: bool = False, resolver: Resolver | None = None) -> Target:
    """Accept `url` for fetching or raise GuardRefusal / UsageError saying why."""
    parts = _split(url)
    host, literal = _host_of(url, parts)
    port = _port_of(url, parts)
    canonical = _canonical(url, parts, host, literal, port)
    host = httpx.URL(canonical).raw_host.decode("ascii")  # IDNA form: what DNS is asked
    if literal is not None:
        addresses = [literal]
    else:
        bare = host.rstrip(".")
        if not allow_private and (bare == "localhost" or bare.endswith(".localhost")):
            raise GuardRefusal(f"refused {redact(url)}: {host} names this machine", hint=_PRIVATE_HINT)
        addresses = _resolve(url, host, port, resolver or system_resolver)
    if not allow_private:
        for address in addresses:
            reason = refusal_reason(address)
            if reason:
                via = "" if literal is not None else f"{host} resolves to {address}; "
                raise GuardRefusal(f"refused {redact(url)}: {via}{reason}", hint=_PRIVATE_HINT)
    connect_to = tuple(_connectable(a) for a in addresses)
    return Target(canonical, host, port, connect_to)


def canonical_url(url: str) -> str:
    """The URL as pincite requests it: lower-case scheme and host, IPv4 in dotted form,
    default port and fragment dropped. No network access; refusals of `check_url` that
    need no DNS (scheme, credentials) apply."""
    parts = _split(url)
    host, literal = _host_of(url, parts)
    return _canonical(url, parts, host, literal, _port_of(url, parts))


def _canonical(url: str, parts: SplitResult, host: str, literal: str | None, port: int) -> str:
    netloc_host = f"[{literal}]" if literal and ":" in literal else (literal or host)
    default_port = {"http": 80, "https": 443}[parts.scheme.lower()]
    netloc = netloc_host if port == default_port else f"{netloc_host}:{port}"
    canonical = urlunsplit((parts.scheme.lower(), netloc, parts.path or "/", parts.query, ""))
    try:
        normal = urlsplit(str(httpx.URL(canonical)))  # dot segments removed, IDNA applied
    except httpx.InvalidURL as exc:
        raise UsageError(f"{redact(url)}: not a valid URL ({exc})", hint="check the address") from exc
    return urlunsplit(normal._replace(path=normal.path or "/"))


_PRIVATE_HINT = (
    "pincite snapshots public pages only; for an intranet page use --allow-private (unsafe, see docs/security.md)"
)


def _split(url: str) -> SplitResult:
    if any(c in url for c in "\0\r\n\t") or not url.strip():
        raise UsageError(f"{url!r} is not a URL", hint="give an http:// or https:// address")
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:
        raise UsageError(f"{redact(url)}: not a valid URL ({exc})", hint="check the address") from exc
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        scheme = parts.scheme or "no scheme"
        raise GuardRefusal(
            f"refused {redact(url)}: {scheme} URLs are not fetched, only http and https",
            hint="give an http:// or https:// address",
        )
    if "@" in parts.netloc:
        raise GuardRefusal(
            f"refused {redact(url)}: credentials in the URL",
            hint="pincite snapshots public pages and never stores passwords; remove the user:password@ part",
        )
    return parts


def _host_of(url: str, parts: SplitResult) -> tuple[str, str | None]:
    """(hostname, IP literal or None). Legacy IPv4 forms (127.1, 0x7f.1, 2130706433) are literals."""
    host = (parts.hostname or "").lower()
    if not host:
        raise UsageError(f"{redact(url)}: the URL has no host", hint="give an address like https://example.org/page")
    try:
        return host, str(ipaddress.ip_address(host.split("%", 1)[0]))
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(host):
        try:
            return host, socket.inet_ntoa(socket.inet_aton(host))
        except OSError as exc:
            raise UsageError(f"{redact(url)}: {host} is not a valid IPv4 address") from exc
    return host, None


def _port_of(url: str, parts: SplitResult) -> int:
    try:
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"{redact(url)}: bad port ({exc})") from exc
    return port if port is not None else {"http": 80, "https": 443}[parts.scheme.lower()]


def _connectable(address: str) -> str:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return address


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for `host`, in its order, without repeats."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _resolve(url: str, host: str, port: int, resolver: Resolver) -> list[str]:
    try:
        addresses = resolver(host, port)
    except (OSError, UnicodeError) as exc:
        raise FetchError(f"could not resolve {host} for {redact(url)}: {exc}", hint="check the host name") from exc
    if not addresses:
        raise FetchError(f"could not resolve {host} for {redact(url)}: no addresses", hint="check the host name")
    return list(addresses)


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
            ssl_context=httpx.create_ssl_context(),
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
    target = check_url(url, allow_private=allow_private, resolver=resolver)
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
        location = response.headers.get("location", "")
        where = redact(str(httpx.URL(target.url).join(location))) if location else "(no Location header)"
        raise FetchError(
            f"{shown}: the server redirects (HTTP {status}) to {where}; pincite does not follow redirects",
            hint=f"check that address and snapshot it explicitly: pincite snapshot '{where}'",
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
    if charset is not None:
        try:
            codecs.lookup(charset)
        except LookupError as exc:
            raise FetchError(f"{shown}: unknown charset {charset!r} in {raw_type!r}") from exc
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > limits.max_bytes:
        raise FetchError(
            f"{shown}: the body is {int(length)} bytes, over the limit of {limits.max_bytes}",
            hint="raise fetch_max_bytes in the configuration if the page is wanted",
        )
    return media_type, charset, ALLOWED_TYPES[media_type]


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
