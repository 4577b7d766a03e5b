"""`storefront serve --api-url`: what the proxy forwards, as the API receives it.

Both ends are real HTTP servers on loopback: the proxy stack as `storefront serve` runs it, and
an upstream that records every request it is sent (method, raw path, query, headers, body) and
answers 200. Requests go out through ``http.client``, which sends the request target exactly as
written (httpx would resolve the dot segments before sending).
"""

from __future__ import annotations

import http.client
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from starlette.types import Receive, Scope, Send

from generator.serve.api_proxy import PROXY_LOGGER
from generator.serve.stack import proxy_stack
from session_service.session import MAX_BODY
from tests.support.loopback import loopback_socket, serving_on


@dataclass(frozen=True)
class Received:
    method: str
    raw_path: bytes
    query: bytes
    headers: dict[str, str]
    body: bytes


@dataclass
class Recorder:
    """The upstream API: records each request, answers 200 with a small JSON body and closes
    the connection (none is left open in the proxy's pool when the servers stop)."""

    received: list[Received] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        self.received.append(
            Received(scope["method"], scope["raw_path"], scope["query_string"], headers, body)
        )
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b'{"upstream":true}'})


@dataclass(frozen=True)
class Proxied:
    origin: str  # the proxy, as shoppers reach it
    upstream: Recorder
    upstream_origin: str


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxied]:
    site = tmp_path_factory.mktemp("proxied") / "out"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>home</title>", encoding="utf-8")
    recorder = Recorder()
    up_sock, up_origin = loopback_socket()
    front_sock, front_origin = loopback_socket()
    stack = proxy_stack(site, api_url=f"{up_origin}/public/v1", key="pk_live_session")
    with (
        serving_on(up_sock, recorder, what="the recording API"),
        serving_on(front_sock, stack, what="the proxy"),
    ):
        yield Proxied(front_origin, recorder, up_origin)


@pytest.fixture
def proxied(servers: Proxied) -> Proxied:
    servers.upstream.received.clear()
    return servers


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


def send_raw(
    origin: str,
    method: str,
    target: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> Answer:
    """``target`` sent as it is written, with ``headers`` as they are."""
    parts = urlsplit(origin)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return Answer(response.status, response.getheader("content-type", ""), response.read())
    finally:
        connection.close()


#: The issue's spellings, then more of the same family: each names a path outside the API's
#: prefixes once decoded, resolved, or decoded a second time by a server behind the API.
HOSTILE = (
    "/public/..%2f..%2fadmin",
    "/public/%2e%2e/admin",
    "/payments/..%2fadmin",
    "/sandbox/%2e%2e/admin",
    "/public/%252e%252e/admin",
    "/public/../admin",
    "/public/v1/../../admin",
    "/public/%2E%2E/admin",
    "/public/.%2e/admin",
    "/public/%2e./admin",
    "/public/..%2Fadmin",
    "/public/%2fadmin",
    "/public/..%5cadmin",
    "/public/..%5Cadmin",
    "/public/..\\admin",
    "/public/..%255c..%255cadmin",
    "/public/%2e%2e%2fadmin",
    "/public/..;/admin",
    "/public/v1/./store",
    "/public//admin",
    "/public/%c0%ae%c0%ae/admin",
    "/public/v1/store%00",
    "/public/v1/store%0d%0aX-Injected:%20yes",
    "/sandbox/vnpay/%2e%2e/%2e%2e/admin",
    "/payments/vnpay/..%2f..%2f..%2fadmin",
)


@pytest.mark.parametrize("target", HOSTILE)
def test_a_path_outside_the_api_is_refused_and_never_forwarded(
    proxied: Proxied, target: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger=PROXY_LOGGER):
        answer = send_raw(
            proxied.origin, "GET", target, {"Host": "shop.test", "X-Service-Key": "pk_live_x"}
        )
    assert proxied.upstream.received == [], target
    assert answer.status in (400, 404), (target, answer)
    assert answer.content_type == "application/problem+json", target
    problem = json.loads(answer.body)
    assert problem["status"] == answer.status and problem["code"], problem
    refusals = [r.getMessage() for r in caplog.records if r.name == PROXY_LOGGER]
    assert len(refusals) == 1, refusals
    assert problem["code"] in refusals[0] and str(answer.status) in refusals[0], refusals
    assert "\n" not in refusals[0] and "\r" not in refusals[0]


#: Paths the API is asked for every day, with their percent escapes as the client wrote them.
PLAIN = (
    "/public/v1/products/by-slug/%C3%A1o-thun-nam",
    "/public/v1/products/by-slug/%c3%a1o-thun-nam",
    "/public/v1/routes/resolve",
    "/public/v1/store",
    "/public/cart/items",
    "/sandbox/vnpay/pay",
    "/payments/vnpay/ipn",
)


@pytest.mark.parametrize("path", PLAIN)
def test_an_api_path_arrives_exactly_as_sent(proxied: Proxied, path: str) -> None:
    query = "q=%C3%A1o+thun&path=%2Fa%2F..%2Fb&limit=2"
    answer = send_raw(proxied.origin, "GET", f"{path}?{query}", {"Host": "shop.test"})
    assert answer.status == 200, answer
    assert json.loads(answer.body) == {"upstream": True}
    [received] = proxied.upstream.received
    assert received.raw_path == path.encode("ascii")
    assert received.query == query.encode("ascii")


def test_only_the_headers_the_api_reads_are_forwarded(proxied: Proxied) -> None:
    sent = {
        "Host": "shop.test",
        "X-Service-Key": "pk_live_shopper",
        "Authorization": "Bearer eyJ.customer.jwt",
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": "identity",
        "Idempotency-Key": "order-7",
        "If-None-Match": '"v0"',
        "X-Request-Id": "req-123",
        # Never the API's business: the site's cookies (the httpOnly JWT among them), the
        # visitor's own network details, a proxy's credentials, connection management.
        "Cookie": "service_customer=eyJ.secret; service_cart=c-1",
        "Proxy-Authorization": "Basic cHJveHk6c2VjcmV0",
        "X-Forwarded-For": "198.51.100.7",
        "X-Forwarded-Host": "evil.test",
        "Forwarded": "for=198.51.100.7",
        "X-Real-Ip": "198.51.100.7",
        "Origin": "https://shop.test",
        "Referer": "https://shop.test/account?token=abc",
        "User-Agent": "shopper/1.0",
        "Connection": "keep-alive, X-Secret",
        "X-Secret": "hop",
        "Te": "trailers",
        "Upgrade": "h2c",
    }
    body = b'{"address":{"city":"HN"}}'
    answer = send_raw(proxied.origin, "POST", "/public/v1/checkout/place-order", sent, body)
    assert answer.status == 200, answer
    [received] = proxied.upstream.received
    assert received.body == body
    forwarded = dict(received.headers)
    assert forwarded.pop("host") == urlsplit(proxied.upstream_origin).netloc
    assert forwarded.pop("content-length") == str(len(body))
    # The proxy's own connection to the API, in its own name.
    assert forwarded.pop("connection") == "keep-alive"
    assert forwarded.pop("user-agent").startswith("python-httpx/")
    assert forwarded == {
        "x-service-key": "pk_live_shopper",
        "authorization": "Bearer eyJ.customer.jwt",
        "content-type": "application/json",
        "accept": "application/json",
        "accept-encoding": "identity",
        "idempotency-key": "order-7",
        "if-none-match": '"v0"',
        "x-request-id": "req-123",
    }


@pytest.mark.parametrize(
    ("path", "authorization"),
    [
        # A preview behind basic auth: the browser sends the site's password with every request.
        ("/public/v1/store", "Basic c2hvcDpzZWNyZXQ="),
        # The gateway's pages and its IPN take no customer token.
        ("/sandbox/vnpay/pay", "Bearer eyJ.customer.jwt"),
        ("/payments/vnpay/ipn", "Bearer eyJ.customer.jwt"),
    ],
)
def test_credentials_not_meant_for_the_api_stay_behind(
    proxied: Proxied, path: str, authorization: str
) -> None:
    answer = send_raw(
        proxied.origin, "GET", path, {"Host": "shop.test", "Authorization": authorization}
    )
    assert answer.status == 200, answer
    [received] = proxied.upstream.received
    assert "authorization" not in received.headers


def test_the_gateway_form_post_is_forwarded_whole(proxied: Proxied) -> None:
    body = b"vnp_TxnRef=A1&outcome=success"
    answer = send_raw(
        proxied.origin,
        "POST",
        "/sandbox/vnpay/complete",
        {"Host": "shop.test", "Content-Type": "application/x-www-form-urlencoded"},
        body,
    )
    assert answer.status == 200, answer
    [received] = proxied.upstream.received
    assert received.method == "POST" and received.body == body
    assert received.headers["content-type"] == "application/x-www-form-urlencoded"


def send_chunked(origin: str, target: str, pieces: list[bytes]) -> Answer:
    """A POST whose body declares no length (chunked), as a client streaming it sends."""
    parts = urlsplit(origin)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request(
            "POST", target, body=iter(pieces), headers={"Host": "shop.test"}, encode_chunked=True
        )
        response = connection.getresponse()
        return Answer(response.status, response.getheader("content-type", ""), response.read())
    finally:
        connection.close()


def test_a_body_past_the_limit_is_refused_while_read_and_never_forwarded(
    proxied: Proxied,
) -> None:
    declared = send_raw(
        proxied.origin, "POST", "/public/v1/cart/items", {"Host": "shop.test"},
        b"x" * (MAX_BODY + 1),
    )  # fmt: skip
    streamed = send_chunked(proxied.origin, "/public/v1/cart/items", [b"y" * 65536] * 5)
    for answer in (declared, streamed):
        assert answer.status == 413, answer.status
        assert answer.content_type == "application/problem+json"
        assert json.loads(answer.body)["code"] == "body_too_large"
    assert proxied.upstream.received == []
