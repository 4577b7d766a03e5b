"""How a worker learns that another process changed the catalogue (or revoked a key).

A feed is polled at the start of a request, on the event loop, and costs no round trip:
- SQLite (``SqliteFeed``): ``PRAGMA data_version`` on a connection of its own moves when any
  other connection, in any process, has committed to the file (any table: coarse, but
  strict: a write committed before the request started is always seen). When it moved, the
  feed also reads a summary of the keys' rows and moves ``revocations`` if it changed: a key
  revoked anywhere is refused from the first request after its commit.
- PostgreSQL (``postgres_feed.PostgresFeed``): the triggers of migration 0003 notify channel
  ``storefront_changes`` when a transaction that wrote to a catalogue table or to ``api_keys``
  commits (the table's name; ``stock:<product id>`` or ``in-stock:<product id>`` for a change
  of a variant's stock alone, the second when it ran out or came back);
  the feed LISTENs on a connection of its own; under a server the event loop takes in each
  notification as it arrives, else the poll reads what has arrived, without waiting. A write by
  another process is seen once PostgreSQL has delivered its notification, within a
  millisecond of the commit on a loopback or LAN server. While the feed's connection is down,
  nothing is served from the cache (``version`` is None), every cached answer and key is
  dropped, and the connection is made again in the background.
Writes made by this process mark themselves (``changes``), before they answer.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Protocol

from sqlalchemy import Engine, event
from starlette.types import Scope

from companion.answer_cache.changes import catalogue
from companion.keys.lifecycle import revocations

#: The keys' rows summed up: a revocation, a deletion or a revoked key made active again moves
#: it (the companion only revokes; the rest is done by hand).
KEYS_SUMMARY = "SELECT count(*), count(revoked_at), total(id), max(created_at) FROM api_keys"


class Feed(Protocol):
    def poll(self) -> None:
        """Take in what other processes changed since the last poll."""

    def watch(self) -> None:
        """Called on a server's event loop as the app starts: its requests come through the
        loop's sockets, so the feed may take changes in as they arrive rather than in ``poll``."""

    def version(self) -> int | None:
        """The catalogue's version now; None while changes by other processes may be missed."""

    @property
    def delivers_revocations(self) -> bool:
        """Whether every key revocation committed by another process is taken in by ``poll``
        (on PostgreSQL, ``companion.keys.listener`` does that, not the feed)."""

    def close(self) -> None: ...


class SqliteFeed:
    """Its connection is opened when first polled and closed with the engine (the last
    connection to close checkpoints the WAL into the file, which a copy of it needs)."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._conn: sqlite3.Connection | None = None
        self._seen: int | None = None
        self._keys: object = None  # the keys' summary when last read

    def poll(self) -> None:
        if self._conn is None:
            self._conn = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        now = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        if now != self._seen:
            self._seen = now
            catalogue.bump()
            keys = self._keys_summary(self._conn)
            if keys != self._keys or keys is None:
                self._keys = keys
                revocations.bump()

    @staticmethod
    def _keys_summary(conn: sqlite3.Connection) -> object:
        """What moves when a key is revoked (or its row deleted or edited back); None when the
        keys cannot be read (no table yet)."""
        try:
            return conn.execute(KEYS_SUMMARY).fetchone()
        except sqlite3.Error:
            return None

    def watch(self) -> None:
        pass  # no socket to watch: each poll reads the file's version

    def version(self) -> int | None:
        return catalogue.value if self._conn is not None else None

    @property
    def delivers_revocations(self) -> bool:
        return self._conn is not None

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


#: ``scope["state"]`` key: ``time.monotonic()`` just before the request's poll of the feed.
POLLED_AT = "feed_polled_at"


def poll_once(feed: Feed, scope: Scope) -> float:
    """Poll ``feed`` for this request unless it was polled for it already (the key check polls,
    then the answer cache reads the same poll): ``time.monotonic()`` taken before that poll."""
    state = scope.setdefault("state", {})
    polled_at: float | None = state.get(POLLED_AT)
    if polled_at is None:
        polled_at = state[POLLED_AT] = time.monotonic()
        feed.poll()
    return polled_at


def feed_for(engine: Engine) -> Feed:
    """The feed of ``engine``'s database, closed when the engine is disposed of."""
    url = engine.url
    feed: Feed
    if url.get_backend_name() == "sqlite":
        feed = SqliteFeed(url.database or ":memory:")
    else:
        # psycopg is the optional ``postgres`` extra: loaded only for a PostgreSQL database
        from companion.answer_cache.postgres_feed import PostgresFeed

        feed = PostgresFeed(url.set(drivername="postgresql").render_as_string(hide_password=False))
    event.listen(engine, "engine_disposed", lambda _engine: feed.close())
    return feed
