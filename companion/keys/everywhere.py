"""Ending a key for every worker of the database before the command that ends it returns.

SQLite: the transaction's commit is enough. Each worker reads the file's change counter before
each request (``companion.answer_cache.feeds``), and when it moved, whether a key was revoked;
the first request after the commit is checked against the revoked row.

PostgreSQL: in the transaction that ends the key, the command lists the workers' listeners
(``keys.listener``) and sends them a token; after the commit it waits until each has answered
that it forgot every key it kept. A listener that is not listed connected after the listing, and
forgets every key as it connects; one that closes before answering is counted apart (its worker
forgets every key when it sees its connection closed). A worker that does not answer within
``wait`` seconds is reported: the key is ended in the database, that worker may still accept it.
"""

from __future__ import annotations

import secrets
import select
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import Connection, Engine, func, text
from sqlalchemy import select as sql_select

from companion.keys.listener import APPLICATION_NAME, CHANNEL, DONE_CHANNEL

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")
#: Seconds between two looks at which listeners are still connected, while waiting.
RECHECK_SECONDS = 0.2


@dataclass(frozen=True, slots=True)
class Confirmation:
    """What the workers said (PostgreSQL; on SQLite every count is 0 and nothing is missing)."""

    listening: int  # listeners connected when the key was ended
    confirmed: int
    closed: int  # listeners that closed before answering
    missing: tuple[int, ...] = ()  # the server processes of listeners that did not answer


def end_everywhere(
    engine: Engine, end: Callable[[Connection], T], *, wait: float
) -> tuple[T, Confirmation]:
    """Run ``end`` (it revokes a key) in a transaction, then wait up to ``wait`` seconds until
    every worker forgot the keys it kept. A false ``end`` result (nothing ended) waits for no
    one."""
    if engine.url.get_backend_name() == "sqlite":
        with engine.begin() as conn:
            return end(conn), Confirmation(0, 0, 0)
    import psycopg  # the optional ``postgres`` extra: a PostgreSQL database has it

    conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    token = secrets.token_hex(16)
    answers: set[int] = set()
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=5) as done:
        done.add_notify_handler(lambda note: _answered(answers, token, note))
        done.execute(f"LISTEN {DONE_CHANNEL}")
        with engine.begin() as conn:
            listening = _listeners(conn)
            ended = end(conn)
            if ended:
                conn.execute(sql_select(func.pg_notify(CHANNEL, token)))
        if not ended:
            return ended, Confirmation(0, 0, 0)
        return ended, _await(done, token, answers, listening, wait)


def _listeners(conn: Connection) -> frozenset[int]:
    query = text(
        "SELECT pid FROM pg_stat_activity"
        " WHERE datname = current_database() AND application_name = :name"
    )
    return frozenset(conn.execute(query, {"name": APPLICATION_NAME}).scalars())


def _answered(answers: set[int], token: str, note: psycopg.Notify) -> None:
    if note.channel == DONE_CHANNEL and note.payload == token:
        answers.add(note.pid)


def _await(
    done: psycopg.Connection[tuple[object, ...]],
    token: str,
    answers: set[int],
    listening: frozenset[int],
    wait: float,
) -> Confirmation:
    deadline = time.monotonic() + wait
    closed: set[int] = set()
    while True:
        pending = listening - answers - closed
        left = deadline - time.monotonic()
        if not pending or left <= 0:
            break
        select.select([done.fileno()], [], [], min(left, RECHECK_SECONDS))
        pgconn = done.pgconn
        pgconn.consume_input()
        while (note := pgconn.notifies()) is not None:
            if note.relname.decode() == DONE_CHANNEL and note.extra.decode() == token:
                answers.add(note.be_pid)
        pending = listening - answers - closed
        if pending:  # a listener gone without answering will never answer
            alive = done.execute(
                "SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s)", (list(pending),)
            ).fetchall()
            closed |= pending - {int(str(row[0])) for row in alive}
    confirmed = len(listening & answers)
    missing = tuple(sorted(listening - answers - closed))
    return Confirmation(len(listening), confirmed, len(closed - answers), missing)
