"""Answers no client should swallow whole: each fails in one line that names the endpoint."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import anyio
import httpx
import pytest

from generator.client import ClientSettings, RetryPolicy
from generator.client.body import LARGE_ANSWER_BYTES
from generator.errors import ApiStatusError, StorefrontError
from tests.support.hostile_api import (
    CHUNK,
    MiB,
    Served,
    bad_gzip,
    drip,
    endless_body,
    gzip_bomb,
    hostile_client,
    nested,
    padded_list_page,
    raw_json,
    with_lone_surrogate,
)

pytestmark = pytest.mark.anyio


def one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text
    return text


async def test_a_list_page_past_the_default_limit_stops_at_32_mib() -> None:
    served = Served()
    async with hostile_client(lambda request: padded_list_page(50 * MiB, served)) as client:
        with pytest.raises(StorefrontError) as caught:
            await client.get("/products", {"limit": 100})
    assert one_line(caught.value).startswith("GET /products?limit=100: the answer is larger")
    assert "32 MiB" in str(caught.value)
    assert served.bytes <= 32 * MiB + CHUNK


async def test_an_endless_body_stops_at_the_configured_limit() -> None:
    served = Served()
    settings = ClientSettings(max_answer_bytes=MiB)
    async with hostile_client(lambda request: endless_body(served), settings) as client:
        with pytest.raises(StorefrontError, match=r"^GET /menus: the answer is larger than 1 MiB"):
            await client.get("/menus")
    assert served.bytes <= MiB + CHUNK


async def test_endless_bodies_at_once_read_past_a_few_mib_one_at_a_time() -> None:
    """Eight requests in flight, each answered by an endless body: past LARGE_ANSWER_BYTES
    only one reads on, so together they hold about 7 x 4 + 8 MiB, not 8 x 8."""
    limit = 8 * MiB
    sent: dict[str, int] = {}  # chunks each body has handed out
    reading_past: list[int] = []  # after each chunk: bodies past the threshold, not yet done

    def endless(request: httpx.Request) -> httpx.Response:
        async def body() -> AsyncIterator[bytes]:
            while True:
                sent[request.url.path] = sent.get(request.url.path, 0) + 1
                # Past the chunk that made its reader wait for the slot, not past the limit.
                past = LARGE_ANSWER_BYTES + CHUNK
                between = [n for n in sent.values() if past < n * CHUNK <= limit]
                reading_past.append(len(between))
                yield b" " * CHUNK
                await anyio.sleep(0)  # as a network read would: other readers go on

        return httpx.Response(200, content=body(), headers={"Content-Type": "application/json"})

    async with hostile_client(endless, ClientSettings(max_answer_bytes=limit)) as client:
        errors: list[str] = []

        async def one(number: int) -> None:
            with pytest.raises(StorefrontError) as caught:
                await client.get(f"/products/{number}")
            errors.append(one_line(caught.value))

        async with anyio.create_task_group() as tasks:
            for number in range(8):
                tasks.start_soon(one, number)
    assert len(errors) == 8
    assert all("the answer is larger than 8 MiB" in error for error in errors)
    assert max(sent.values()) * CHUNK <= limit + CHUNK
    assert max(reading_past) == 1


async def test_a_gzip_bomb_is_limited_after_decompression() -> None:
    served = Served()
    bomb = gzip_bomb(64 * MiB, served)
    async with hostile_client(lambda request: bomb) as client:
        with pytest.raises(StorefrontError, match=r"^GET /store: the answer is larger than 32 MiB"):
            await client.get("/store")
    assert served.bytes < 50 * 1024  # of about 64 KB: it stopped half way


async def test_a_declared_length_past_the_limit_is_refused_before_reading() -> None:
    served = Served()
    settings = ClientSettings(max_answer_bytes=MiB)

    def answer(request: httpx.Request) -> httpx.Response:
        response = padded_list_page(2 * MiB, served)
        response.headers["Content-Length"] = str(2 * MiB)
        return response

    async with hostile_client(answer, settings) as client:
        with pytest.raises(StorefrontError, match=r"the answer is larger than 1 MiB"):
            await client.get("/products")
    assert served.bytes == 0


async def test_an_endless_error_body_is_cut_short_and_the_status_still_reported() -> None:
    served = Served()
    settings = ClientSettings(retry=RetryPolicy(attempts=1))

    def answer(request: httpx.Request) -> httpx.Response:
        body = endless_body(served, cap=4 * MiB)
        return httpx.Response(502, stream=body.stream)

    async with hostile_client(answer, settings) as client:
        with pytest.raises(ApiStatusError, match=r"^GET /store: HTTP 502: Bad Gateway$"):
            await client.get("/store")
    assert served.bytes <= 64 * 1024 + CHUNK


async def test_a_drip_fed_answer_ends_at_the_deadline_and_is_tried_once_more() -> None:
    attempts: list[Served] = []

    def answer(request: httpx.Request) -> httpx.Response:
        attempts.append(Served())
        return drip(attempts[-1])

    started = time.monotonic()
    async with hostile_client(answer, ClientSettings(request_deadline=0.3)) as client:
        with pytest.raises(StorefrontError) as caught:
            await client.get("/store")
    assert one_line(caught.value) == (
        "GET /store: no complete answer within 0.3 s (gave up after 2 attempts)"
    )
    assert len(attempts) == 2 and all(served.bytes >= 3 for served in attempts)
    assert time.monotonic() - started < 2.0


async def test_an_answer_slow_to_start_ends_at_the_deadline() -> None:
    async def answer(request: httpx.Request) -> httpx.Response:
        await anyio.sleep(3.0)
        return httpx.Response(200, json={})

    settings = ClientSettings(request_deadline=0.2, retry=RetryPolicy(attempts=1))
    async with hostile_client(answer, settings) as client:
        with pytest.raises(StorefrontError, match=r"^GET /menus: no complete answer within 0.2 s$"):
            await client.get("/menus")


async def test_after_a_deadline_the_next_attempt_may_succeed() -> None:
    served = Served()
    answers = iter([drip(served), httpx.Response(200, json={"name": "Shop"})])
    async with hostile_client(
        lambda request: next(answers), ClientSettings(request_deadline=0.2)
    ) as client:
        assert (await client.get("/store")).data == {"name": "Shop"}
        assert client.stats.retries == 1


@pytest.mark.parametrize("depth", [5_000, 500], ids=["past-the-recursion-limit", "deep"])
async def test_deeply_nested_json_is_refused_in_one_line(depth: int) -> None:
    async with hostile_client(lambda request: raw_json(nested(depth))) as client:
        with pytest.raises(StorefrontError) as caught:
            await client.get("/store")
    assert one_line(caught.value) == "GET /store: the answer's JSON nests deeper than 100 levels"


async def test_json_nested_as_deep_as_allowed_is_read() -> None:
    async with hostile_client(lambda request: raw_json(nested(99))) as client:
        assert isinstance((await client.get("/store")).data, dict)


async def test_a_lone_surrogate_is_refused_in_one_line() -> None:
    text = with_lone_surrogate({"id": 1, "name": "Shop"}, "name")
    async with hostile_client(lambda request: raw_json(text)) as client:
        with pytest.raises(StorefrontError) as caught:
            await client.get("/store")
    assert one_line(caught.value) == (
        "GET /store: the answer's JSON holds a lone UTF-16 surrogate (\\ud800), not Unicode text"
    )


async def test_escaped_surrogate_pairs_are_read() -> None:
    async with hostile_client(lambda request: raw_json('{"name": "\\ud83d\\ude00"}')) as client:
        assert (await client.get("/store")).data == {"name": "\U0001f600"}


async def test_a_body_that_is_not_the_gzip_it_claims_is_refused_in_one_line() -> None:
    async with hostile_client(lambda request: bad_gzip()) as client:
        with pytest.raises(StorefrontError) as caught:
            await client.get("/store")
    assert one_line(caught.value) == (
        "GET /store: the answer's body cannot be decoded (Content-Encoding: gzip)"
    )


async def test_an_error_body_that_is_not_its_gzip_still_reports_the_status() -> None:
    settings = ClientSettings(retry=RetryPolicy(attempts=1))
    async with hostile_client(lambda request: bad_gzip(502), settings) as client:
        with pytest.raises(ApiStatusError, match=r"^GET /store: HTTP 502: Bad Gateway$"):
            await client.get("/store")
