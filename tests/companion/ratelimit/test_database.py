"""The database-backed rate limiter: counts shared by every worker on one database.

Runs on a real SQLite file, or on PostgreSQL when the suite does (STOREFRONT_TEST_POSTGRES).
Several engines stand in for several worker processes: each has its own connections.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, select

from companion.app import create_app
from companion.clock import ManualClock
from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.db.ratelimit_schema import rate_limit_counts
from companion.ratelimit.database import DatabaseRateLimiter, make_limiter
from companion.ratelimit.memory import InMemoryRateLimiter
from companion.ratelimit.windows import Window
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX, Api, MakeApi
from tests.companion.databases import fresh_database
from tests.companion.ratelimit.threads import hammer

pytestmark = pytest.mark.anyio

MINUTE, HOUR = Window(60, 3), Window(3600, 5)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    with fresh_database(tmp_path) as url:
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        yield url


@pytest.fixture
def engines(database: str) -> Iterator[list[Engine]]:
    """Two engines on one database: two workers."""
    made = [make_engine(database), make_engine(database)]
    yield made
    for engine in made:
        engine.dispose()


async def test_a_full_window_refuses_and_the_refusal_is_not_counted(
    engines: list[Engine], clock: ManualClock
) -> None:
    limiter = DatabaseRateLimiter(engines[0], clock, (MINUTE, HOUR))
    decisions = [await limiter.hit("key:1") for _ in range(5)]
    assert [d.allowed for d in decisions] == [True, True, True, False, False]
    assert decisions[3].retry_after == 50  # START is 03:00:10
    assert decisions[2].tightest.remaining == 0
    with engines[0].connect() as conn:
        rows = conn.execute(
            select(rate_limit_counts.c.window_seconds, rate_limit_counts.c.count)
        ).all()
    counted = {seconds: count for seconds, count in rows}
    assert counted == {60: 3, 3600: 3}  # the two refused requests left no trace


async def test_a_new_window_starts_from_zero(engines: list[Engine], clock: ManualClock) -> None:
    limiter = DatabaseRateLimiter(engines[0], clock, (MINUTE, HOUR))
    assert [(await limiter.hit("key:1")).allowed for _ in range(4)] == [True] * 3 + [False]
    clock.advance(50)  # 03:01:00, same hour: two left in the hour window
    assert [(await limiter.hit("key:1")).allowed for _ in range(3)] == [True, True, False]
    refused = await limiter.hit("key:1")
    assert refused.retry_after == 3540 and refused.tightest.window == HOUR


async def test_two_workers_share_one_count_per_bucket(
    engines: list[Engine], clock: ManualClock
) -> None:
    first, second = (DatabaseRateLimiter(e, clock, (MINUTE, HOUR)) for e in engines)
    allowed = [(await w.hit("key:7")).allowed for w in (first, second, first, second)]
    assert allowed == [True, True, True, False]
    assert (await second.hit("store:7")).allowed  # another bucket has its own count


def test_concurrent_hits_from_many_connections_never_exceed_the_limit(
    engines: list[Engine], clock: ManualClock
) -> None:
    limit = 25
    workers = [DatabaseRateLimiter(e, clock, (Window(60, limit),)) for e in engines]
    results = hammer(workers, "key:9", threads=6, hits=10)
    assert len(results) == 60
    assert results.count(True) == limit


def test_one_sqlite_worker_counts_in_memory_and_anything_shared_in_the_database(
    tmp_path: Path, clock: ManualClock
) -> None:
    engine = make_engine(str(tmp_path / "one.db"))
    windows = (MINUTE,)
    try:
        single = CompanionSettings(database=str(tmp_path / "one.db"))
        assert isinstance(make_limiter(single, engine, clock, windows), InMemoryRateLimiter)
        several = replace(single, workers=2)
        assert isinstance(make_limiter(several, engine, clock, windows), DatabaseRateLimiter)
    finally:
        engine.dispose()
    postgres = make_engine("postgresql://shop@db.invalid/shop")  # never connects
    assert isinstance(make_limiter(single, postgres, clock, windows), DatabaseRateLimiter)


async def test_a_burst_over_two_apps_is_refused_at_the_limit(
    make_api: MakeApi, clock: ManualClock
) -> None:
    """Two apps on one database, as two workers behind a load balancer: one shared bucket."""
    api: Api = await make_api(rate_per_minute=4, workers=2)
    twin = create_app(api.app.state.services.settings, clock=clock)
    transport = httpx.ASGITransport(app=twin)
    statuses = []
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as other:
        for client in (api.client, other) * 3:
            response = await client.get(f"{PREFIX}/store", headers={"X-Service-Key": api.key})
            statuses.append(response.status_code)
    twin.state.services.engine.dispose()
    assert statuses == [200, 200, 200, 200, 429, 429]
