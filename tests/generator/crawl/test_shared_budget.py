"""Builds in a row share the key's rate windows: the second waits instead of meeting a 429.

The companion enforces the spec's 600 requests a minute on a virtual clock that the crawls'
timer drives, so the minute passes without the test sleeping. Each crawl has its own client
and limiter, as each build has; the request log in the cache folder is what they share.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from companion.app import create_app
from companion.db.engine import make_engine
from companion.seed.collection_rows import COLLECTION_COUNT
from companion.seed.demo import seed_demo
from companion.settings import CompanionSettings
from generator.client import ManualTimer, RequestLog
from generator.client.api import ApiClient
from generator.replay.crawl import crawl

pytestmark = pytest.mark.anyio

START = datetime(2026, 11, 20, 3, 0, 0)
PRODUCTS = 20  # with all the demo's collections and paths, a crawl of some 500 requests


class TimerClock:
    def __init__(self, timer: ManualTimer) -> None:
        self._timer = timer

    def now(self) -> datetime:
        return START + timedelta(seconds=self._timer.now())


async def two_crawls(tmp_path: Path, *, remember: bool) -> tuple[ApiClient, ApiClient]:
    database = str(tmp_path / "db.sqlite3")
    timer = ManualTimer()
    app = create_app(CompanionSettings(database=database), clock=TimerClock(timer))
    engine = make_engine(database)
    try:
        key = seed_demo(engine, products=PRODUCTS, now=START, collections=COLLECTION_COUNT).key
    finally:
        engine.dispose()
    url = "http://shop/public/v1"
    clients = []
    for _ in range(2):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=url) as http:
            client = ApiClient(http, key=key, timer=timer)
            log = RequestLog(tmp_path / "cache", url, key, wall=lambda: timer.now())
            if remember:
                log.restore(client.limiter)
            try:
                await crawl(client)
            finally:
                log.record(client.limiter)
            clients.append(client)
    return clients[0], clients[1]


async def test_the_second_build_waits_for_the_first_ones_minute(tmp_path: Path) -> None:
    first, second = await two_crawls(tmp_path, remember=True)
    assert first.stats.requests + second.stats.requests > 600  # more than a minute allows
    assert first.stats.rate_limited == 0
    assert second.stats.rate_limited == 0
    assert second.stats.limiter_wait_seconds > 0


@pytest.mark.slow
async def test_without_the_log_the_second_build_meets_429s(tmp_path: Path) -> None:
    """The control: the same two builds, each starting its count afresh."""
    _, second = await two_crawls(tmp_path, remember=False)
    assert second.stats.rate_limited > 0
