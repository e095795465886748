"""The network guard against a real HTTP server on 127.0.0.1.

Refusals run with the default guard and a URL that would reach the test server if the
guard let it through (so each test fails when the guard is removed); the paths that must
work run with allow_private=True, since the server is on a loopback address.
"""

from __future__ import annotations

import gzip
import ipaddress
import socket
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from webserver import Route, WebServer, internet_via, self_signed

from indexer import __version__
from indexer.errors import FetchError, GuardRefusal, UsageError
from indexer.snapshots.guard import FetchLimits, check_url, fetch
from indexer.snapshots.netaddr import canonical_url, redact, refusal_reason

FAST = FetchLimits(max_bytes=100_000, connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0)
PUBLIC = "93.184.215.14"


def only(*answers: list[str]) -> tuple[list[str], object]:
    """A resolver giving `answers` in turn, recording each host it was asked for."""
    asked: list[str] = []
    pending = list(answers)

    def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return pending.pop(0) if len(pending) > 1 else pending[0]

    return asked, resolve


# -- refusals: addresses --------------------------------------------------------------------
LOOPBACK_FORMS = [
    "http://127.0.0.1:{port}/page",
    "http://localhost:{port}/page",
    "http://LocalHost.:{port}/page",
    "http://[::1]:{port}/page",
    "http://[::ffff:127.0.0.1]:{port}/page",
    "http://2130706433:{port}/page",
    "http://0x7f.1:{port}/page",
    "http://0177.0.0.1:{port}/page",
    "http://127.1:{port}/page",
    "http://0.0.0.0:{port}/page",
    "http://[::]:{port}/page",
]


@pytest.mark.parametrize("form", LOOPBACK_FORMS)
def test_loopback_in_every_spelling_is_refused_before_connecting(web: WebServer, form: str) -> None:
    web.page("/page", "<p>secret admin page</p>")
    with pytest.raises(GuardRefusal) as caught:
        fetch(form.format(port=web.port), limits=FAST)
    assert "refused" in str(caught.value)
    assert "--allow-private" in str(caught.value)
    assert web.requests == []


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://198.18.0.1/",
        "http://224.0.0.1/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    ],
)
def test_internal_addresses_are_refused(url: str) -> None:
    with pytest.raises(GuardRefusal):
        fetch(url, limits=FAST)


@pytest.mark.parametrize("private", ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "::ffff:10.0.0.1"])
def test_a_hostname_resolving_to_a_private_address_is_refused(web: WebServer, private: str) -> None:
    web.page("/page", "<p>intranet</p>")
    asked, resolver = only(["127.0.0.1"] if private == "127.0.0.1" else [private])
    with pytest.raises(GuardRefusal) as caught:
        fetch(f"http://intranet.example:{web.port}/page", resolver=resolver, limits=FAST)  # type: ignore[arg-type]
    assert f"intranet.example resolves to {private}" in str(caught.value)
    assert asked == ["intranet.example"]
    assert web.requests == []


def test_every_resolved_address_is_checked(web: WebServer) -> None:
    web.page("/page", "<p>x</p>")
    _, resolver = only([PUBLIC, "127.0.0.1"])
    log: list[tuple[str, int]] = []
    with pytest.raises(GuardRefusal):
        fetch(f"http://mixed.example:{web.port}/page", resolver=resolver, connector=internet_via(web, log))  # type: ignore[arg-type]
    assert log == [] and web.requests == []


def test_rebinding_cannot_swap_the_address_the_guard_checked(web: WebServer) -> None:
    """The host answers public first, then private: the connection goes to the checked public one."""
    web.page("/page", "<p>the public page</p>")
    asked, resolver = only([PUBLIC], ["127.0.0.1"])
    log: list[tuple[str, int]] = []
    page = fetch(
        f"http://rebind.example:{web.port}/page",
        resolver=resolver,  # type: ignore[arg-type]
        connector=internet_via(web, log),  # type: ignore[arg-type]
        limits=FAST,
    )
    assert asked == ["rebind.example"]  # resolved once
    assert log == [(PUBLIC, web.port)]  # connected to the checked address, never by name
    assert page.resolved_ip == PUBLIC
    assert web.requests[0].headers["Host"] == f"rebind.example:{web.port}"
    assert page.body == b"<p>the public page</p>"


def test_the_connection_goes_to_the_resolved_address_with_the_hostname_as_host(web: WebServer) -> None:
    web.page("/page", "<p>intranet page</p>")
    asked, resolver = only(["127.0.0.1"], ["10.255.255.1"])
    page = fetch(f"http://wiki.internal:{web.port}/page", allow_private=True, resolver=resolver, limits=FAST)  # type: ignore[arg-type]
    assert asked == ["wiki.internal"]
    assert page.resolved_ip == "127.0.0.1"
    assert web.requests[0].headers["Host"] == f"wiki.internal:{web.port}"


def test_https_keeps_the_hostname_for_sni_and_the_certificate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = self_signed(tmp_path, "secure.example")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trust the test certificate only
    server = WebServer(tls=(cert, key))
    try:
        server.page("/page", "<p>over TLS</p>")
        page = fetch(
            server.url("/page", host="secure.example", scheme="https"),
            allow_private=True,
            resolver=lambda h, p: ["127.0.0.1"],
            limits=FAST,
        )
        assert page.body == b"<p>over TLS</p>" and page.resolved_ip == "127.0.0.1"
        assert server.server_names == ["secure.example"]
        assert server.requests[0].headers["Host"] == f"secure.example:{server.port}"
        with pytest.raises(FetchError, match=r"CERTIFICATE_VERIFY_FAILED|certificate"):
            fetch(
                server.url("/page", host="other.example", scheme="https"),
                allow_private=True,
                resolver=lambda h, p: ["127.0.0.1"],
                limits=FAST,
            )
    finally:
        server.close()


def test_a_hanging_dns_lookup_is_cut_by_the_connect_limit() -> None:
    release = threading.Event()

    def stuck(host: str, port: int) -> list[str]:
        release.wait(30)
        return [PUBLIC]

    try:
        with pytest.raises(FetchError, match=r"timed out resolving slow\.example"):
            fetch("http://slow.example/", resolver=stuck, limits=FetchLimits(connect_timeout=0.3))
    finally:
        release.set()


def test_an_unknown_host_is_a_clear_error() -> None:
    def nxdomain(host: str, port: int) -> list[str]:
        raise socket.gaierror(-2, "Name or service not known")

    with pytest.raises(FetchError, match=r"could not resolve nowhere\.example"):
        fetch("http://nowhere.example/", resolver=nxdomain, limits=FAST)


# -- refusals: schemes and credentials ---------------------------------------------------------
@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1:70/1", "javascript:x"])
def test_only_http_and_https(url: str) -> None:
    with pytest.raises(GuardRefusal) as caught:
        fetch(url, allow_private=True, limits=FAST)
    assert "only http and https" in str(caught.value)


def test_credentials_are_refused_and_never_echoed(web: WebServer) -> None:
    web.page("/page", "<p>x</p>")
    url = f"http://user:hunter2@127.0.0.1:{web.port}/page"
    with pytest.raises(GuardRefusal) as caught:
        fetch(url, allow_private=True, limits=FAST)
    assert "credentials" in str(caught.value)
    assert "hunter2" not in str(caught.value) and "user" not in caught.value.message.split(":", 1)[1]
    assert web.requests == []
    assert redact(url) == f"http://***@127.0.0.1:{web.port}/page"


def test_malformed_urls_are_usage_errors() -> None:
    for url in ["", "http://", "http://exa mple.org:99999/", "http://host\n/"]:
        with pytest.raises((UsageError, GuardRefusal)):
            check_url(url, resolver=lambda h, p: [PUBLIC])


# -- refusals: responses ----------------------------------------------------------------------
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_are_refused_naming_the_target(web: WebServer, status: int) -> None:
    web.routes["/old"] = Route(b"", status, {"Location": "/new?x=1"})
    web.page("/new", "<p>moved here</p>")
    with pytest.raises(FetchError) as caught:
        fetch(web.url("/old"), allow_private=True, limits=FAST)
    target = web.url("/new?x=1")
    assert f"HTTP {status}" in str(caught.value) and target in str(caught.value)
    assert f"pincite snapshot '{target}'" in (caught.value.hint or "")  # quoted for the shell: it has '?'
    assert [r.path for r in web.requests] == ["/old"]


def test_a_malformed_redirect_target_is_a_clear_error(web: WebServer) -> None:
    web.routes["/odd"] = Route(b"", 302, {"Location": "http://[::1"})
    with pytest.raises(FetchError, match=r"(?i)location"):
        fetch(web.url("/odd"), allow_private=True, limits=FAST)


def test_a_body_over_the_cap_is_refused_from_its_content_length(web: WebServer) -> None:
    url = web.page("/big", b"x" * 5000, "text/plain")
    with pytest.raises(FetchError, match="over the limit of 1000"):
        fetch(url, allow_private=True, limits=FetchLimits(max_bytes=1000, total_timeout=5.0))


def test_a_body_over_the_cap_is_cut_while_streaming(web: WebServer) -> None:
    url = web.page("/big", b"x" * 50_000, "text/plain", send_length=False)
    with pytest.raises(FetchError, match="over the limit of 1000"):
        fetch(url, allow_private=True, limits=FetchLimits(max_bytes=1000, total_timeout=5.0))


def test_a_trickling_server_hits_the_total_time_limit(web: WebServer) -> None:
    url = web.page("/slow", b"y" * 400, "text/plain", trickle=0.05)  # 20 s in all, a byte every 50 ms
    limits = FetchLimits(max_bytes=10_000, connect_timeout=1.0, read_timeout=1.0, total_timeout=1.0)
    with pytest.raises(FetchError, match="timed out"):
        fetch(url, allow_private=True, limits=limits)


def test_a_gzip_bomb_stops_at_the_cap(web: WebServer) -> None:
    bomb = gzip.compress(b"\0" * 20_000_000, compresslevel=9)
    assert len(bomb) < 100_000
    web.routes["/bomb"] = Route(bomb, headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"})
    url = web.url("/bomb")
    with pytest.raises(FetchError, match="once decompressed"):
        fetch(url, allow_private=True, limits=FetchLimits(max_bytes=100_000, total_timeout=10.0))


def test_gzip_bodies_are_decoded(web: WebServer) -> None:
    text = "plain words, compressed on the wire\n" * 50
    web.routes["/z"] = Route(
        gzip.compress(text.encode()), headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"}
    )
    page = fetch(web.url("/z"), allow_private=True, limits=FAST)
    assert page.body == text.encode()
    assert web.requests[0].headers["Accept-Encoding"] == "gzip, deflate"


def test_an_unknown_content_encoding_is_refused(web: WebServer) -> None:
    web.routes["/br"] = Route(b"\x1b\x00", headers={"Content-Type": "text/plain", "Content-Encoding": "br"})
    with pytest.raises(FetchError, match="unsupported content encoding"):
        fetch(web.url("/br"), allow_private=True, limits=FAST)


@pytest.mark.parametrize("content_type", ["application/octet-stream", "image/png", "text/css", "application/json", ""])
def test_content_types_outside_the_allowlist_are_refused(web: WebServer, content_type: str) -> None:
    url = web.page("/thing", b"\x89PNG....", content_type)
    with pytest.raises(FetchError, match="is not snapshotted"):
        fetch(url, allow_private=True, limits=FAST)


@pytest.mark.parametrize("status", [404, 500])
def test_error_statuses_are_refused(web: WebServer, status: int) -> None:
    web.routes["/x"] = Route(b"<p>oops</p>", status)
    with pytest.raises(FetchError, match=f"HTTP {status}"):
        fetch(web.url("/x"), allow_private=True, limits=FAST)


def test_a_body_cut_short_is_an_error(web: WebServer) -> None:
    url = web.page("/cut", b"only part", "text/plain", declared_length=5000)
    with pytest.raises(FetchError):
        fetch(url, allow_private=True, limits=FAST)


def test_a_closed_port_is_a_clear_error() -> None:
    server = WebServer()
    url = server.url("/")
    server.close()
    with pytest.raises(FetchError, match="the fetch failed"):
        fetch(url, allow_private=True, limits=FAST)


# -- what a good fetch records -------------------------------------------------------------------
def test_a_page_is_fetched_with_its_headers_and_our_user_agent(web: WebServer) -> None:
    body = "<html><body><p>Café prices</p></body></html>".encode()
    web.routes["/p"] = Route(
        body,
        headers={
            "Content-Type": "text/html; charset=UTF-8",
            "ETag": '"v1"',
            "Last-Modified": "Sun, 01 Nov 2026 10:00:00 GMT",
            "Content-Language": "en",
        },
    )
    page = fetch(web.url("/p#section"), allow_private=True, limits=FAST)
    assert page.body == body and page.status == 200
    assert page.media_type == "text/html" and page.charset == "UTF-8" and page.extension == "html"
    assert page.headers == {"etag": '"v1"', "last-modified": "Sun, 01 Nov 2026 10:00:00 GMT", "content-language": "en"}
    assert page.final_url == web.url("/p") and page.url == web.url("/p#section")
    assert web.requests[0].path == "/p"
    assert web.requests[0].headers["User-Agent"] == f"pincite/{__version__}"


def test_proxy_environment_variables_are_ignored(web: WebServer, monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = WebServer()
    try:
        for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
            monkeypatch.setenv(name, proxy.url(""))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        url = web.page("/direct", "<p>direct</p>")
        page = fetch(
            url.replace("127.0.0.1", "direct.example"), allow_private=True, resolver=lambda h, p: ["127.0.0.1"]
        )
        assert page.body == b"<p>direct</p>"
        assert proxy.requests == []
    finally:
        proxy.close()


# -- the address rules as properties ----------------------------------------------------------------
def _blocked_v4() -> st.SearchStrategy[ipaddress.IPv4Address]:
    nets = ["10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
            "198.18.0.0/15", "0.0.0.0/8", "224.0.0.0/4", "240.0.0.0/4"]  # fmt: skip
    return st.sampled_from(nets).flatmap(
        lambda n: st.integers(0, ipaddress.IPv4Network(n).num_addresses - 1).map(
            lambda i, n=n: ipaddress.IPv4Network(n)[i]  # type: ignore[misc]
        )
    )


@given(_blocked_v4())
def test_a_blocked_ipv4_address_is_refused_in_every_ipv6_disguise(ip: ipaddress.IPv4Address) -> None:
    n = int(ip)
    disguises = [
        str(ip),
        f"::ffff:{ip}",  # IPv4-mapped
        str(ipaddress.IPv6Address((0x0064_FF9B << 96) | n)),  # NAT64
        str(ipaddress.IPv6Address((0x2002 << 112) | (n << 80) | 1)),  # 6to4
    ]
    for form in disguises:
        assert refusal_reason(form) is not None, form


@given(st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address))
def test_ipv4_and_its_mapped_form_get_the_same_answer(ip: ipaddress.IPv4Address) -> None:
    assert (refusal_reason(str(ip)) is None) == (refusal_reason(f"::ffff:{ip}") is None)
    if refusal_reason(str(ip)) is None:
        assert ip.is_global and not ip.is_multicast


@given(
    st.text(alphabet="abcdefgh/-_.%20", max_size=30),
    st.text(alphabet="abc=&", max_size=10),
    st.text(alphabet="abc-_?/é#", max_size=10),
)
def test_the_fragment_never_changes_the_canonical_url(path: str, query: str, fragment: str) -> None:
    base = f"https://Example.ORG/{path}" + (f"?{query}" if query else "")
    try:
        plain = canonical_url(base)
    except UsageError:
        return
    assert canonical_url(f"{base}#{fragment}") == plain
    assert "#" not in plain and plain.startswith("https://example.org/")
