"""Leases written on the event loop over a PostgreSQL connection of the worker's own
(companion.ratelimit.lease_link): the same counts as leases written in a thread, all or nothing,
and the blocking path whenever the link cannot serve. PostgreSQL only (the suite's PostgreSQL
pass, STOREFRONT_TEST_POSTGRES)."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, select, text

from companion.clock import ManualClock, SystemClock
from companion.db.ratelimit_schema import rate_limit_counts
from companion.ratelimit import lease_link
from companion.ratelimit.database import DatabaseRateLimiter, link_for
from companion.ratelimit.windows import Window
from tests.companion.databases import postgres_engine

pytestmark = pytest.mark.anyio

MINUTE, HOUR = Window(60, 100), Window(3600, 103)  # leases of 2 units
#: The lease links on this test's database (tests on other databases run beside it).
THIS_DATABASE = "application_name = :name AND datname = current_database()"
#: Milliseconds pg_terminate_backend waits for the backend it signals to end.
END_WAIT_MS = 10_000


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with postgres_engine(tmp_path, "the lease link is PostgreSQL's") as made:
        yield made


def limiter_on(engine: Engine, clock: ManualClock) -> DatabaseRateLimiter:
    return DatabaseRateLimiter(engine, clock, (MINUTE, HOUR), link=link_for(engine, (MINUTE, HOUR)))


def counted(engine: Engine, bucket: str) -> dict[int, int]:
    with engine.connect() as conn:
        query = select(rate_limit_counts.c.window_seconds, rate_limit_counts.c.count).where(
            rate_limit_counts.c.bucket == bucket
        )
        return {seconds: count for seconds, count in conn.execute(query)}


def link_connections(engine: Engine) -> int:
    with engine.connect() as conn:
        query = text(f"SELECT count(*) FROM pg_stat_activity WHERE {THIS_DATABASE}")
        return int(conn.execute(query, {"name": lease_link.APPLICATION}).scalar_one())


async def test_leases_on_the_link_count_as_leases_in_a_thread(
    engine: Engine, clock: ManualClock
) -> None:
    on_link = limiter_on(engine, clock)
    in_thread = DatabaseRateLimiter(engine, clock, (MINUTE, HOUR))
    assert on_link.lease == 2 and on_link.link is not None
    seen = {}
    for name, limiter in (("link", on_link), ("thread", in_thread)):
        first = [(await limiter.hit(name)).allowed for _ in range(101)]
        clock.advance(seconds=60)  # a new minute: the hour has 3 units left, not a full lease
        second = [await limiter.hit(name) for _ in range(4)]
        clock.advance(seconds=-60)
        seen[name] = (first, [(d.allowed, d.tightest.remaining) for d in second])
        # The lease of 2 that did not fit the hour was rolled back in the minute too.
        assert counted(engine, name) == {60: 3, 3600: 103}
    assert seen["link"] == seen["thread"]
    assert seen["link"][0] == [True] * 100 + [False]
    assert [allowed for allowed, _ in seen["link"][1]] == [True, True, True, False]
    assert link_connections(engine) == 1


async def test_a_lost_connection_falls_back_to_the_thread_and_is_made_again(
    engine: Engine, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lease_link, "RECONNECT_SECONDS", 0.0)
    limiter = limiter_on(engine, clock)
    assert (await limiter.hit("k")).allowed  # the link connected and leased
    with engine.connect() as conn:  # PostgreSQL ends it, as in a restart
        # The timeout: until the backend has ended, not only been signalled (counted otherwise)
        ended = (
            f"SELECT pg_terminate_backend(pid, {END_WAIT_MS}) FROM pg_stat_activity "
            f"WHERE {THIS_DATABASE}"
        )
        conn.execute(text(ended), {"name": lease_link.APPLICATION})
        conn.commit()
    assert link_connections(engine) == 0
    # The lease's second unit; a lease through the thread after the link failed; its second
    # unit; a lease on the link, made again.
    for _ in range(4):
        assert (await limiter.hit("k")).allowed
    assert counted(engine, "k") == {60: 6, 3600: 6}  # 2 + 2 (the thread) + 2 (link again)
    assert link_connections(engine) == 1


async def test_from_another_event_loop_leases_go_through_a_thread(
    engine: Engine, clock: ManualClock
) -> None:
    limiter = limiter_on(engine, clock)
    assert (await limiter.hit("a")).allowed  # the link belongs to this loop now
    results: list[bool] = []

    def elsewhere() -> None:
        results.append(asyncio.run(limiter.hit("b")).allowed)

    worker = threading.Thread(target=elsewhere)
    worker.start()
    worker.join(timeout=30)
    assert results == [True]
    assert counted(engine, "b") == {60: 2, 3600: 2}
    assert link_connections(engine) == 1


async def test_the_link_closes_with_its_engine(engine: Engine, clock: ManualClock) -> None:
    limiter = limiter_on(engine, clock)
    await limiter.hit("k")
    assert link_connections(engine) == 1
    engine.dispose()
    assert link_connections(engine) == 0


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first word of each statement the lease link's connections send."""
    words: list[str] = []
    execute = psycopg.AsyncConnection.execute

    async def counting(self: psycopg.AsyncConnection[Any], query: Any, *args: Any) -> Any:
        words.append(str(query).split()[0])
        return await execute(self, query, *args)

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", counting)
    return words


async def test_a_lease_on_the_link_is_one_statement_and_a_partial_one_is_given_back(
    engine: Engine, clock: ManualClock, monkeypatch: pytest.MonkeyPatch, sent: list[str]
) -> None:
    transaction = psycopg.AsyncConnection.transaction

    def beginning(self: psycopg.AsyncConnection[Any], *args: Any, **kwargs: Any) -> Any:
        sent.append("BEGIN")
        return transaction(self, *args, **kwargs)

    monkeypatch.setattr(psycopg.AsyncConnection, "transaction", beginning)
    limiter = limiter_on(engine, clock)
    for _ in range(100):  # 50 leases of 2: the minute's limit
        assert (await limiter.hit("k")).allowed
    assert sent == ["INSERT"] * 50  # no BEGIN or COMMIT around them
    clock.advance(seconds=60)
    for _ in range(2):  # a new minute: a lease of 2, the hour's 101st and 102nd units
        assert (await limiter.hit("k")).allowed
    sent.clear()
    # The hour has 1 unit left: the minute takes a lease of 2 the hour does not; it is given
    # back, and one unit is leased instead.
    assert (await limiter.hit("k")).allowed
    assert sent == ["INSERT", "UPDATE", "INSERT"]
    assert counted(engine, "k") == {60: 3, 3600: 103}


async def leased_ahead(limiter: DatabaseRateLimiter, bucket: str) -> int:
    """The units the limiter holds for ``bucket`` once a lease taken in the background landed
    (or after a second without one)."""
    for _ in range(100):
        if limiter.unspent(bucket):
            break
        await asyncio.sleep(0.01)
    return limiter.unspent(bucket)


async def test_a_spent_lease_is_renewed_before_the_next_request(
    engine: Engine, clock: ManualClock
) -> None:
    limiter = limiter_on(engine, clock)
    assert (await limiter.hit("k")).allowed  # a lease of 2, one unit spent
    last = limiter.hit_at_once("k")  # its last unit: the next lease is asked for
    assert last is not None and last.allowed
    assert await leased_ahead(limiter, "k") == 2
    assert counted(engine, "k") == {60: 4, 3600: 4}
    assert limiter.hit_at_once("k") is not None  # no wait for the bucket's next request


async def test_a_lease_ahead_tops_up_the_leases_running_low_in_the_same_statement(
    engine: Engine, clock: ManualClock, sent: list[str]
) -> None:
    windows = (Window(60, 1000), Window(3600, 100_000))  # leases of 20; low at 5 left
    limiter = DatabaseRateLimiter(engine, clock, windows, link=link_for(engine, windows))
    for bucket in ("a", "b", "c"):
        assert (await limiter.hit(bucket)).allowed  # 19 left each
    for _ in range(14):
        assert limiter.hit_at_once("b") is not None  # 5 left: running low
    for _ in range(10):
        assert limiter.hit_at_once("c") is not None  # 9 left: not yet
    sent.clear()
    for _ in range(19):
        assert limiter.hit_at_once("a") is not None  # the last unit: a lease ahead
    assert await leased_ahead(limiter, "a") == 20
    assert sent == ["INSERT"]  # "a" and "b" in one statement
    # "b" holds one full lease again, never more: 5 of the old and 15 new units.
    assert (limiter.unspent("b"), limiter.unspent("c")) == (20, 9)
    assert counted(engine, "b") == {60: 35, 3600: 35}
    assert counted(engine, "c") == {60: 20, 3600: 20}
    for _ in range(20):
        assert limiter.hit_at_once("b") is not None  # the top-up asks for the next lease too
    assert await leased_ahead(limiter, "b") == 20


async def test_a_request_while_leasing_ahead_waits_for_that_lease(
    engine: Engine, clock: ManualClock
) -> None:
    limiter = limiter_on(engine, clock)
    assert (await limiter.hit("k")).allowed
    assert limiter.hit_at_once("k") is not None  # emptied: a lease is on its way
    assert (await limiter.hit("k")).allowed  # before it landed: it takes that lease, or waits
    assert counted(engine, "k") == {60: 4, 3600: 4}  # two leases, never three
    assert limiter.unspent("k") == 1


async def test_no_lease_ahead_where_a_full_one_no_longer_fits(
    engine: Engine, clock: ManualClock, sent: list[str]
) -> None:
    limiter = limiter_on(engine, clock)
    for _ in range(100):  # the minute's limit, 2 by 2
        assert (await limiter.hit("k")).allowed
        await asyncio.sleep(0)  # a lease asked for in the background may run
    assert await leased_ahead(limiter, "k") == 0
    assert sent == ["INSERT"] * 50  # the last lease asked for none: the minute is full
    assert not (await limiter.hit("k")).allowed


async def test_a_lease_ahead_never_opens_a_connection(engine: Engine, clock: ManualClock) -> None:
    limiter = limiter_on(engine, clock)
    assert (await limiter.hit("k")).allowed and limiter.link is not None
    limiter.link.close()  # as when the engine is disposed of while a lease is on its way
    assert limiter.hit_at_once("k") is not None  # the last unit: a lease ahead is asked for
    assert await leased_ahead(limiter, "k") == 0
    assert link_connections(engine) == 0


async def test_leases_of_the_last_minute_are_renewed_together_as_the_next_begins(
    engine: Engine, clock: ManualClock, sent: list[str]
) -> None:
    limiter = limiter_on(engine, clock)
    for bucket in ("a", "b"):
        assert (await limiter.hit(bucket)).allowed  # a lease of 2, one unit spent
    clock.advance(seconds=60)
    sent.clear()
    await limiter.renew_at_window_start()
    assert sent == ["INSERT"]  # both buckets in one statement
    assert (limiter.unspent("a"), limiter.unspent("b")) == (2, 2)
    assert counted(engine, "a") == counted(engine, "b") == {60: 2, 3600: 4}
    assert limiter.hit_at_once("a") is not None  # no wait for the minute's first request
    clock.advance(seconds=60)
    sent.clear()
    await limiter.renew_at_window_start()  # "b" spent nothing of its last lease: left alone
    assert sent == ["INSERT"]
    assert (limiter.unspent("a"), limiter.unspent("b")) == (2, 0)
    assert counted(engine, "a") == {60: 2, 3600: 6}
    assert counted(engine, "b") == {60: 2, 3600: 4}


async def test_a_bucket_near_its_limit_is_left_to_its_requests_at_the_window_start(
    engine: Engine, clock: ManualClock, sent: list[str]
) -> None:
    limiter = limiter_on(engine, clock)
    for _ in range(100):  # the minute's limit
        assert (await limiter.hit("k")).allowed
    clock.advance(seconds=60)
    assert (await limiter.hit("k")).allowed  # the hour's 101st and 102nd units: 1 left
    clock.advance(seconds=60)
    sent.clear()
    await limiter.renew_at_window_start()
    assert sent == ["INSERT", "UPDATE"]  # the hour could not take 2: the minute gave them back
    assert limiter.unspent("k") == 0
    assert counted(engine, "k") == {60: 0, 3600: 102}
    assert (await limiter.hit("k")).allowed  # one unit, the hour's last
    assert not (await limiter.hit("k")).allowed
    assert counted(engine, "k") == {60: 1, 3600: 103}


async def test_a_request_at_the_window_start_takes_one_lease_with_the_renewal(
    engine: Engine, clock: ManualClock
) -> None:
    limiter = limiter_on(engine, clock)
    assert (await limiter.hit("k")).allowed
    clock.advance(seconds=60)
    renewal = asyncio.create_task(limiter.renew_at_window_start())
    assert (await limiter.hit("k")).allowed  # before, during or after it: one lease in all
    await renewal
    assert counted(engine, "k") == {60: 2, 3600: 4}
    assert limiter.unspent("k") == 1


async def test_a_lease_whose_statement_outlasts_its_window_is_renewed_as_it_ends(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first lease's statement (its connection opened, on a busy machine) ends after the
    second it leased in: the timer still renews it, at once, not a second later, when it would
    look for leases of that second and find none."""
    second, hour = Window(1, 100), Window(3600, 10_000)
    link = link_for(engine, (second, hour))
    assert link is not None
    limiter = DatabaseRateLimiter(engine, SystemClock(), (second, hour), link=link)
    leasing = link.lease

    async def outlasting(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(link, "lease", leasing)  # the first lease only
        now = time.time()
        await asyncio.sleep(math.floor(now) + 1.05 - now)  # into the next second
        return await leasing(*args, **kwargs)

    monkeypatch.setattr(link, "lease", outlasting)
    assert (await limiter.hit("k")).allowed
    for _ in range(300):
        if counted(engine, "k")[3600] == 4:
            break
        await asyncio.sleep(0.01)
    assert counted(engine, "k")[3600] == 4


async def test_the_event_loop_renews_leases_as_a_window_starts(engine: Engine) -> None:
    second, hour = Window(1, 100), Window(3600, 10_000)
    limiter = DatabaseRateLimiter(
        engine, SystemClock(), (second, hour), link=link_for(engine, (second, hour))
    )
    assert limiter.lease == 2
    assert (await limiter.hit("k")).allowed
    for _ in range(300):  # the next second's lease, taken by the timer, without a request
        if counted(engine, "k")[3600] == 4:
            break
        await asyncio.sleep(0.01)
    assert counted(engine, "k")[3600] == 4
