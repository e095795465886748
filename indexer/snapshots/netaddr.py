"""The guard's rules for URLs and addresses: pure functions, no network access.

`netguard` applies them before it connects; `snapshot` uses `canonical_url` to derive a
stable path for a URL. Every address is judged after undoing the IPv6 forms that embed an
IPv4 address (mapped, compatible, NAT64, 6to4), so a blocked IPv4 address cannot come back
in disguise.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit, urlunsplit

import httpx

from indexer.errors import GuardRefusal, UsageError

ALLOWED_SCHEMES = ("http", "https")
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

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


def canonical_url(url: str) -> str:
    """The URL as pincite requests it: lower-case scheme and host, IPv4 in dotted form,
    default port and fragment dropped. No network access; refusals of `check_url` that
    need no DNS (scheme, credentials) apply."""
    return parse_url(url).canonical


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


@dataclass(frozen=True)
class ParsedUrl:
    canonical: str  # as requested: lower-case scheme and host, no fragment, dotted IPv4
    host: str  # IDNA (ASCII) form: what DNS is asked
    literal: str | None  # the IP address when the host is one (legacy IPv4 forms included)
    port: int


def parse_url(url: str) -> ParsedUrl:
    """Check scheme and credentials and take `url` apart; UsageError / GuardRefusal say why not."""
    parts = _split(url)
    host, literal = _host_of(url, parts)
    port = _port_of(url, parts)
    canonical = _canonical(url, parts, host, literal, port)
    return ParsedUrl(canonical, httpx.URL(canonical).raw_host.decode("ascii"), literal, port)


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


def connectable(address: str) -> str:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return address
