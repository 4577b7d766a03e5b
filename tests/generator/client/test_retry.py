"""The retry layer inside ApiClient: 5xx and transport failures retried with bounded, jittered
backoff on the injected timer; 4xx and 429 never retried."""

from __future__ import annotations

import random
from collections.abc import Callable

import httpx
import pytest

from generator.client import ClientSettings, ManualTimer, RetryPolicy
from generator.client.api import ApiClient
from generator.errors import ApiStatusError, ApiUnreachable, RateLimited

pytestmark = pytest.mark.anyio


class Retries:
    """Records the client's retry announcements."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, float, str]] = []

    def request_done(self, endpoint: str, status: int, seconds: float) -> None:
        return None

    def waiting(self, seconds: float, reason: str) -> None:
        return None

    def retrying(self, endpoint: str, attempt: int, delay: float, reason: str) -> None:
        self.seen.append((endpoint, attempt, delay, reason))


def scripted(answers: list[Callable[[], httpx.Response]]) -> tuple[httpx.MockTransport, list[int]]:
    """A transport answering from the script in order (the last answer repeats)."""
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return answers[min(len(calls), len(answers)) - 1]()

    return httpx.MockTransport(handler), calls


def make_client(
    transport: httpx.MockTransport, timer: ManualTimer, observer: Retries | None = None
) -> ApiClient:
    http = httpx.AsyncClient(transport=transport, base_url="http://api.test/public/v1")
    return ApiClient(http, key="k", timer=timer, observer=observer, rng=random.Random(7))


def ok() -> httpx.Response:
    return httpx.Response(200, json={"ok": True})


def server_error() -> httpx.Response:
    return httpx.Response(500, json={"code": "internal", "detail": "boom"})


async def test_500_then_success_is_retried_after_a_backoff() -> None:
    timer, observer = ManualTimer(), Retries()
    transport, calls = scripted([server_error, ok])
    client = make_client(transport, timer, observer)
    assert await client.json("/products/3") == {"ok": True}
    assert len(calls) == 2
    assert client.stats.retries == 1
    [(endpoint, attempt, delay, reason)] = observer.seen
    assert (endpoint, attempt, reason) == ("GET /products/3", 1, "HTTP 500")
    assert 0.25 <= delay <= 0.5 and timer.slept == [delay]


async def test_500_forever_gives_up_naming_the_endpoint() -> None:
    timer = ManualTimer()
    transport, calls = scripted([server_error])
    client = make_client(transport, timer)
    with pytest.raises(ApiStatusError) as caught:
        await client.get("/products/3")
    assert len(calls) == 5
    assert caught.value.status == 500
    assert str(caught.value) == (
        "GET /products/3: HTTP 500: internal: boom (gave up after 5 attempts)"
    )
    assert len(timer.slept) == 4 and all(0 < d <= 10 for d in timer.slept)


async def test_connection_errors_are_retried_then_reported_unreachable() -> None:
    def refuse() -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    transport, calls = scripted([refuse])
    client = make_client(transport, ManualTimer())
    with pytest.raises(ApiUnreachable, match=r"^GET /store: .*gave up after 5 attempts"):
        await client.get("/store")
    assert len(calls) == 5


@pytest.mark.parametrize("status", [400, 404, 422, 501])
async def test_client_errors_are_not_retried(status: int) -> None:
    transport, calls = scripted([lambda: httpx.Response(status, json={"detail": "no"})])
    client = make_client(transport, ManualTimer())
    with pytest.raises(ApiStatusError):
        await client.get("/products/3")
    assert len(calls) == 1 and client.stats.retries == 0


async def test_429_is_not_retried_but_blocks_the_limiter() -> None:
    timer = ManualTimer(100.0)
    transport, calls = scripted([lambda: httpx.Response(429, headers={"Retry-After": "30"})])
    client = make_client(transport, timer)
    with pytest.raises(RateLimited):
        await client.get("/products")
    assert len(calls) == 1
    assert client.stats.rate_limited == 1
    assert client.limiter.blocked_until == pytest.approx(130.0)


def test_backoff_doubles_up_to_the_cap_with_jitter() -> None:
    policy, rng = RetryPolicy(attempts=20, base_delay=0.5, max_delay=10.0), random.Random(1)
    for retry, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (6, 10.0), (15, 10.0)]:
        delays = [policy.delay(retry, rng) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1  # jittered


async def test_attempts_are_configurable() -> None:
    transport, calls = scripted([server_error])
    http = httpx.AsyncClient(transport=transport, base_url="http://api.test/public/v1")
    client = ApiClient(
        http, key="k", timer=ManualTimer(), settings=ClientSettings(retry=RetryPolicy(attempts=2))
    )
    with pytest.raises(ApiStatusError, match="gave up after 2 attempts"):
        await client.get("/store")
    assert len(calls) == 2


async def test_a_host_that_does_not_resolve_is_not_retried() -> None:
    # .invalid resolves nowhere (RFC 6761): the resolver says so without any network.
    http = httpx.AsyncClient(base_url="http://api.shop.invalid/public/v1")
    observer = Retries()
    timer = ManualTimer()
    client = ApiClient(http, key="k", timer=timer, observer=observer, rng=random.Random(7))
    async with http:
        with pytest.raises(ApiUnreachable) as caught:
            await client.get("/categories")
    assert observer.seen == [] and client.stats.retries == 0 and timer.slept == []
    message = str(caught.value)
    assert "api.shop.invalid" in message and "does not resolve" in message
    assert "\n" not in message
