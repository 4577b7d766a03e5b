"""The PostgreSQL feed (see ``companion.answer_cache.feeds``): LISTENs on a connection of its
own for the notifications of migration 0003. A module of its own: psycopg is the optional
``postgres`` extra, loaded only when the database is PostgreSQL.

Under a server (``watch``), the event loop takes notifications in as they arrive; else each
request's poll reads what has arrived. A poll's read is a system call, and at a shopper's pace
the costliest step of a kept read with the caches cold; a server's requests come through the
loop's sockets, and the loop runs every callback of the sockets it found ready (this one's
with them) before any request among them starts, so a notification that arrived before a
request is taken in before it either way. In process (``httpx.ASGITransport``) a request does
not wait for the loop, so there each poll reads.
"""

from __future__ import annotations

import asyncio
import contextlib
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
        #: The event loop taking notifications in as they arrive (``watch``) ...
        self._loop: asyncio.AbstractEventLoop | None = None
        #: ... and the socket it watches; None: each poll reads.
        self._watched: int | None = None
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

    def watch(self) -> None:
        """From now on the running event loop takes notifications in as they arrive (a server's:
        its requests come through the loop's sockets), until ``close``."""
        self._loop = asyncio.get_running_loop()
        self._watch_socket()

    def poll(self) -> None:
        if self._watched is None:  # else the loop has taken in what arrived
            self.take_in()
            self._watch_socket()

    def _watch_socket(self) -> None:
        """Watch the connection's socket (on the event loop's thread), if asked to and not yet:
        after ``watch``, and after a lost connection was made again."""
        loop, conn = self._loop, self._conn
        if loop is None or conn is None or self._watched is not None:
            return
        socket = conn.pgconn.socket
        loop.add_reader(socket, self.take_in)
        self._watched = socket

    def _unwatch(self) -> None:
        socket, self._watched = self._watched, None
        if socket is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError, ValueError, OSError):  # a closed loop
                self._loop.remove_reader(socket)

    def take_in(self) -> None:
        """Read the notifications that have arrived, without waiting."""
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
        self._unwatch()  # before its socket closes
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
        self._unwatch()
        self._loop = None
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
