"""`make bench BENCH_ARGS=--resume`: a large first build at the real rate limits, stopped twice.

The demo store of ``--resume-products`` products (10,000 by default) is crawled by the real
crawl against the real companion in this process (ASGI), both on one simulated clock: the
companion enforces the spec's 600 requests a minute and 20,000 an hour on it, and the client's
limiter sleeps on it, so no real hour passes. First one crawl that is never stopped, then the
same crawl stopped twice (``--max-requests`` at seeded random points, the answers kept as a
stopped build keeps them) and continued to its end, each run with its own client, limiter and
request log, as consecutive builds have. Reported: requests (stopped runs against the one-go
crawl), simulated wall time against the floor both windows allow, and 429 answers.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx

SECTION = "## A large first build at the real limits, stopped twice"
MINUTE, HOUR = (600, 60.0), (20_000, 3600.0)


class TimerClock:
    """The companion's clock, reading the crawl's simulated timer."""

    def __init__(self, timer: Any, start: datetime) -> None:
        self._timer, self._start = timer, start

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self._timer.now())


@dataclass
class Run:
    requests: int = 0
    rate_limited: int = 0
    seconds: float = 0.0
    stops: int = 0


def floor_seconds(requests: int) -> float:
    """The least time ``requests`` take under 600 a minute and 20,000 an hour: each window lets
    its limit through at once, the next batch once the first has aged out of it."""
    return max((math.ceil(requests / limit) - 1) * seconds for limit, seconds in (MINUTE, HOUR))


async def crawl_runs(db: Path, cache: Path, stops: list[int]) -> Run:
    """One crawl from an empty cache, stopped after each of ``stops`` requests (run by run) and
    then continued to its end; its totals."""
    from companion.app import create_app
    from companion.settings import CompanionSettings
    from generator.client import ClientSettings, ManualTimer, RequestLog
    from generator.client.api import ApiClient
    from generator.errors import CrawlStopped
    from generator.replay.cache import CrawlCache
    from generator.replay.crawl import crawl

    timer = ManualTimer()
    start = datetime(2026, 11, 20, 3, 0, 0, tzinfo=UTC).replace(tzinfo=None)
    app = create_app(CompanionSettings(database=str(db)), clock=TimerClock(timer, start))
    key = _key()
    url = "http://shop/public/v1"
    total = Run()
    for limit in [*stops, None]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=url) as http:
            client = ApiClient(
                http, key=key, timer=timer, settings=ClientSettings(max_requests=limit)
            )
            log = RequestLog(cache, url, key, wall=lambda: 1_790_000_000.0 + timer.now())
            log.restore(client.limiter)
            store = CrawlCache.open(cache)
            try:
                await crawl(client, cache=store)
                store.save()
            except CrawlStopped:
                store.keep_partial()
                total.stops += 1
            finally:
                log.record(client.limiter)
            total.requests += client.stats.requests
            total.rate_limited += client.stats.rate_limited
    total.seconds = timer.now()
    return total


def _key() -> str:
    from companion.seed.demo import DEMO_KEY

    return DEMO_KEY


def measure_resume(
    folder: Path, products: int, seed_store: Any, *, rng_seed: int = 2411
) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "store.sqlite3"
    seed_store(db, products)
    one_go = anyio.run(crawl_runs, db, folder / "one-go", [])
    rng = random.Random(rng_seed)
    stops = sorted(rng.sample(range(one_go.requests // 10, one_go.requests * 9 // 10), 2))
    first, second = stops
    stopped = anyio.run(crawl_runs, db, folder / "stopped", [first, second - first])
    return {
        "products": products,
        "stops": stops,
        "one_go": one_go,
        "stopped": stopped,
    }


def resume_report(row: dict[str, Any], machine: str) -> str:
    one_go: Run = row["one_go"]
    stopped: Run = row["stopped"]
    extra = stopped.requests / one_go.requests - 1
    lines = [
        SECTION + f" (run of {datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        "`make bench BENCH_ARGS=--resume` (`benchmarks/resume.py`): the demo store of "
        f"{row['products']:,} products, crawled in-process against the companion on one "
        "simulated clock (600 requests a minute and 20,000 an hour enforced by the companion and "
        "kept by the client); once without a stop, then stopped after "
        f"{row['stops'][0]:,} and {row['stops'][1]:,} requests (seeded random points; the answers "
        "kept as a stopped build keeps them, each run with its own client and the request log "
        f"between them) and continued to its end. Machine: {machine}.",
        "",
        "| figure | one go | stopped twice | target |",
        "|---|---:|---:|---|",
        f"| requests | {one_go.requests:,} | {stopped.requests:,} ({extra:+.1%}) | at most +2 % |",
        f"| simulated wall time (min) | {one_go.seconds / 60:,.1f} | {stopped.seconds / 60:,.1f} "
        "| within 5 % of the floor |",
        f"| the floor for those requests (min) | {floor_seconds(one_go.requests) / 60:,.1f} "
        f"| {floor_seconds(stopped.requests) / 60:,.1f} | |",
        f"| 429 answers | {one_go.rate_limited} | {stopped.rate_limited} | 0 |",
        "",
    ]
    return "\n".join(lines)
