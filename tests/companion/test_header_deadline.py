"""A connection must send each request's head (line and headers) within the header deadline,
2 s here, over loopback behind the companion's protocol: a slow one is closed, and logged when
it had begun a request, while other connections are served meanwhile."""

from __future__ import annotations

import json
import logging
import socket
import time
from dataclasses import replace

import anyio
import httpx
import pytest

from companion.header_deadline import header_timeout_of
from companion.logging_http import ACCESS_LOGGER
from companion.server import PROTOCOL
from companion.session_mount import with_session
from companion.settings import CompanionSettings
from tests.companion.conftest import MakeApi
from tests.support.bodies import closed_after
from tests.support.loopback import loopback_socket, serving_on

pytestmark = pytest.mark.anyio

DEADLINE = 2.0
MARGIN = 1.5


def _served_meanwhile(origin: str) -> int:
    return httpx.get(f"{origin}/health/live", timeout=5).status_code


async def test_half_a_request_line_is_closed_at_the_deadline_while_others_are_served(
    make_api: MakeApi, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    api = await make_api(header_timeout=DEADLINE)
    sock, origin = loopback_socket()
    with serving_on(sock, api.app, what="companion", http=PROTOCOL):
        with socket.create_connection(("127.0.0.1", sock.getsockname()[1])) as slow:
            opened = time.monotonic()
            slow.sendall(b"GET /public/v1/st")
            assert await anyio.to_thread.run_sync(_served_meanwhile, origin) == 200
            await anyio.to_thread.run_sync(closed_after, slow, DEADLINE + MARGIN)
            lasted = time.monotonic() - opened
    assert DEADLINE - 0.2 <= lasted <= DEADLINE + MARGIN
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    late = [line for line in lines if line.get("refused") == "header_timeout"]
    assert [(line["status"], line["path"]) for line in late] == [(408, "")]


async def test_a_kept_alive_connection_gets_the_deadline_for_its_next_head(
    make_api: MakeApi,
) -> None:
    api = await make_api(header_timeout=DEADLINE)
    sock, _ = loopback_socket()
    with serving_on(sock, api.app, what="companion", http=PROTOCOL):
        with socket.create_connection(("127.0.0.1", sock.getsockname()[1]), timeout=5) as conn:
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: test\r\n\r\n")
            assert conn.recv(65536).startswith(b"HTTP/1.1 200 ")
            begun = time.monotonic()
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: te")  # the next head, half
            await anyio.to_thread.run_sync(closed_after, conn, DEADLINE + MARGIN)
            assert DEADLINE - 0.2 <= time.monotonic() - begun <= DEADLINE + MARGIN


def test_the_deadline_is_found_through_the_layers_around_the_app() -> None:
    settings = replace(CompanionSettings(), header_timeout=DEADLINE)

    class Api:
        header_timeout = DEADLINE

    assert header_timeout_of(with_session(Api(), settings)) == DEADLINE  # type: ignore[arg-type]
    assert header_timeout_of(object()) == CompanionSettings().header_timeout
