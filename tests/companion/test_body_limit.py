"""Request bodies are refused past the limit while they are read, on every path a request
takes: in process (the body pulled from a counter), and over loopback behind the companion's
HTTP protocol."""

from __future__ import annotations

import json
import logging
import socket

import anyio
import pytest

from companion.logging_http import ACCESS_LOGGER
from companion.server import PROTOCOL
from companion.session_mount import with_session
from tests.companion.conftest import PREFIX, Api, MakeApi
from tests.support.bodies import CHUNK, FedBody, call, upload_until_answered
from tests.support.loopback import loopback_socket, serving_on

pytestmark = pytest.mark.anyio

LIMIT = 256 * 1024
HUGE = 200 * 1024 * 1024


@pytest.fixture
async def limited(make_api: MakeApi) -> Api:
    return await make_api(max_body_bytes=LIMIT, body_timeout=0.5)


def _headers(api: Api, **more: str) -> dict[str, str]:
    return {"host": "test", "x-service-key": api.key, "content-type": "application/json", **more}


def refusals(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    return [line for line in lines if "refused" in line]


async def test_a_chunked_body_is_refused_as_it_passes_the_limit(
    limited: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    body = FedBody(HUGE)
    headers = _headers(limited, **{"transfer-encoding": "chunked"})
    answer = await call(limited.app, "PUT", f"{PREFIX}/cart/items", headers, body)
    assert answer.status == 413, answer.body
    assert answer.headers["content-type"] == "application/problem+json"
    assert json.loads(answer.body)["code"] == "body_too_large"
    assert answer.headers["connection"] == "close"  # the rest is never read
    assert LIMIT < body.pulled <= LIMIT + CHUNK  # read up to the limit, not a piece more
    [line] = refusals(caplog)
    assert (line["status"], line["refused"]) == (413, "body_too_large")
    assert line["path"] == f"{PREFIX}/cart/items"


async def test_a_declared_length_over_the_limit_is_refused_before_any_of_it_is_read(
    limited: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    body = FedBody(HUGE)
    headers = _headers(limited, **{"content-length": str(HUGE)})
    answer = await call(limited.app, "POST", f"{PREFIX}/checkout", headers, body)
    assert answer.status == 413 and json.loads(answer.body)["code"] == "body_too_large"
    assert body.pulled == 0
    assert [line["refused"] for line in refusals(caplog)] == ["body_too_large"]


async def test_the_session_endpoints_beside_the_api_hold_its_limit(
    limited: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    served = with_session(limited.app, limited.app.state.services.settings)
    body = FedBody(HUGE)
    headers = {
        "host": "test",
        "origin": "http://test",
        "content-type": "application/json",
        "transfer-encoding": "chunked",
    }
    answer = await call(served, "POST", "/session/login", headers, body)
    assert answer.status == 413 and json.loads(answer.body)["code"] == "body_too_large"
    assert LIMIT < body.pulled <= LIMIT + CHUNK
    [line] = refusals(caplog)
    assert (line["path"], line["refused"]) == ("/session/login", "body_too_large")


async def test_a_body_at_the_limit_is_read_as_before(limited: Api) -> None:
    items = json.dumps({"items": []}).encode()
    padded = items + b" " * (LIMIT - len(items))  # JSON allows trailing blanks
    answer = await limited.client.put(
        f"{PREFIX}/cart/items",
        content=padded,
        headers={"X-Service-Key": limited.key, "Content-Type": "application/json"},
    )
    assert answer.status_code == 200, answer.text


async def test_a_body_that_stops_coming_is_answered_408(
    limited: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    body = FedBody(LIMIT, stall_after=CHUNK)
    headers = _headers(limited, **{"content-length": str(LIMIT)})
    with anyio.fail_after(10):
        answer = await call(limited.app, "PUT", f"{PREFIX}/cart/items", headers, body)
    assert answer.status == 408 and json.loads(answer.body)["code"] == "body_timeout"
    assert [line["refused"] for line in refusals(caplog)] == ["body_timeout"]


async def test_over_loopback_a_kept_read_with_a_large_body_is_refused_not_served(
    limited: Api,
) -> None:
    sock, _ = loopback_socket()
    port = sock.getsockname()[1]
    read = f"GET {PREFIX}/store HTTP/1.1\r\nHost: test\r\nX-Service-Key: {limited.key}\r\n"
    with serving_on(sock, limited.app, what="companion", http=PROTOCOL):
        for _ in range(2):  # read, then kept by the answer cache
            with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                conn.sendall(read.encode() + b"Connection: close\r\n\r\n")
                assert _read_all(conn).startswith(b"HTTP/1.1 200 ")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(read.encode() + f"Content-Length: {HUGE}\r\n\r\n".encode())
            answered = _read_all(conn)  # no byte of the body was sent
        assert answered.startswith(b"HTTP/1.1 413 "), answered[:200]


async def test_over_loopback_a_chunked_upload_is_cut_off_at_the_limit(limited: Api) -> None:
    sock, _ = loopback_socket()
    head = (
        f"PUT {PREFIX}/cart/items HTTP/1.1\r\nHost: test\r\nX-Service-Key: {limited.key}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    with serving_on(sock, limited.app, what="companion", http=PROTOCOL):
        answered, sent = await anyio.to_thread.run_sync(
            upload_until_answered, sock.getsockname()[1], head, 64 * 1024 * 1024
        )
    assert answered.startswith(b"HTTP/1.1 413 "), answered[:200]
    assert b'"code":"body_too_large"' in answered
    assert sent < 32 * 1024 * 1024  # answered long before the body ended


def _read_all(conn: socket.socket) -> bytes:
    received = b""
    while chunk := conn.recv(65536):
        received += chunk
    return received
