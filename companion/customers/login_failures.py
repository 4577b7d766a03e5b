"""Storage of the login throttle's state (see ``throttle`` for the policy)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from companion.customers.throttle import FailureState, after_failure
from companion.db.commerce_schema import login_failures


def failure_state(
    conn: Connection, *, store_id: int, email: str, lock: bool = False
) -> FailureState | None:
    """The e-mail's state; ``lock`` holds its row until the transaction ends (PostgreSQL), so
    two workers counting failures at once take turns instead of both writing count + 1."""
    query = select(
        login_failures.c.failures,
        login_failures.c.window_started_at,
        login_failures.c.locked_until,
    ).where(login_failures.c.store_id == store_id, login_failures.c.email == email)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return FailureState(*row) if row else None


def record_failure(engine: Engine, *, store_id: int, email: str, now: datetime) -> FailureState:
    """Count a failure in its own transaction: the 401 that follows rolls the request back."""
    with engine.begin() as conn:
        current = failure_state(conn, store_id=store_id, email=email, lock=True)
        state = after_failure(current, now)
        values = {
            "failures": state.failures,
            "window_started_at": state.window_started_at,
            "locked_until": state.locked_until,
        }
        where = (login_failures.c.store_id == store_id, login_failures.c.email == email)
        if current is None:
            try:
                with conn.begin_nested():
                    conn.execute(
                        insert(login_failures).values(store_id=store_id, email=email, **values)
                    )
                return state
            except IntegrityError:
                pass  # a concurrent failure created the row first: update it instead
        conn.execute(update(login_failures).where(*where).values(**values))
        return state


def clear_failures(conn: Connection, *, store_id: int, email: str) -> None:
    conn.execute(
        delete(login_failures).where(
            login_failures.c.store_id == store_id, login_failures.c.email == email
        )
    )
