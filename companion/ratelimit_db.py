"""A rate limiter whose counts live in the database, so several worker processes share them.

One transaction per request: a single upsert adds one to the bucket's counter of every window
(rows always in the same order, so two requests never wait on each other crosswise), resetting a
counter when a new window began, and returns the new counts. If any window overflowed, the
transaction is rolled back: a refused request is not counted, exactly as in
``InMemoryRateLimiter``. The upsert's row lock (PostgreSQL) or the write lock (SQLite) makes
concurrent requests take turns on a bucket, so no two workers ever see the same count and a
limit of N lets exactly N requests through.

The counting is blocking database work; it runs on a worker thread so the event loop goes on
serving other requests meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import anyio.to_thread
from sqlalchemy import Connection, Engine, case
from sqlalchemy.dialects import postgresql, sqlite

from companion.clock import Clock, epoch_seconds
from companion.db.ratelimit_schema import rate_limit_counts as counts
from companion.ratelimit import (
    InMemoryRateLimiter,
    RateDecision,
    RateLimiter,
    Window,
    decide,
    window_index,
)
from companion.settings import CompanionSettings


class DatabaseRateLimiter:
    """Counts in the ``rate_limit_counts`` table: right for several workers on one database."""

    def __init__(self, engine: Engine, clock: Clock, windows: Sequence[Window]) -> None:
        self._engine = engine
        self._clock = clock
        self._windows = tuple(windows)

    async def hit(self, bucket: str) -> RateDecision:
        return await anyio.to_thread.run_sync(self.hit_now, bucket)

    def hit_now(self, bucket: str) -> RateDecision:
        """The blocking form of ``hit``, for callers already off the event loop."""
        now_seconds = epoch_seconds(self._clock.now())
        indexes = {w.seconds: window_index(w, now_seconds) for w in self._windows}
        with self._engine.connect() as conn:
            transaction = conn.begin()
            try:
                counted = count_one(conn, bucket, indexes)
                used = [counted[w.seconds] - 1 for w in self._windows]
                decision = decide(self._windows, used, now_seconds)
                if decision.allowed:
                    transaction.commit()
                else:
                    transaction.rollback()  # a refused request is not counted
            except BaseException:
                transaction.rollback()
                raise
        return decision


def count_one(conn: Connection, bucket: str, indexes: Mapping[int, int]) -> dict[int, int]:
    """Add one request to the bucket's counter of each window (window seconds -> current
    index), in one statement; the counts including it, by window seconds."""
    if conn.dialect.name not in ("postgresql", "sqlite"):
        raise ValueError(f"shared rate limits need SQLite or PostgreSQL, not {conn.dialect.name}")
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    insert = dialect.insert(counts).values(
        [
            {"bucket": bucket, "window_seconds": seconds, "window_index": index, "count": 1}
            for seconds, index in sorted(indexes.items())  # one lock order for every request
        ]
    )
    same_window = counts.c.window_index == insert.excluded.window_index
    upsert = insert.on_conflict_do_update(
        index_elements=[counts.c.bucket, counts.c.window_seconds],
        set_={
            "count": case((same_window, counts.c.count + 1), else_=1),
            "window_index": insert.excluded.window_index,
        },
    ).returning(counts.c.window_seconds, counts.c.count)
    return {int(seconds): int(count) for seconds, count in conn.execute(upsert).all()}


def uses_shared_limits(settings: CompanionSettings, backend: str) -> bool:
    """Counts go to the database when several processes serve it: PostgreSQL, or N workers."""
    return backend != "sqlite" or settings.workers > 1


def make_limiter(
    settings: CompanionSettings, engine: Engine, clock: Clock, windows: Sequence[Window]
) -> RateLimiter:
    """The limiter for this app: in-process for one SQLite worker (fastest), else shared."""
    if uses_shared_limits(settings, engine.dialect.name):
        return DatabaseRateLimiter(engine, clock, windows)
    return InMemoryRateLimiter(clock, windows)
