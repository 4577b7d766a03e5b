"""The strict reading of a return address (``payments.return_origins``), beside the HTTP tests
of POST /checkout/pay: IPv6 hosts, ports and what an origin setting may hold."""

from __future__ import annotations

import pytest

from companion.payments.return_origins import (
    NotPlain,
    Origin,
    SiteOrigins,
    read_origin,
    read_url,
    return_url_refusal,
)


@pytest.mark.parametrize(
    ("text", "origin", "rest"),
    [
        ("https://shop.example.vn", Origin("https", "shop.example.vn", 443), ""),
        ("HTTP://Shop.Example.VN:80/a?b=c", Origin("http", "shop.example.vn", 80), "/a?b=c"),
        ("https://[::1]:8443/ket-qua", Origin("https", "[::1]", 8443), "/ket-qua"),
        ("http://127.0.0.1:8000?x=%2F", Origin("http", "127.0.0.1", 8000), "?x=%2F"),
        ("https://xn--hng-7na.vn/", Origin("https", "xn--hng-7na.vn", 443), "/"),
        ("https://shop.example.vn:65535/", Origin("https", "shop.example.vn", 65535), "/"),
    ],
)
def test_plain_addresses_are_read_as_a_browser_reads_them(
    text: str, origin: Origin, rest: str
) -> None:
    assert read_url(text) == (origin, rest)


@pytest.mark.parametrize(
    "text",
    [
        "https://[::g]/",
        "https://[::1/",
        "https://shop..example.vn/",
        "https://.shop.example.vn/",
        "https://shop.example.vn:65536/",
        "https://shop.example.vn:8443:1/",
        "https://shop_example.vn/",
        "https://shop.example.vn\x00/",
    ],
)
def test_hosts_and_ports_that_are_not_plain_are_refused(text: str) -> None:
    with pytest.raises(NotPlain):
        read_url(text)


def test_an_origin_setting_holds_no_path() -> None:
    assert read_origin("https://shop.example.vn/") == Origin("https", "shop.example.vn", 443)
    with pytest.raises(NotPlain, match="not an origin"):
        read_origin("https://shop.example.vn/shop")


def test_the_default_port_written_or_not_is_one_origin() -> None:
    allowed = SiteOrigins(
        frozenset({read_origin("https://shop.example.vn:443"), read_origin("http://[::1]:8000")})
    )
    assert return_url_refusal("https://shop.example.vn/ket-qua", allowed) is None
    assert return_url_refusal("http://[::1]:8000/ket-qua", allowed) is None
    assert return_url_refusal("http://[::2]:8000/ket-qua", allowed) is not None


def test_a_loopback_host_of_the_store_is_its_site_on_any_port() -> None:
    """The demo store's host names (``localhost``, ``127.0.0.1``): a preview on this machine
    listens on a port of its own."""
    allowed = SiteOrigins(frozenset(), frozenset({"127.0.0.1", "localhost"}))
    assert return_url_refusal("http://127.0.0.1:8000/thanh-toan/ket-qua", allowed) is None
    assert return_url_refusal("https://localhost:5173/thanh-toan/ket-qua", allowed) is None
    assert return_url_refusal("http://127.0.0.2:8000/", allowed) is not None
    assert return_url_refusal("http://localhost.evil.test:8000/", allowed) is not None
    assert return_url_refusal("http://evil.test\\@127.0.0.1:8000/", allowed) is not None
