"""Answers a broken or hostile implementation of the API may send, for httpx.MockTransport.

Each function builds one ``httpx.Response``. Large bodies are produced lazily, chunk by chunk,
and every "endless" one ends after a safety cap, so a client that fails to stop reads the cap
and fails its test instead of filling the machine. ``Served`` counts what the fake handed out,
so a test can check where the client stopped reading.

``hostile_client`` wraps one answering function in the generator's ``ApiClient``.
"""

from __future__ import annotations

import itertools
import json
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
import httpx

from generator.client import ClientSettings, ManualTimer
from generator.client.api import ApiClient

BASE_URL = "http://hostile.test/public/v1"
KEY = "pk_live_hostile"

MiB = 1024 * 1024
CHUNK = 64 * 1024

#: Answers one request (MockTransport awaits an answer that is awaitable).
Handler = Callable[[httpx.Request], httpx.Response | Awaitable[httpx.Response]]


@dataclass
class Served:
    """Bytes a streamed body handed to the client (compressed bytes for a compressed body)."""

    bytes: int = 0


@asynccontextmanager
async def hostile_client(
    handler: Handler, settings: ClientSettings | None = None
) -> AsyncIterator[ApiClient]:
    """An ``ApiClient`` whose every request ``handler`` answers, on a virtual clock."""
    transport = httpx.MockTransport(handler)
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
        yield ApiClient(http, key=KEY, settings=settings, timer=ManualTimer())


def streamed(
    chunks: Iterator[bytes], served: Served, headers: dict[str, str] | None = None
) -> httpx.Response:
    """A 200 answer whose body arrives as ``chunks`` (chunked: no Content-Length)."""

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            served.bytes += len(chunk)
            yield chunk

    return httpx.Response(
        200, content=body(), headers={"Content-Type": "application/json", **(headers or {})}
    )


def drip(served: Served, *, every: float = 0.05, cap: float = 3.0) -> httpx.Response:
    """An answer that sends one blank every ``every`` seconds, so no read ever times out,
    then ``{}`` after ``cap`` seconds (the fake's own safety net)."""

    async def body() -> AsyncIterator[bytes]:
        ends = time.monotonic() + cap
        while time.monotonic() < ends:
            served.bytes += 1
            yield b" "
            await anyio.sleep(every)
        yield b"{}"

    return httpx.Response(200, content=body(), headers={"Content-Type": "application/json"})


def padded_list_page(size: int, served: Served) -> httpx.Response:
    """A valid, empty list envelope padded with blanks to ``size`` bytes: JSON any parser
    accepts, so only a size limit can refuse it."""
    head = b'{"items": ['
    tail = b'], "next_cursor": null, "has_more": false}'
    blanks = size - len(head) - len(tail)

    def chunks() -> Iterator[bytes]:
        yield head
        left = blanks
        while left > 0:
            yield b" " * min(CHUNK, left)
            left -= CHUNK
        yield tail

    return streamed(chunks(), served)


def endless_body(served: Served, *, cap: int = 40 * MiB) -> httpx.Response:
    """A chunked body that never ends (until ``cap`` bytes, the fake's own safety net)."""

    def chunks() -> Iterator[bytes]:
        blank = b" " * CHUNK
        while served.bytes < cap:
            yield blank

    return streamed(chunks(), served)


def gzip_bomb(decoded: int, served: Served, *, raw_chunk: int = 8 * 1024) -> httpx.Response:
    """A small gzip body that expands to ``decoded`` bytes of blanks, sent in network-sized
    pieces (a thousandfold expansion: 64 MiB take about 64 KB on the wire)."""
    return streamed(_pieces(_gzip_blanks(decoded), raw_chunk), served, {"Content-Encoding": "gzip"})


def raw_json(text: str, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    """An answer whose body is ``text`` as it is (httpx's ``json=`` would refuse a lone
    surrogate, and needs the whole structure in memory)."""
    return httpx.Response(
        status,
        content=text.encode("ascii"),
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def nested(depth: int) -> str:
    """JSON text of a store whose name is ``depth`` arrays deep."""
    return '{"id": 1, "name": ' + "[" * depth + "]" * depth + "}"


def with_lone_surrogate(record: dict[str, object], key: str) -> str:
    """JSON text of ``record`` with a lone UTF-16 surrogate (\\ud800) ending field ``key``:
    valid JSON, not valid Unicode."""
    return json.dumps({**record, key: f"{record.get(key, '')}\ud800"})


def bad_gzip(status: int = 200) -> httpx.Response:
    """An answer that says it is gzip and is not (streamed: httpx decodes a body given whole
    as soon as the answer is made)."""
    response = streamed(iter([b'{"id": 1}']), Served(), {"Content-Encoding": "gzip"})
    response.status_code = status
    return response


def endless_list(
    items: list[object], cursor: Callable[[int], str] = lambda page: f"c{page}"
) -> Handler:
    """A list whose every page says ``has_more`` with ``cursor(n)`` for page n (by default a
    new cursor each time: no loop a client could notice)."""
    pages = itertools.count(1)

    def answer(request: httpx.Request) -> httpx.Response:
        body = {"items": items, "next_cursor": cursor(next(pages)), "has_more": True}
        return httpx.Response(200, json=body)

    return answer


def _gzip_blanks(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b" " * MiB
    parts = [compressor.compress(block) for _ in range(size // MiB)]
    parts.append(compressor.flush())
    return b"".join(parts)


def _pieces(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]
