"""The PostgreSQL feed (see ``companion.answer_cache.feeds``): LISTENs on a connection of its
own for the notifications of migration 0003. A module of its own: psycopg is the optional
``postgres`` extra, loaded only when the database is PostgreSQL."""

from __future__ import annotations

import threading
import time

import psycopg

from companion.answer_cache.changes import catalogue, stock
from companion.keys.lifecycle import revocations

CHANNEL = "storefront_changes"
#: Seconds between two attempts to make a lost PostgreSQL feed connection again.
RECONNECT_SECONDS = 2.0


class PostgresFeed:
    def __init__(self, conninfo: str, *, reconnect_seconds: float = RECONNECT_SECONDS) -> None:
        self._conninfo = conninfo
        self._reconnect_seconds = reconnect_seconds
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None
        self._next_attempt = 0.0
        self._connecting = threading.Lock()
        self._connect()

    def _connect(self) -> None:
        """Open the connection and LISTEN; then forget everything cached (changes made while
        nobody listened were missed)."""
        try:
            conn = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5)
            conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error:
            self._next_attempt = time.monotonic() + self._reconnect_seconds
            return
        self._conn = conn
        catalogue.bump()
        revocations.bump()

    def _reconnect_in_background(self) -> None:
        if time.monotonic() < self._next_attempt or not self._connecting.acquire(blocking=False):
            return
        self._next_attempt = time.monotonic() + self._reconnect_seconds

        def attempt() -> None:
            try:
                self._connect()
            finally:
                self._connecting.release()

        threading.Thread(target=attempt, name="answer-cache-feed", daemon=True).start()

    def poll(self) -> None:
        conn = self._conn
        if conn is None:
            self._reconnect_in_background()
            return
        pgconn = conn.pgconn
        try:
            pgconn.consume_input()  # the socket is non-blocking: reads what has arrived only
            while (note := pgconn.notifies()) is not None:
                self._apply(note.extra.decode())
        except psycopg.Error:
            self._lost()

    def _apply(self, payload: str) -> None:
        """``stock:<product id>``: that product's stock counts alone changed; ``in-stock:...``:
        and a variant of it ran out or came back; else a table's name."""
        kind, _, product = payload.partition(":")
        if kind == "stock" and product.isdigit():
            stock.mark((int(product),))
        elif kind == "in-stock" and product.isdigit():
            stock.mark((int(product),), (int(product),))
        elif payload == "api_keys":
            revocations.bump()
        else:
            catalogue.bump()

    def _lost(self) -> None:
        conn, self._conn = self._conn, None
        catalogue.bump()
        revocations.bump()
        if conn is not None:
            conn.close()
        self._reconnect_in_background()

    def version(self) -> int | None:
        return catalogue.value if self._conn is not None else None

    @property
    def delivers_revocations(self) -> bool:
        return False  # a notification may arrive after the next request: keys.listener

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
