"""The limiter's arithmetic and its in-memory counts (no HTTP here; see test_ratelimit_http)."""

from __future__ import annotations

from datetime import datetime

import pytest

from companion.clock import ManualClock
from companion.ratelimit import InMemoryRateLimiter, Window, decide, seconds_to_reset

pytestmark = pytest.mark.anyio

MINUTE, HOUR = Window(60, 3), Window(3600, 5)


def test_windows_are_aligned_to_the_epoch() -> None:
    assert seconds_to_reset(MINUTE, 120.0) == 60
    assert seconds_to_reset(MINUTE, 170.2) == 10  # rounded up, never 0
    assert seconds_to_reset(HOUR, 3600 * 5 + 59.5) == 3541


def test_allowed_request_reports_the_window_with_fewest_left() -> None:
    decision = decide((MINUTE, HOUR), used=(0, 3), now_seconds=30.0)
    assert decision.allowed
    assert decision.retry_after == 0
    assert decision.tightest.window == HOUR
    assert decision.tightest.remaining == 1


def test_full_window_refuses_and_says_when_to_retry() -> None:
    decision = decide((MINUTE, HOUR), used=(3, 3), now_seconds=45.0)
    assert not decision.allowed
    assert decision.retry_after == 15
    assert decision.tightest.window == MINUTE


def test_when_both_windows_are_full_retry_waits_for_the_later_reset() -> None:
    decision = decide((MINUTE, HOUR), used=(3, 5), now_seconds=45.0)
    assert decision.retry_after == 3555
    assert decision.tightest.reset_seconds == 3555


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
