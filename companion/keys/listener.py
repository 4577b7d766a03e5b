"""A worker's side of a revocation on PostgreSQL: it forgets every key it kept, then confirms.

`storefront api keys revoke|rotate` (``keys.everywhere``) sends ``CHANNEL`` a token in the
transaction that ends the key, then waits until every listener it saw has answered the token on
``DONE_CHANNEL``. A listener answers from a thread of its own, blocked on its connection (an idle
worker answers too), only after it moved ``revocations``: so when the command returns, every
worker's key cache is empty and the next request looks the key up and is refused. A request pays
nothing for this: the cache reads one number.

Kept keys are trusted only while the connection is up (``connected``): a worker whose listener
is down looks every key up (and the command, which lists live listeners, does not wait for it);
the connection is made again in the background, and every key is forgotten then.
"""

from __future__ import annotations

import os
import select
import threading
import weakref
from typing import TYPE_CHECKING

from sqlalchemy import Engine, event

from companion.keys.lifecycle import Generation, revocations

if TYPE_CHECKING:  # psycopg is the optional ``postgres`` extra: loaded when a listener starts
    import psycopg

CHANNEL = "storefront_keys"
DONE_CHANNEL = "storefront_keys_done"
#: How the command finds the listeners (``pg_stat_activity.application_name``).
APPLICATION_NAME = "storefront-keys"
#: Seconds between two attempts to make a lost connection again.
RECONNECT_SECONDS = 2.0
#: Seconds ``close`` waits for the thread (it may be answering a revocation).
CLOSE_SECONDS = 5.0


class RevocationListener:
    def __init__(
        self,
        conninfo: str,
        *,
        generation: Generation = revocations,
        reconnect_seconds: float = RECONNECT_SECONDS,
    ) -> None:
        self._conninfo = conninfo
        self._generation = generation
        self._reconnect_seconds = reconnect_seconds
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None
        self._tokens: list[str] = []
        self._wake_read, self._wake_write = os.pipe()  # wakes the thread when closed
        self._closed = threading.Event()
        self._closing = threading.Lock()  # the pipe is closed once, after its last write
        self._connect()  # at once: keys are kept from the first request
        self._thread = threading.Thread(target=self._run, name="key-revocations", daemon=True)
        self._thread.start()
        _listeners.add(self)

    @property
    def connected(self) -> bool:
        """Whether revocations by other processes reach this worker (kept keys may be used)."""
        return self._conn is not None

    def _connect(self) -> None:
        import psycopg

        try:
            conn = psycopg.connect(
                self._conninfo,
                autocommit=True,
                connect_timeout=5,
                application_name=APPLICATION_NAME,
            )
            conn.add_notify_handler(lambda note: self._tokens.append(note.payload))
            conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error:
            return
        self._generation.bump()  # revocations made while nobody listened were missed
        self._conn = conn

    def _run(self) -> None:
        import psycopg

        while not self._closed.is_set():
            conn = self._conn
            if conn is None:
                self._closed.wait(self._reconnect_seconds)
                if not self._closed.is_set():
                    self._connect()
                continue
            try:
                select.select([conn.fileno(), self._wake_read], [], [])
                if self._closed.is_set():
                    break
                pgconn = conn.pgconn
                pgconn.consume_input()
                while (note := pgconn.notifies()) is not None:
                    self._tokens.append(note.extra.decode())
                self._confirm(conn)
            except (psycopg.Error, OSError, ValueError):
                self._lost()
        self._shut()

    def _confirm(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        """Forget every kept key, then answer each token (tokens that arrive while answering
        come through the notify handler and are answered in the same round)."""
        while self._tokens:
            tokens, self._tokens = self._tokens, []
            self._generation.bump()
            for token in tokens:
                conn.execute("SELECT pg_notify(%s, %s)", (DONE_CHANNEL, token))

    def _lost(self) -> None:
        conn, self._conn = self._conn, None
        self._generation.bump()
        if conn is not None:
            conn.close()

    def close(self) -> None:
        """Stop listening; returns once the thread has closed the connection."""
        with self._closing:
            if not self._closed.is_set():
                self._closed.set()
                os.write(self._wake_write, b"x")
        if threading.current_thread() is not self._thread:
            self._thread.join(CLOSE_SECONDS)

    def _shut(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        with self._closing:
            os.close(self._wake_read)
            os.close(self._wake_write)


_listeners: weakref.WeakSet[RevocationListener] = weakref.WeakSet()


def _forked() -> None:
    """A forked child has the connection but not the thread that reads it: it trusts no kept
    key (the parent's listener is the parent's)."""
    for listener in list(_listeners):
        listener._conn = None
        listener._closed.set()


os.register_at_fork(after_in_child=_forked)


def listener_for(engine: Engine) -> RevocationListener | None:
    """The listener of a PostgreSQL ``engine``'s workers (closed with the engine); None on
    SQLite, where a worker sees a revocation through the database file before each request
    (``companion.answer_cache.feeds``)."""
    url = engine.url
    if url.get_backend_name() == "sqlite":
        return None
    conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
    listener = RevocationListener(conninfo)
    event.listen(engine, "engine_disposed", lambda _engine: listener.close())
    return listener
