"""ApiClient as a whole: statistics, observer events, bounded concurrency, the 429 window."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import httpx
import pytest

from generator.client import ClientSettings, ManualTimer, endpoint_group
from generator.client.api import ApiClient
from generator.errors import CrawlStopped, RateLimited
from tests.support.fakeapi import KEY, FakeApi, Quirks, small_store

pytestmark = pytest.mark.anyio


class Events:
    def __init__(self) -> None:
        self.done: list[tuple[str, int]] = []
        self.waits: list[tuple[float, str]] = []

    def request_done(self, endpoint: str, status: int, seconds: float) -> None:
        self.done.append((endpoint, status))

    def waiting(self, seconds: float, reason: str) -> None:
        self.waits.append((seconds, reason))

    def retrying(self, endpoint: str, attempt: int, delay: float, reason: str) -> None:
        return None


@pytest.mark.parametrize(
    ("path", "group"),
    [
        ("/products/12/variants", "/products/{id}/variants"),
        ("/articles/by-slug/meo-hay", "/articles/by-slug/{slug}"),
        ("/sitemap/products", "/sitemap/products"),
        ("/store", "/store"),
    ],
)
def test_endpoint_group_folds_ids_and_slugs(path: str, group: str) -> None:
    assert endpoint_group(path) == group


async def test_statistics_count_requests_per_group_and_the_observer_sees_each() -> None:
    fake, events = FakeApi(small_store(), Quirks(failures={"/products/1": 1})), Events()
    client = ApiClient(fake.client(), key=KEY, timer=fake.timer, observer=events)
    for path in ("/products/1", "/products/2", "/store"):
        await client.get(path)
    assert client.stats.requests == 4
    assert client.stats.retries == 1
    assert client.stats.by_group == {"/products/{id}": 3, "/store": 1}
    assert events.done == [
        ("GET /products/1", 500),
        ("GET /products/1", 200),
        ("GET /products/2", 200),
        ("GET /store", 200),
    ]


async def test_no_request_is_sent_inside_a_retry_after_window() -> None:
    timer = ManualTimer()
    fake, events = FakeApi(small_store(), Quirks(rate_limit_at={2: 20.0}), timer), Events()
    client = ApiClient(fake.client(), key=KEY, timer=timer, observer=events)
    await client.get("/store")
    with pytest.raises(RateLimited) as caught:
        await client.get("/menus")
    assert caught.value.retry_after == 20.0
    await client.get("/menus")  # the caller decided to try again: the limiter holds it back
    assert fake.sent_inside_block == 0
    assert fake.log[-1].at >= fake.log[-2].at + 20.0
    assert client.stats.rate_limited == 1
    assert client.stats.retry_after_wait_seconds == pytest.approx(20.0, abs=0.01)
    assert [reason for _, reason in events.waits] == ["retry-after"]


async def test_requests_in_flight_never_exceed_the_concurrency() -> None:
    in_flight, most = 0, 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        for _ in range(3):
            await anyio.lowlevel.checkpoint()
        in_flight -= 1
        return httpx.Response(200, json={})

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url="http://t/public/v1")
    client = ApiClient(http, key="k", timer=ManualTimer(), settings=ClientSettings(concurrency=3))
    async with anyio.create_task_group() as group:
        for number in range(20):
            group.start_soon(client.get, f"/products/{number}")
    assert most == 3
    assert client.stats.requests == 20


async def test_a_request_budget_stops_the_client_before_the_next_request() -> None:
    fake = FakeApi(small_store())
    async with fake.client() as http:
        client = ApiClient(http, key=KEY, timer=fake.timer, settings=ClientSettings(max_requests=3))
        for _ in range(3):
            await client.get("/store")
        with pytest.raises(CrawlStopped, match=r"stopped after 3 requests \(--max-requests 3\)"):
            await client.get("/store")
    assert len(fake.paths()) == 3  # the fourth was never sent


async def test_a_deadline_stops_the_client_once_it_has_passed() -> None:
    fake = FakeApi(small_store())
    async with fake.client() as http:
        client = ApiClient(http, key=KEY, timer=fake.timer, settings=ClientSettings(stop_after=60))
        await client.get("/store")
        fake.timer.advance(59)
        await client.get("/store")
        fake.timer.advance(1)
        with pytest.raises(CrawlStopped, match="at the --deadline of 60 s"):
            await client.get("/store")
    assert len(fake.paths()) == 2
