"""Rate-limit leases written on the event loop, over one PostgreSQL connection of a worker's own.

Through the pool, a lease would wake a worker thread, check out and ping a pooled connection and
pass the statement through the engine, while the requests of its bucket wait. Here the same
upsert is sent from the event loop on a connection kept for leases (one more connection per
worker, docs/deployment.md), one lease at a time, as a statement of its own: one round trip,
no BEGIN or COMMIT. A statement is all or nothing by
itself; a lease that only some windows took (near the limit) is given back at once by a second
statement (``give_back``): between the two, another worker may see those units counted and
refuse a request early, never let one too many through. ``lease_each`` leases for several
buckets in one statement, the same way.

The connection is made at the first lease, on the event loop that asks for it. ``lease``
answers None, and the caller takes the blocking path through the pool, when the link cannot
serve: asked from another event loop, while no connection could be made (another try after
``RECONNECT_SECONDS``), or when the connection failed (it is dropped; a lease already counted
before a failure is then counted twice, and units not given back stay counted until their window
ends: either can only refuse a request early, never let one too many through).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast

import psycopg

#: Seconds between two attempts to make the connection again.
RECONNECT_SECONDS = 2.0
#: How the connection names itself to PostgreSQL (``pg_stat_activity.application_name``).
APPLICATION = "storefront rate-limit leases"

Rows = list[tuple[int, int]]
T = TypeVar("T")


class LeaseLink:
    def __init__(self, conninfo: str, statement: str, give_back: str, lease_each: str) -> None:
        """``statement``: the lease's upsert, returning (window seconds, count) for each window
        that took the units; ``give_back``: takes them back from the windows ``%(taken)s``
        (an array of window seconds); ``lease_each``: the upsert for each bucket of
        ``%(buckets)s``, returning (bucket, window seconds, count). In psycopg's placeholders
        (``%(name)s``); see ``ratelimit.statements``."""
        self._conninfo = conninfo
        self._statement = statement
        self._give_back = give_back
        self._lease_each = lease_each
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._next_attempt = 0.0

    async def lease(
        self, params: Mapping[str, object], fits: Callable[[Rows], bool], *, connect: bool = True
    ) -> Rows | None:
        """The upsert's rows; unless ``fits(rows)``, the units are given back. None: use the
        blocking path instead. ``connect=False``: None too when no connection is open (a lease
        taken in the background never opens one, which could outlive the engine's)."""
        return await self._send(lambda conn: self._run(conn, params, fits), connect=connect)

    async def lease_each(
        self, params: Mapping[str, object], fits: Callable[[Rows], bool]
    ) -> dict[str, Rows] | None:
        """``lease`` for each bucket of ``params["buckets"]`` (each its units of
        ``params["units"]``) in one statement, on an open connection only (it is taken in the
        background): each bucket's rows (none for a bucket no window took); the units of a
        bucket whose rows do not ``fits`` are given back. None: nothing was leased."""
        return await self._send(lambda conn: self._run_each(conn, params, fits), connect=False)

    async def _send(
        self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]], *, connect: bool
    ) -> T | None:
        """``work`` on the connection, one at a time; None when the link cannot serve."""
        loop = asyncio.get_running_loop()
        if self._loop is not None and loop is not self._loop:
            return None
        if self._lock is None:
            self._loop, self._lock = loop, asyncio.Lock()
        async with self._lock:  # one statement at a time on the connection
            conn = await self._connection() if connect else self._conn
            if conn is None:
                return None
            try:
                return await work(conn)
            except psycopg.Error:
                self.close()
                self._next_attempt = time.monotonic() + RECONNECT_SECONDS
                return None

    async def _run(
        self,
        conn: psycopg.AsyncConnection[Any],
        params: Mapping[str, object],
        fits: Callable[[Rows], bool],
    ) -> Rows:
        cursor = await conn.execute(self._statement, params)
        rows = [(int(a), int(b)) for a, b in await cursor.fetchall()]
        if rows and not fits(rows):
            await conn.execute(self._give_back, {**params, "taken": [a for a, _ in rows]})
        return rows

    async def _run_each(
        self,
        conn: psycopg.AsyncConnection[Any],
        params: Mapping[str, object],
        fits: Callable[[Rows], bool],
    ) -> dict[str, Rows]:
        cursor = await conn.execute(self._lease_each, params)
        found: dict[str, Rows] = {}
        for bucket, seconds, count in await cursor.fetchall():
            found.setdefault(str(bucket), []).append((int(seconds), int(count)))
        one = {name: value for name, value in params.items() if name not in ("buckets", "units")}
        buckets, amounts = cast(list[str], params["buckets"]), cast(list[int], params["units"])
        units = dict(zip(buckets, amounts, strict=True))
        for bucket, rows in found.items():
            if not fits(rows):  # rare: near a limit
                taken = [seconds for seconds, _ in rows]
                given = {**one, "bucket": bucket, "units": units[bucket], "taken": taken}
                await conn.execute(self._give_back, given)
        return found

    async def _connection(self) -> psycopg.AsyncConnection[Any] | None:
        if self._conn is not None:
            return self._conn
        if time.monotonic() < self._next_attempt:
            return None
        try:
            self._conn = await psycopg.AsyncConnection.connect(
                self._conninfo, autocommit=True, connect_timeout=5, application_name=APPLICATION
            )
        except psycopg.Error:
            self._next_attempt = time.monotonic() + RECONNECT_SECONDS
        return self._conn

    def close(self) -> None:
        """Close the connection (it is made again at the next lease); safe from any thread:
        closing only shuts its socket."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.pgconn.finish()
