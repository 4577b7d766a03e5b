"""Kept reads answered in uvicorn's protocol (companion.http_protocol), over real loopback
sockets: the same bytes as the middleware chain served by uvicorn's own protocol, on
keep-alive and pipelined connections, and everything the front door cannot answer at once
still answered by the app."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from companion.http_protocol import FrontDoorProtocol, front_door_of
from companion.session_mount import SessionBeside
from tests.companion.conftest import PREFIX
from tests.companion.front_pairs import MakePair, Pair, catalogue, skip_unless_notified, wire
from tests.support.loopback import loopback_socket, serving_on

pytestmark = pytest.mark.anyio


@pytest.fixture
async def pair(make_pair: MakePair) -> Pair:
    """A limit whose leases (shared counts, on PostgreSQL) last a whole test: 32 units."""
    return await make_pair(rate_per_minute=1600)


@contextmanager
def served(pair: Pair) -> Iterator[tuple[socket.socket, socket.socket]]:
    """The front app behind ``FrontDoorProtocol``, the chain behind uvicorn's own."""
    front_sock, _ = loopback_socket()
    chain_sock, _ = loopback_socket()
    with serving_on(front_sock, pair.front.app, what="front", http=FrontDoorProtocol):
        with serving_on(chain_sock, pair.chain.app, what="chain"):
            yield front_sock, chain_sock


def request(endpoint: str, key: str, extra: str = "", version: str = "1.1") -> bytes:
    return (
        f"GET {PREFIX}{endpoint} HTTP/{version}\r\nHost: shop.test\r\nX-Service-Key: {key}\r\n"
        f"X-Request-Id: wire\r\n{extra}\r\n"
    ).encode()


def answers(conn: socket.socket, count: int) -> list[bytes]:
    """``count`` answers read off a keep-alive connection (each has a Content-Length), their
    Date header taken out."""
    raw, found = b"", list[bytes]()
    while len(found) < count:
        head, sep, rest = raw.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        if sep and len(rest) >= length:
            lines = [line for line in head.split(b"\r\n") if not line.startswith(b"date:")]
            found.append(b"\r\n".join(lines) + b"\r\n\r\n" + rest[:length])
            raw = rest[length:]
            continue
        chunk = conn.recv(65536)
        assert chunk, f"the connection closed after {len(found)} answers"
        raw += chunk
    return found


def on_one_connection(sock: socket.socket, requests: list[bytes], count: int) -> list[bytes]:
    port = sock.getsockname()[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"".join(requests))  # pipelined: all sent before any answer is read
        return answers(conn, count)


async def test_kept_reads_are_written_by_the_protocol_as_uvicorn_writes_them(pair: Pair) -> None:
    endpoints = await catalogue(pair)
    for endpoint in endpoints:  # kept by both
        await pair.both(endpoint)
    door = pair.front.door()
    with served(pair) as (front, chain):
        for endpoint in endpoints:
            before = door.served_at_once
            written = wire(front, endpoint, pair.front.key)
            assert written == wire(chain, endpoint, pair.chain.key)
            assert door.served_at_once == before + 1, endpoint
            assert written.startswith(b"HTTP/1.1 200 OK\r\n") and b"connection: close" in written
        tag = (await pair.both(endpoints[0]))[0].headers["ETag"]
        condition = f"If-None-Match: {tag}\r\nConnection: close\r\n"
        a = on_one_connection(front, [request(endpoints[0], pair.front.key, condition)], 1)
        b = on_one_connection(chain, [request(endpoints[0], pair.chain.key, condition)], 1)
        assert a == b and a[0].startswith(b"HTTP/1.1 304 Not Modified\r\n")


async def test_pipelined_requests_are_answered_in_order_kept_or_not(pair: Pair) -> None:
    endpoints = await catalogue(pair)
    for endpoint in endpoints[:2]:
        await pair.both(endpoint)
    door = pair.front.door()
    # Kept, a first read (the app reads it), kept again after it, and one with a body.
    asked = [endpoints[0], endpoints[4], endpoints[1], endpoints[0]]
    with served(pair) as (front, chain):
        sides = []
        for sock, key in ((front, pair.front.key), (chain, pair.chain.key)):
            sent = [request(e, key) for e in asked[:3]]
            sent.append(request(asked[3], key, "Content-Length: 3\r\n") + b"abc")
            sides.append(on_one_connection(sock, sent, len(sent)))
            if sock is front:
                at_once = door.served_at_once
        assert sides[0] == sides[1]
        assert all(a.startswith(b"HTTP/1.1 200 OK\r\n") for a in sides[0])
        assert at_once == 3  # all but the first read


async def test_http_1_0_gets_its_answer_and_the_connection_closes(pair: Pair) -> None:
    endpoint = (await catalogue(pair))[0]
    await pair.both(endpoint)
    with served(pair) as (front, chain):
        a = on_one_connection(front, [request(endpoint, pair.front.key, version="1.0")], 1)
        b = on_one_connection(chain, [request(endpoint, pair.chain.key, version="1.0")], 1)
    assert a == b and b"connection: close\r\n" in a[0]
    assert pair.front.door().served_at_once == 1


async def test_a_read_that_needs_a_lease_is_answered_by_the_app(make_pair: MakePair) -> None:
    # Shared counts, one unit leased at a time at this limit: no read can be answered at once.
    pair = await make_pair(workers=2, rate_per_minute=5)
    skip_unless_notified(pair)
    endpoint = (await catalogue(pair))[0]
    await pair.both(endpoint)
    door = pair.front.door()
    served_before = door.served
    with served(pair) as (front, chain):
        a = on_one_connection(front, [request(endpoint, pair.front.key)] * 2, 2)
        b = on_one_connection(chain, [request(endpoint, pair.chain.key)] * 2, 2)
    assert a == b and all(x.startswith(b"HTTP/1.1 200 OK\r\n") for x in a)
    assert door.served == served_before + 2 and door.served_at_once == 0


async def test_the_front_door_is_found_only_through_layers_that_keep_the_answer(
    pair: Pair,
) -> None:
    app = pair.front.app
    door = app.front_door
    assert door is not None
    assert front_door_of(app) is door
    asgi: Any = app  # uvicorn's middleware is typed for its own scope types
    beside: Any = SessionBeside(asgi, asgi)
    proxied: Any = ProxyHeadersMiddleware(asgi)
    assert front_door_of(ProxyHeadersMiddleware(beside)) is door
    assert front_door_of(SessionBeside(proxied, app)) is door

    class Unknown:
        def __init__(self, app: object) -> None:
            self.app = app

    assert front_door_of(Unknown(app)) is None
    assert front_door_of(pair.chain.app) is None  # serving from memory switched off
