"""A rate limiter whose counts live in the database, so several worker processes share them.

Workers do not write per request: each leases a few units at a time from the shared counters
and spends them from memory (``ratelimit.leases``). A lease is one statement
(``ratelimit.statements``): an upsert that adds the units to the bucket's counter of every
window, resetting a counter when a new window began, but only where the units still fit under
that window's limit. Unless every window took them,
nothing stays counted: the transaction is rolled back, or on the lease link (one statement, no
transaction) the windows that took them give them back. The upsert's row lock
(PostgreSQL) or the write lock (SQLite) makes workers take turns on a bucket, so the counters
only ever hold units that fit: all workers together let at most the limit through.

When a full lease no longer fits, a worker leases one unit per request, so near the limit every
request is counted in the database as it comes, exactly as with no leases, and a refused request
is never counted. Small limits lease one unit at a time from the start (see ``lease_size``).

On PostgreSQL a lease is written on the event loop over a connection kept for leases
(``ratelimit.lease_link``); on SQLite, or when that link cannot serve, the blocking statement
runs in a transaction on a worker thread through the pool (one per lease, not per request).
Requests of one bucket arriving while its lease is being renewed wait for that renewal. On the
lease link, a full lease whose last unit is spent is renewed at once in the background, while
a full one still fits every window: the bucket's next request then finds units waiting instead
of waiting for them (a worker still holds at most one lease of a bucket). That statement also
tops up the worker's other leases running low (a quarter left) to full ones: a worker serving
many keys renews several in one statement rather than one each. And as the shortest
window starts (a new minute), the event loop's timer leases for every bucket that spent units
in the minute before, in one statement: without it, every key in use would take its lease with
its first request of the minute, on each worker, all at the same moment.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine, Iterable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from sqlalchemy import Connection, Engine, event

from companion.clock import Clock, SystemClock, seconds_reader
from companion.ratelimit.leases import LeaseBook, lease_size
from companion.ratelimit.memory import InMemoryRateLimiter
from companion.ratelimit.statements import (
    give_back_statement,
    lease_each_statement,
    lease_statement,
)
from companion.ratelimit.windows import RateDecision, RateHeaders, RateLimiter, Window, decide
from companion.settings import CompanionSettings

if TYPE_CHECKING:  # psycopg (the optional postgres extra) is loaded only for PostgreSQL
    from companion.ratelimit.lease_link import LeaseLink, Rows

#: Seconds after a window's start when the leases of its first minute are taken together: the
#: timer is the event loop's, the windows the system clock's.
WINDOW_START_DELAY = 0.002
#: Buckets in one such statement at most (their requests wait for it).
LEASES_AT_ONCE = 500
#: A full lease with this share of its units left is running low: the next lease ahead of
#: another bucket of the worker tops it up in the same statement.
LOW_SHARE = 4


class DatabaseRateLimiter:
    """Counts in the ``rate_limit_counts`` table: right for several workers on one database."""

    def __init__(
        self,
        engine: Engine,
        clock: Clock,
        windows: Sequence[Window],
        *,
        lease: int | None = None,
        link: LeaseLink | None = None,
    ) -> None:
        if engine.dialect.name not in ("postgresql", "sqlite"):
            raise ValueError(
                f"shared rate limits need SQLite or PostgreSQL, not {engine.dialect.name}"
            )
        self._engine = engine
        self._seconds = seconds_reader(clock)  # epoch seconds now
        self._windows = tuple(windows)
        #: Units leased at once (at most the smallest limit).
        self.lease = max(1, min(lease or lease_size(self._windows), *(w.limit for w in windows)))
        low = self.lease // LOW_SHARE if link is not None else 0
        self._book = LeaseBook(self._windows, low=low)
        self._statement = lease_statement(self._windows)
        self._limits = {w.seconds: w.limit for w in self._windows}
        #: Where leases are written from the event loop (None: in a thread, through the pool).
        self.link = link
        self._renewing: dict[str, anyio.Lock] = {}
        self._leasing_ahead: set[asyncio.Task[None]] = set()
        self._shortest = min(w.seconds for w in self._windows)
        #: Where the shortest window is in the policy (and in a lease's window indexes).
        self._shortest_at = [w.seconds for w in self._windows].index(self._shortest)
        self._window_timer: asyncio.TimerHandle | None = None
        #: Leases renewed as a window starts, by the event loop's timer: on the link, with the
        #: system clock (under a test's clock, the test calls ``renew_at_window_start``).
        self._timed = link is not None and self.lease > 1 and type(clock) is SystemClock

    def hit_at_once(self, bucket: str) -> RateDecision | None:
        """A unit of this worker's lease, if it holds one; None: a new lease is needed."""
        decision = self._book.spend(bucket, self._seconds())
        if self._book.emptied:
            self._lease_ahead()
        return decision

    def passed_at_once(self, bucket: str) -> RateHeaders | None:
        # ``hit_at_once`` without a decision made: most requests pass here
        pairs = self._book.spend_headers(bucket, self._seconds())
        if self._book.emptied:
            self._lease_ahead()
        return pairs

    async def hit(self, bucket: str) -> RateDecision:
        decision = self.hit_at_once(bucket)
        if decision is not None:
            return decision
        async with self._renewal(bucket):
            now_seconds = self._seconds()
            decision = self._book.spend(bucket, now_seconds)
            if decision is None:  # nobody renewed it meanwhile
                decision = await self._renew_waiting(bucket, now_seconds)
        return decision

    @asynccontextmanager
    async def _renewal(self, bucket: str) -> AsyncIterator[None]:
        """The bucket's renewal lock: one lease at a time, the others wait for it."""
        lock = self._renewing.setdefault(bucket, anyio.Lock())
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and lock.statistics().tasks_waiting == 0:
                self._renewing.pop(bucket, None)

    def unspent(self, bucket: str) -> int:
        """Units this worker holds for ``bucket`` in the current windows."""
        return self._book.unspent(bucket, self._seconds())

    def _lease_ahead(self) -> None:
        """Lease again, in the background, for each bucket whose lease was just emptied, and
        in the same statement top up the leases running low: one statement for several
        buckets, rather than one each as each runs out."""
        buckets = self._book.take_emptied()
        low = self._book.take_running_low()
        link = self.link
        if link is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # off the event loop: the bucket's next request leases
            return
        self._in_background(loop, self._lease_each(link, buckets, low))

    def _in_background(
        self, loop: asyncio.AbstractEventLoop, work: Coroutine[Any, Any, None]
    ) -> None:
        task = loop.create_task(work)
        self._leasing_ahead.add(task)  # kept until done: the loop holds tasks weakly
        task.add_done_callback(self._leasing_ahead.discard)

    def _watch_window_start(self, indexes: tuple[int, ...]) -> None:
        """After a lease on the link in the windows ``indexes``: as the shortest of them ends,
        lease again for the buckets that spent units of it (``renew_at_window_start``). Its
        end, not the next one after now: a lease whose statement outlasted its window is
        renewed at once, rather than missed a window later."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # a lease taken in a thread: the next one on the loop watches
            return
        start = (indexes[self._shortest_at] + 1) * self._shortest
        delay = max(0.0, start - self._seconds()) + WINDOW_START_DELAY
        self._window_timer = loop.call_later(delay, self._window_started, loop, start)

    def _window_started(self, loop: asyncio.AbstractEventLoop, start: float) -> None:
        early = start - self._seconds()
        if early > 0:  # the loop's clock ran ahead of the system's
            self._window_timer = loop.call_later(early, self._window_started, loop, start)
            return
        self._window_timer = None
        self._in_background(loop, self.renew_at_window_start())

    async def renew_at_window_start(self) -> None:
        """A full lease of the windows now current for each bucket that spent units of a lease
        ending as the shortest window began and holds none now; in one statement on the link's
        open connection, as every key active in the last minute would otherwise take its
        lease with its first request of the next, each worker in turn, at the same moment.
        A bucket's requests wait for it meanwhile; a bucket near a limit is left to them."""
        link = self.link
        if link is None or self.lease == 1:
            return
        start = int(self._seconds() // self._shortest * self._shortest)
        active = sorted(self._book.spent_until(start))
        for at in range(0, len(active), LEASES_AT_ONCE):
            await self._lease_each(link, active[at : at + LEASES_AT_ONCE])

    async def _lease_each(
        self, link: LeaseLink, empty: Iterable[str], low: Iterable[str] = ()
    ) -> None:
        """A full lease for each of the buckets ``empty`` that holds no unit, and for each of
        the buckets ``low`` what makes its lease a full one again while it holds at most
        ``LeaseBook.low`` units (a worker never holds more than one full lease of a bucket),
        where it fits, in one statement over the link's open connection only. A bucket's
        requests that find no unit meanwhile wait for it (the lock ``hit`` takes), and a
        bucket one of them renewed first is left out."""
        topped = set(low)
        active = sorted({*empty, *topped})  # locks and rows in one order: no crosswise waits
        async with AsyncExitStack() as renewals:
            for bucket in active:
                await renewals.enter_async_context(self._renewal(bucket))
            now_seconds = self._seconds()
            units: dict[str, int] = {}
            for bucket in active:
                held = self._book.unspent(bucket, now_seconds)
                if held == 0 or (bucket in topped and held <= self._book.low):
                    units[bucket] = self.lease - held
            if not units:
                return
            indexes = self._book.indexes(now_seconds)
            params = self._params(indexes, list(units.values()), buckets=list(units))
            leased = await link.lease_each(params, self._rows_fit)
            for bucket, rows in (leased or {}).items():
                counts = _counts(rows)
                if self._fits(counts):
                    self._grant(bucket, indexes, units[bucket], counts, full=True)

    def _room_ahead(self, counts: dict[int, int]) -> bool:
        """Whether a lease taken with these counts may ask for the next one when spent: on the
        link, full leases, while another full one fits every window."""
        return (
            self.link is not None
            and self.lease > 1
            and all(self._limits[s] - count >= self.lease for s, count in counts.items())
        )

    async def _renew_waiting(self, bucket: str, now_seconds: float) -> RateDecision:
        """Lease more units (a full lease, else one) and spend one, or refuse the request,
        without blocking the event loop: over the lease link, else in a thread."""
        if self.link is not None:
            decision = await self._renew_on_link(self.link, bucket, now_seconds)
            if decision is not None:
                return decision
        indexes = self._book.indexes(now_seconds)
        while True:
            # The statement in a thread, its result kept here: the book is the loop's alone.
            units, counts = await anyio.to_thread.run_sync(self._lease_sizes, bucket, indexes)
            decision = self._settle(bucket, indexes, units, counts, now_seconds)
            if decision is not None:
                return decision

    def _lease_sizes(self, bucket: str, indexes: tuple[int, ...]) -> tuple[int, dict[int, int]]:
        """Lease a full lease, else one unit, through the pool (blocking): the units of the
        last lease tried and its counts (``_lease``)."""
        with self._engine.connect() as conn:
            for units in self._sizes():
                counts = self._lease(conn, bucket, indexes, units)
                if self._fits(counts):
                    break
        return units, counts

    async def _renew_on_link(
        self, link: LeaseLink, bucket: str, now_seconds: float
    ) -> RateDecision | None:
        """``_renew_waiting`` over the lease link; None: the link could not serve (nothing
        counted)."""
        indexes = self._book.indexes(now_seconds)
        while True:
            for units in self._sizes():
                rows = await link.lease(self._params(indexes, units, bucket=bucket), self._rows_fit)
                if rows is None:
                    return None
                counts = self._room(_counts(rows))
                if self._fits(counts):
                    break
            decision = self._settle(bucket, indexes, units, counts, now_seconds)
            if decision is not None:
                return decision

    def _sizes(self) -> tuple[int, ...]:
        return (self.lease, 1) if self.lease > 1 else (1,)

    def _settle(
        self,
        bucket: str,
        indexes: tuple[int, ...],
        units: int,
        counts: dict[int, int],
        now_seconds: float,
    ) -> RateDecision | None:
        """After the last lease tried (``units``, the windows' ``counts``): the refusal when it
        did not fit, else a unit of it spent; None when no unit of it could be spent."""
        if not self._fits(counts):
            return self._refusal(counts, now_seconds)
        self._grant(bucket, indexes, units, counts)
        return self._book.spend(bucket, now_seconds)

    def _grant(
        self,
        bucket: str,
        indexes: tuple[int, ...],
        units: int,
        counts: dict[int, int],
        *,
        full: bool = False,
    ) -> None:
        """Keep a lease every window took (``counts``: theirs with it); ``full``: it makes a
        full lease (a top-up does), whatever ``units``."""
        shared = [counts[w.seconds] for w in self._windows]
        ahead = (full or units == self.lease) and self._room_ahead(counts)
        self._book.grant(bucket, indexes, units, shared, ahead=ahead)
        if self._window_timer is None and self._timed:
            self._watch_window_start(indexes)

    def _params(
        self, indexes: Sequence[int], units: int | list[int], **named: object
    ) -> dict[str, object]:
        params: dict[str, object] = {"units": units, **named}
        for window, index in zip(self._windows, indexes, strict=True):
            params[f"index_{window.seconds}"] = index
        return params

    def _fits(self, counts: dict[int, int]) -> bool:
        """Whether every window took the units (``counts``: the windows that did)."""
        return len(counts) == len(self._windows) and all(
            count <= self._limits[seconds] for seconds, count in counts.items()
        )

    def _rows_fit(self, rows: Rows) -> bool:
        return self._fits(_counts(rows))

    def _room(self, counts: dict[int, int]) -> dict[int, int]:
        """Of a rolled-back lease's counts, the windows that had room."""
        return {s: c for s, c in counts.items() if c <= self._limits[s]}

    def _lease(
        self, conn: Connection, bucket: str, indexes: Sequence[int], units: int
    ) -> dict[int, int]:
        """Lease ``units`` in every window, or in none: the counts (window seconds -> count)
        of the windows that took them; every window on success (committed), fewer otherwise
        (rolled back)."""
        with conn.begin() as transaction:
            params = self._params(indexes, units, bucket=bucket)
            counts = _counts(conn.execute(self._statement, params))
            if self._fits(counts):
                return counts  # committed as the block ends
            transaction.rollback()  # not every window had room: nothing is counted
        return self._room(counts)

    def _refusal(self, room: dict[int, int], now_seconds: float) -> RateDecision:
        """The refusal of a request one unit did not fit: ``room`` holds the windows that had
        room (their count with the unit); the others are full."""
        used = [room[w.seconds] - 1 if w.seconds in room else w.limit for w in self._windows]
        return decide(self._windows, used, now_seconds, self._book.policy)


def _counts(rows: Iterable[Sequence[Any]]) -> dict[int, int]:
    """The upsert's rows as counts (window seconds -> count)."""
    return {int(row[0]): int(row[1]) for row in rows}


def uses_shared_limits(settings: CompanionSettings, backend: str) -> bool:
    """Counts go to the database when several processes serve it: PostgreSQL, or N workers."""
    return backend != "sqlite" or settings.workers > 1


def make_limiter(
    settings: CompanionSettings, engine: Engine, clock: Clock, windows: Sequence[Window]
) -> RateLimiter:
    """The limiter for this app: in-process for one SQLite worker (fastest), else shared."""
    if uses_shared_limits(settings, engine.dialect.name):
        return DatabaseRateLimiter(engine, clock, windows, link=link_for(engine, windows))
    return InMemoryRateLimiter(clock, windows)


def link_for(engine: Engine, windows: Sequence[Window]) -> LeaseLink | None:
    """The lease link of a PostgreSQL engine (None for SQLite), closed when the engine is
    disposed of."""
    if engine.dialect.name != "postgresql":
        return None
    from companion.ratelimit.lease_link import LeaseLink

    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    statements = (lease_statement, give_back_statement, lease_each_statement)
    link = LeaseLink(url, *(str(s(windows).compile(dialect=engine.dialect)) for s in statements))
    event.listen(engine, "engine_disposed", lambda _engine: link.close())
    return link
