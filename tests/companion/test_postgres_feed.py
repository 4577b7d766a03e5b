"""The PostgreSQL change feed under a server (companion.answer_cache.postgres_feed): once the app
has started, the event loop takes notifications in as they arrive, and a request's poll reads
nothing; in process (no lifespan) each poll reads. PostgreSQL only (the suite's PostgreSQL
pass, STOREFRONT_TEST_POSTGRES)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest
from sqlalchemy import Engine, text

from companion.answer_cache.changes import catalogue, stock
from tests.companion.databases import postgres_engine

if TYPE_CHECKING:  # psycopg, PostgreSQL's only, is imported as a test runs
    from companion.answer_cache.postgres_feed import PostgresFeed

pytestmark = pytest.mark.anyio

#: Product ids no store has: marks of these come from this test's notifications alone.
MARKS = iter(range(2 * 10**12, 3 * 10**12))


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    with postgres_engine(tmp_path, "the feed's notifications are PostgreSQL's") as made:
        yield made


def feed_of(engine: Engine) -> PostgresFeed:
    from companion.answer_cache.postgres_feed import PostgresFeed

    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    return PostgresFeed(url)


def notify(engine: Engine, mark: int) -> float:
    """A stock change of product ``mark`` as another process's commit tells it; when it was sent."""
    sent = time.monotonic()
    with engine.begin() as conn:
        conn.execute(text(f"NOTIFY storefront_changes, 'stock:{mark}'"))
    return sent


def taken_in(mark: int, sent: float) -> bool:
    return not stock.unchanged_after(sent, frozenset({mark}), counts=True)


async def test_a_watched_feed_takes_notifications_in_as_they_arrive(engine: Engine) -> None:
    feed = feed_of(engine)
    try:
        feed.watch()
        mark = next(MARKS)
        sent = notify(engine, mark)
        with anyio.fail_after(10):
            while not taken_in(mark, sent):  # the loop runs; nobody polls
                await anyio.sleep(0.005)
    finally:
        feed.close()


async def test_an_unwatched_feed_takes_in_only_as_it_is_polled(engine: Engine) -> None:
    feed = feed_of(engine)
    try:
        mark = next(MARKS)
        sent = notify(engine, mark)
        await anyio.sleep(0.3)  # delivered by now, on a loopback server
        assert not taken_in(mark, sent)
        feed.poll()
        assert taken_in(mark, sent)
    finally:
        feed.close()


async def test_a_watched_feed_sees_its_connection_lost_and_watches_the_next(
    engine: Engine,
) -> None:
    feed = feed_of(engine)
    try:
        feed.watch()
        before = catalogue.value
        with engine.begin() as conn:  # the feed's connection: the only one LISTENing here
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND query LIKE 'LISTEN%'"
                )
            )
        with anyio.fail_after(10):
            # Seen by the loop, nobody polling: every answer dropped as it was lost, and again
            # as the connection was made again in the background.
            while catalogue.value < before + 2 or feed.version() is None:
                await anyio.sleep(0.005)
        feed.poll()  # a request's: the new connection's socket is watched from then on
        mark = next(MARKS)
        sent = notify(engine, mark)
        with anyio.fail_after(10):
            while not taken_in(mark, sent):
                await anyio.sleep(0.005)
    finally:
        feed.close()
