"""Leased rate-limit units: workers spend from memory what they leased from the shared count.

Runs on a real SQLite file, or on PostgreSQL when the suite does (STOREFRONT_TEST_POSTGRES).
Two engines stand in for two worker processes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from companion.clock import ManualClock, epoch_seconds
from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.db.ratelimit_schema import rate_limit_counts
from companion.ratelimit.database import DatabaseRateLimiter
from companion.ratelimit.leases import LeaseBook, lease_size
from companion.ratelimit.windows import Window, decide, decision_headers
from tests.companion.conftest import START
from tests.companion.databases import fresh_database
from tests.companion.ratelimit.threads import hammer

pytestmark = pytest.mark.anyio

MINUTE = Window(60, 200)  # leases of 4 units
HOUR = Window(3600, 10_000)


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[list[Engine]]:
    with fresh_database(tmp_path) as url:
        first = make_engine(url)
        upgrade(first)
        made = [first, make_engine(url)]
        yield made
        for engine in made:
            engine.dispose()


def counted(engine: Engine) -> dict[int, int]:
    with engine.connect() as conn:
        rows = conn.execute(select(rate_limit_counts.c.window_seconds, rate_limit_counts.c.count))
        return {seconds: count for seconds, count in rows}


def test_a_lease_is_a_small_share_of_the_tightest_limit() -> None:
    assert lease_size((Window(60, 600), Window(3600, 20_000))) == 12
    assert lease_size((Window(60, 1200),)) == 24
    assert lease_size((Window(60, 100_000),)) == 32  # capped
    assert lease_size((Window(60, 3), Window(3600, 5))) == 1  # small limits: no leasing


async def test_requests_are_served_from_the_lease_without_counting_each(
    engines: list[Engine], clock: ManualClock
) -> None:
    limiter = DatabaseRateLimiter(engines[0], clock, (MINUTE, HOUR))
    assert limiter.lease == 4
    decisions = [await limiter.hit("key:1") for _ in range(5)]
    assert all(d.allowed for d in decisions)
    assert counted(engines[0]) == {60: 8, 3600: 8}  # two leases of 4, not five writes
    assert limiter.unspent("key:1") == 3
    # With one worker the headers are exact: what was let through, not what was leased.
    assert [d.tightest.remaining for d in decisions] == [199, 198, 197, 196, 195]


async def test_two_workers_never_let_more_than_the_limit_through(
    engines: list[Engine], clock: ManualClock
) -> None:
    first, second = (DatabaseRateLimiter(e, clock, (MINUTE, HOUR)) for e in engines)
    allowed = [(await w.hit("key:7")).allowed for _ in range(125) for w in (first, second)]
    assert allowed.count(True) == MINUTE.limit  # exactly: near the limit, one unit at a time
    assert allowed[-10:] == [False] * 10
    assert counted(engines[0])[60] == MINUTE.limit
    refused = await first.hit("key:7")
    assert refused.retry_after == 50 and refused.tightest.remaining == 0  # START is 03:00:10


async def test_leases_expire_with_their_window(engines: list[Engine], clock: ManualClock) -> None:
    limiter = DatabaseRateLimiter(engines[0], clock, (MINUTE, HOUR))
    await limiter.hit("key:1")
    assert limiter.unspent("key:1") == 3
    clock.advance(50)  # 03:01:00: a new minute
    assert limiter.unspent("key:1") == 0
    decision = await limiter.hit("key:1")
    assert decision.allowed and decision.tightest.remaining == 199
    assert counted(engines[0]) == {60: 4, 3600: 8}


def test_threads_of_two_workers_with_leases_never_exceed_the_limit(
    engines: list[Engine], clock: ManualClock
) -> None:
    window = Window(60, 100)  # leases of 2
    workers = [DatabaseRateLimiter(e, clock, (window,)) for e in engines]
    results = hammer(workers, "key:9", threads=6, hits=25)
    assert len(results) == 150
    assert results.count(True) <= window.limit
    assert counted(engines[0])[60] <= window.limit
    unspent = sum(w.unspent("key:9") for w in workers)
    assert results.count(True) + unspent == counted(engines[0])[60]  # every leased unit accounted


@pytest.mark.parametrize(
    ("hour", "steps", "tightest"),
    [
        # The minute has fewer left: its reset falls to the last second of the lease.
        (HOUR, (0.0, 19.5, 20.0, 29.25, 49.0, 49.9), MINUTE),
        # As many left in both: the later reset, the hour's.
        (Window(3600, 200), (0.0, 10.0, 30.0, 49.9, 65.0), Window(3600, 200)),
        # The minute first, then, in the next minute, the hour holding the first's units.
        (Window(3600, 205), (0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 65.0, 70.0), Window(3600, 205)),
    ],
)
async def test_a_leased_unit_says_what_counting_it_alone_would(
    engines: list[Engine],
    clock: ManualClock,
    hour: Window,
    steps: tuple[float, ...],
    tightest: Window,
) -> None:
    """The headers of a unit spent from a lease (its tightest window worked out as it was
    granted) are those of the same counts decided from scratch, up to the lease's last second."""
    windows = (MINUTE, hour)
    limiter = DatabaseRateLimiter(engines[0], clock, windows)
    seen = []
    for step in steps:  # START is 03:00:10: the minute ends at 60
        clock.set(START + timedelta(seconds=step))
        spent = await limiter.hit("key:3")
        now = epoch_seconds(clock.now())
        counts = counted(engines[0])
        shared = [counts[w.seconds] - limiter.unspent("key:3") for w in windows]
        alone = decide(windows, [n - 1 for n in shared], now, spent.policy)
        assert spent.tightest == alone.tightest, step
        seen.append(spent.tightest.window)
    assert seen[-1] == tightest
    if tightest == MINUTE:
        assert spent.tightest.reset_seconds == 1
    if hour.limit == 205:
        assert seen[0] == MINUTE  # the tightest changed between two leases


def test_a_unit_spent_for_its_headers_says_what_its_decision_would() -> None:
    """``spend_headers`` (a kept read's) beside ``spend``, on two books granted alike."""
    windows = (MINUTE, Window(3600, 210))
    books = LeaseBook(windows), LeaseBook(windows)
    start = 1_795_000_020.0
    for book in books:
        book.grant("k", book.indexes(start), 4, [40, 196])
    for at in (start, start + 10.2, start + 39.5, start + 39.99):
        decision = books[0].spend("k", at)
        assert decision is not None
        assert books[1].spend_headers("k", at) == decision_headers(decision), at
    assert books[0].spend("k", start + 40) is None  # the four units spent
    assert books[1].spend_headers("k", start + 40) is None


def test_a_spent_unit_tells_the_tightest_windows_limit_requests_left_and_seconds_to_reset() -> None:
    """Worked out by hand: the hour has 14 requests left beside the minute's 160, so it is the
    tightest; each unit spent leaves one fewer; a top-up in the same windows carries on."""
    book = LeaseBook((MINUTE, Window(3600, 210)))
    start = 1_795_000_020.0  # 1,200 s into its hour
    hour_end = (int(start) // 3600 + 1) * 3600
    book.grant("k", book.indexes(start), 4, [40, 196])
    seen = [
        book.spend_headers("k", at) for at in (start, start + 10.2, start + 39.5, start + 39.99)
    ]
    assert [dict(headers or [])[b"ratelimit-remaining"] for headers in seen] == [
        b"17",
        b"16",
        b"15",
        b"14",
    ]
    assert [dict(headers or [])[b"ratelimit-reset"] for headers in seen] == [
        b"%d" % math.ceil(hour_end - at)
        for at in (start, start + 10.2, start + 39.5, start + 39.99)
    ]
    assert {dict(headers or [])[b"ratelimit-limit"] for headers in seen} == {b"210"}
    book.grant("k", book.indexes(start + 40.5), 2, [50, 200])  # the minute's span ended
    assert book.spend_headers("k", start + 40.5) is not None
    book.grant("k", book.indexes(start + 41), 2, [52, 205])  # a top-up of the same span
    after = [book.spend_headers("k", start + 41) for _ in range(4)]
    # the unit left of the second lease and the top-up's two, counted from the new shared count
    assert [dict(headers or [])[b"ratelimit-remaining"] for headers in after[:3]] == [
        b"7",
        b"6",
        b"5",
    ]
    assert after[3] is None


def test_a_window_longer_than_a_day_says_its_seconds_to_reset_too() -> None:
    two_days = Window(2 * 86_400, 50)
    book = LeaseBook((MINUTE, two_days))
    start = 1_795_000_020.0 // two_days.seconds * two_days.seconds + 20  # early in its span
    book.grant("k", book.indexes(start), 2, [10, 45])  # the two days' 5 left are the fewest
    headers = dict(book.spend_headers("k", start) or [])
    end = (int(start) // two_days.seconds + 1) * two_days.seconds
    assert headers[b"ratelimit-reset"] == b"%d" % math.ceil(end - start)
    assert int(headers[b"ratelimit-reset"]) > 86_400
    assert headers[b"ratelimit-remaining"] == b"6"
