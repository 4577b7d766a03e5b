"""The request log kept between builds: what one build's limiter sent, the next one counts."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from generator.client import (
    ClientStats,
    ManualTimer,
    NullObserver,
    RateLimiter,
    RateWindow,
    RequestLog,
)

pytestmark = pytest.mark.anyio

MINUTE = RateWindow(600, 60.0)
HOUR = RateWindow(20_000, 3600.0)
KEY = "pk_live_secret_key_value"


class Wall:
    """Wall-clock seconds that move with a virtual timer (and can be moved on their own)."""

    def __init__(self, timer: ManualTimer, start: float = 1_790_000_000.0) -> None:
        self.timer = timer
        self.start = start

    def __call__(self) -> float:
        return self.start + self.timer.now()


def limiter(timer: ManualTimer) -> RateLimiter:
    return RateLimiter((MINUTE, HOUR), timer, observer=NullObserver(), stats=ClientStats())


async def send(limit: RateLimiter, count: int) -> None:
    for _ in range(count):
        async with limit.slot():
            await anyio.lowlevel.checkpoint()


def log_of(tmp_path: Path, wall: Wall, api: str = "https://api.example.vn/public/v1") -> RequestLog:
    return RequestLog(tmp_path, api, KEY, wall=wall)


async def test_the_next_build_counts_what_the_last_one_sent(tmp_path: Path) -> None:
    first_timer = ManualTimer(start=500.0)  # each build's timer has its own origin
    wall = Wall(first_timer)
    first = limiter(first_timer)
    await send(first, 250)
    log_of(tmp_path, wall).record(first)

    later = ManualTimer(start=-40.0)
    wall_later = Wall(later, start=wall() + 10 + 40)  # ten seconds later on the wall
    second = limiter(later)
    assert log_of(tmp_path, wall_later).restore(second) == 250
    assert second.used(MINUTE) == 250 and second.used(HOUR) == 250

    later.advance(51)  # past the minute, inside the hour
    assert second.used(MINUTE) == 0 and second.used(HOUR) == 250


async def test_a_full_minute_makes_the_next_build_wait(tmp_path: Path) -> None:
    timer = ManualTimer()
    wall = Wall(timer)
    first = limiter(timer)
    await send(first, 600)
    log_of(tmp_path, wall).record(first)

    second = limiter(timer)
    log_of(tmp_path, wall).restore(second)
    before = timer.now()
    await send(second, 1)
    assert timer.now() - before > 59  # waited for the first build's minute to pass


async def test_logs_are_per_api_and_key_and_never_hold_the_key(tmp_path: Path) -> None:
    timer = ManualTimer()
    wall = Wall(timer)
    first = limiter(timer)
    await send(first, 5)
    log = log_of(tmp_path, wall)
    log.record(first)
    assert KEY not in log.path.name and KEY not in log.path.read_text()
    other = limiter(timer)
    assert log_of(tmp_path, wall, api="https://other.example.vn/public/v1").restore(other) == 0
    assert RequestLog(tmp_path, log.api_url, "pk_other", wall=wall).restore(other) == 0


async def test_two_processes_saving_keep_both_builds_requests(tmp_path: Path) -> None:
    timer = ManualTimer()
    wall = Wall(timer)
    one, two = limiter(timer), limiter(timer)
    log_of(tmp_path, wall).restore(one)
    log_of(tmp_path, wall).restore(two)  # both started before either saved
    await send(one, 3)
    await send(two, 4)
    log_of(tmp_path, wall).record(one)
    log_of(tmp_path, wall).record(two)
    assert log_of(tmp_path, wall).restore(limiter(timer)) == 7


async def test_a_retry_after_carries_over_to_the_next_build(tmp_path: Path) -> None:
    timer = ManualTimer()
    wall = Wall(timer)
    first = limiter(timer)
    first.block_for(30)
    log_of(tmp_path, wall).record(first)
    second = limiter(timer)
    log_of(tmp_path, wall).restore(second)
    before = timer.now()
    await send(second, 1)
    assert timer.now() - before >= 30


async def test_old_requests_are_dropped_and_a_broken_file_starts_afresh(tmp_path: Path) -> None:
    timer = ManualTimer()
    wall = Wall(timer)
    first = limiter(timer)
    await send(first, 10)
    log = log_of(tmp_path, wall)
    log.record(first)
    timer.advance(3601)
    log.record(limiter(timer))  # a later build that sent nothing prunes the hour's leftovers
    assert json.loads(log.path.read_text())["ended"] == []

    log.path.write_text("{not json")
    assert log.restore(limiter(timer)) == 0
    log.record(first)  # and the next save writes a good file again
    assert json.loads(log.path.read_text())["format"] == 1
