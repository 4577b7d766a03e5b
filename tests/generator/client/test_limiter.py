"""The client-side limiter on a virtual clock: both windows, Retry-After blocks, pacing."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from generator.client import ClientStats, ManualTimer, NullObserver, RateLimiter, RateWindow
from generator.errors import ConfigError

pytestmark = pytest.mark.anyio


class Waits:
    def __init__(self) -> None:
        self.seen: list[tuple[float, str]] = []

    def request_done(self, endpoint: str, status: int, seconds: float) -> None:
        return None

    def waiting(self, seconds: float, reason: str) -> None:
        self.seen.append((seconds, reason))

    def retrying(self, endpoint: str, attempt: int, delay: float, reason: str) -> None:
        return None


def limiter(
    timer: ManualTimer, *windows: RateWindow, observer: Waits | None = None
) -> tuple[RateLimiter, ClientStats]:
    stats = ClientStats()
    return RateLimiter(windows, timer, observer=observer or NullObserver(), stats=stats), stats


async def send(
    limit: RateLimiter, timer: ManualTimer, count: int, took: float = 0.0
) -> list[float]:
    """``count`` requests one after another; the instants they were sent."""
    sent = []
    for _ in range(count):
        async with limit.slot():
            sent.append(timer.now())
            await timer.sleep(took)
    return sent


def most_in_any_window(instants: list[float], seconds: float) -> int:
    return max(sum(1 for t in instants if start <= t < start + seconds) for start in instants)


async def test_short_window_holds_the_fourth_request_until_the_first_leaves() -> None:
    timer = ManualTimer()
    limit, stats = limiter(timer, RateWindow(3, 10.0))
    sent = await send(limit, timer, 7)
    assert sent[:3] == [0.0, 0.0, 0.0]
    assert sent[3] == pytest.approx(10.0, abs=0.01)
    assert sent[6] == pytest.approx(20.0, abs=0.02)
    assert most_in_any_window(sent, 10.0) == 3
    assert stats.limiter_wait_seconds == pytest.approx(20.0, abs=0.02)


async def test_long_window_applies_on_top_of_the_short_one() -> None:
    timer = ManualTimer()
    limit, _ = limiter(timer, RateWindow(5, 10.0), RateWindow(8, 100.0))
    sent = await send(limit, timer, 9)
    assert most_in_any_window(sent, 10.0) <= 5
    assert most_in_any_window(sent, 100.0) == 8
    assert sent[5] == pytest.approx(10.0, abs=0.01)  # short window first
    assert sent[8] == pytest.approx(100.0, abs=0.01)  # then the hour-like window


async def test_retry_after_block_holds_every_request_and_is_counted_apart() -> None:
    timer, observer = ManualTimer(50.0), Waits()
    limit, stats = limiter(timer, RateWindow(100, 60.0), observer=observer)
    limit.block_for(30.0)
    limit.block_until(60.0)  # an earlier instant does not shorten the block
    sent = await send(limit, timer, 2)
    assert sent[0] >= 80.0 and sent[1] >= 80.0
    assert stats.retry_after_wait_seconds == pytest.approx(30.0, abs=0.01)
    assert stats.limiter_wait_seconds == 0.0
    assert [reason for _, reason in observer.seen] == ["retry-after"]


async def test_requests_in_flight_count_inside_the_window() -> None:
    timer = ManualTimer()
    limit, _ = limiter(timer, RateWindow(2, 10.0))
    finished: list[float] = []
    third_sent: list[float] = []

    async def slow() -> None:
        async with limit.slot():
            await timer.sleep(5.0)
        finished.append(timer.now())

    async def third() -> None:
        await anyio.lowlevel.checkpoint()
        async with limit.slot():
            third_sent.append(timer.now())

    async with anyio.create_task_group() as group:
        group.start_soon(slow)
        group.start_soon(slow)
        group.start_soon(third)
    # Logged at completion: the third waits a full window after the first one *finished*.
    assert third_sent[0] >= min(finished) + 10.0


async def test_pacing_uses_nearly_the_whole_allowed_rate() -> None:
    timer = ManualTimer()
    limit, _ = limiter(timer, RateWindow(10, 1.0))
    sent = await send(limit, timer, 200, took=0.002)
    elapsed = sent[-1] - sent[0]
    achieved = (len(sent) - 1) / elapsed
    assert achieved >= 0.9 * 10  # at least 90 % of 10 requests per second
    # What a server sees (the request arrives after it was sent) never exceeds the limit.
    arrivals = [t + 0.001 for t in sent]
    assert most_in_any_window(arrivals, 1.0) <= 10


def test_a_window_must_allow_something() -> None:
    with pytest.raises(ConfigError, match="rate window 0/60 s"):
        RateWindow(0, 60.0)
