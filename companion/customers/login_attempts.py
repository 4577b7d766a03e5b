"""Storage of the login throttle's counts (see ``throttle`` for the policy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, case, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from companion.customers.throttle import Count, seconds_refused
from companion.db.commerce_schema import login_attempts

_DIALECT_INSERT: dict[str, Any] = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
#: Lapsed counts removed after a claim that started a count: more than a claim adds, so the
#: table holds about one window's clients however many came before.
SWEPT_AT_ONCE = 16


@dataclass(frozen=True, slots=True)
class Refusal:
    seconds: int
    whom: str


def claim_attempt(
    engine: Engine,
    *,
    store_id: int,
    counts: Sequence[Count],
    window: timedelta,
    now: datetime,
) -> Refusal | None:
    """Claim one attempt in each count, in order, committed before the password is checked;
    the first count past its limit refuses it (the counts after it are left alone)."""
    refusal, started_one = None, False
    with engine.begin() as conn:
        for count in counts:
            attempts, started = _claim(conn, store_id, count, window, now)
            started_one = started_one or attempts == 1
            seconds = seconds_refused(attempts, started, count.limit, window, now)
            if seconds:
                refusal = Refusal(seconds, count.whom)
                break
    if started_one:
        sweep_lapsed(engine, store_id=store_id, window=window, now=now)
    return refusal


def sweep_lapsed(engine: Engine, *, store_id: int, window: timedelta, now: datetime) -> int:
    """Remove up to ``SWEPT_AT_ONCE`` of the store's lapsed counts (a claim would start them
    again at 1, as if absent); how many. Without it every client that ever tried to log in
    keeps its rows. Its own transaction, after the claims; on PostgreSQL it skips the rows a
    claim holds, so it neither waits for one nor deadlocks with one."""
    table = login_attempts
    is_lapsed = (table.c.store_id == store_id, table.c.window_started_at <= now - window)
    lapsed = (
        select(table.c.subject)
        .where(*is_lapsed)
        .limit(SWEPT_AT_ONCE)
        .with_for_update(skip_locked=True)
    )
    with engine.begin() as conn:
        # Chosen first, then deleted, so the share holds whatever plan the delete gets (a
        # limited subquery of it once removed every lapsed count). Lapsed still when deleted:
        # on SQLite a claim may have restarted one meanwhile.
        subjects = list(conn.execute(lapsed).scalars())
        if not subjects:
            return 0
        return conn.execute(delete(table).where(*is_lapsed, table.c.subject.in_(subjects))).rowcount


def _claim(
    conn: Connection, store_id: int, count: Count, window: timedelta, now: datetime
) -> tuple[int, datetime]:
    """One atomic increment (an upsert returning the new count): concurrent claims of a count,
    from any worker, each see a different number. A lapsed window starts again at 1; the claim
    that fills the count restarts its window, so a refusal lasts a window from it."""
    table = login_attempts
    lapsed = table.c.window_started_at <= now - window
    statement = (
        _DIALECT_INSERT[conn.dialect.name](table)
        .values(store_id=store_id, subject=count.subject, attempts=1, window_started_at=now)
        .on_conflict_do_update(
            index_elements=[table.c.store_id, table.c.subject],
            set_={
                "attempts": case((lapsed, 1), else_=table.c.attempts + 1),
                "window_started_at": case(
                    (lapsed, now),
                    (table.c.attempts + 1 == count.limit, now),
                    else_=table.c.window_started_at,
                ),
            },
        )
        .returning(table.c.attempts, table.c.window_started_at)
    )
    attempts, started = conn.execute(statement).one()
    return int(attempts), started


def give_back(conn: Connection, *, store_id: int, counts: Sequence[Count]) -> None:
    """After a successful login: its claims returned, its client's count at the e-mail gone."""
    table = login_attempts
    for count in counts:
        row = (table.c.store_id == store_id, table.c.subject == count.subject)
        if count.cleared_by_success:
            conn.execute(delete(table).where(*row))
        else:
            conn.execute(
                update(table)
                .where(*row, table.c.attempts > 0)
                .values(attempts=table.c.attempts - 1)
            )
