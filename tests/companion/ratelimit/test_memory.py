"""The in-memory limiter: counts per bucket, in this process."""

from __future__ import annotations

from datetime import datetime

import pytest

from companion.clock import ManualClock
from companion.ratelimit.memory import InMemoryRateLimiter
from companion.ratelimit.windows import Window

pytestmark = pytest.mark.anyio

MINUTE, HOUR = Window(60, 3), Window(3600, 5)


async def test_in_memory_limiter_counts_per_bucket_and_forgets_old_windows() -> None:
    clock = ManualClock(datetime(2026, 1, 1, 0, 0, 0))
    limiter = InMemoryRateLimiter(clock, (MINUTE,))
    assert [(await limiter.hit("a")).allowed for _ in range(4)] == [True, True, True, False]
    assert (await limiter.hit("b")).allowed  # another bucket has its own count
    clock.advance(60)
    decision = await limiter.hit("a")
    assert decision.allowed
    assert decision.tightest.remaining == 2


async def test_refused_requests_are_not_counted() -> None:
    clock = ManualClock(datetime(2026, 1, 1, 0, 0, 0))
    limiter = InMemoryRateLimiter(clock, (MINUTE, HOUR))
    for _ in range(3):
        await limiter.hit("k")
    for _ in range(10):
        assert not (await limiter.hit("k")).allowed
    clock.advance(60)
    assert (await limiter.hit("k")).tightest.remaining == 1  # hour: 5 - 4 counted


async def test_a_request_let_through_at_once_is_counted_and_says_its_headers() -> None:
    clock = ManualClock(datetime(2026, 1, 1, 0, 0, 50))
    limiter = InMemoryRateLimiter(clock, (MINUTE, HOUR))
    assert limiter.passed_at_once("k") == [
        (b"ratelimit-limit", b"3"),
        (b"ratelimit-remaining", b"2"),
        (b"ratelimit-reset", b"10"),
        (b"ratelimit-policy", b"3;w=60, 5;w=3600"),
    ]
    await limiter.hit("k")
    assert limiter.passed_at_once("k") is not None  # the third of the minute
    assert limiter.passed_at_once("k") is None  # refused: ``hit`` says so, not counted
    assert not (await limiter.hit("k")).allowed
    clock.advance(10)
    assert (await limiter.hit("k")).tightest.remaining == 1  # the hour: 5 - 4 counted
