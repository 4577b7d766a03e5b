"""The merchant's orders: a filtered list, an order in full, its moves and the merchant's note.

Moves go through the order state machine (``commerce.order_transitions``) with the merchant's
reason, so the side effects (stock back, points) and the status history are the same as a
gateway's move; the order's webhooks and e-mails follow from there (``commerce.order_events``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, String, cast, func, or_, select, update

from companion.admin.errors import Invalid, NotFound, Refused
from companion.admin.paging import Page, newest_first
from companion.commerce.order_states import OrderStatus, TransitionRefused
from companion.commerce.order_transitions import transition_order
from companion.db.commerce_schema import order_items, order_status_history, orders, payments

#: Longest merchant's note kept, in characters.
MAX_NOTE = 2000


@dataclass(frozen=True, slots=True)
class OrderFilter:
    status: str | None = None
    placed_from: datetime | None = None  # inclusive
    placed_to: datetime | None = None  # exclusive
    search: str | None = None  # the order's code, the phone or the e-mail (part of it)


def list_orders(
    conn: Connection, *, store_id: int, where: OrderFilter, cursor: str | None, limit: int
) -> Page:
    query = select(orders).where(orders.c.store_id == store_id)
    if where.status is not None:
        if where.status not in set(OrderStatus):
            raise Invalid("status", f"one of {', '.join(OrderStatus)}")
        query = query.where(orders.c.current_status == where.status)
    if where.placed_from is not None:
        query = query.where(orders.c.placed_at >= where.placed_from)
    if where.placed_to is not None:
        query = query.where(orders.c.placed_at < where.placed_to)
    if where.search:
        needle = f"%{where.search.strip().lower()}%"
        # The phone lives in the address (JSON): matched in its text form.
        query = query.where(
            or_(
                func.lower(orders.c.code).like(needle),
                func.lower(func.coalesce(orders.c.email, "")).like(needle),
                func.lower(cast(orders.c.address, String)).like(needle),
            )
        )
    return newest_first(
        conn,
        query,
        time_col=orders.c.placed_at,
        id_col=orders.c.id,
        cursor=cursor,
        limit=limit,
    )


@dataclass(frozen=True, slots=True)
class OrderDetail:
    order: dict[str, Any]
    items: list[dict[str, Any]]
    payments: list[dict[str, Any]]
    history: list[dict[str, Any]]


def order_detail(conn: Connection, *, store_id: int, order_id: int) -> OrderDetail:
    row = conn.execute(
        select(orders).where(orders.c.store_id == store_id, orders.c.id == order_id)
    ).first()
    if row is None:
        raise NotFound(f"order {order_id}")
    items = conn.execute(
        select(order_items).where(order_items.c.order_id == order_id).order_by(order_items.c.id)
    )
    paid = conn.execute(
        select(payments).where(payments.c.order_id == order_id).order_by(payments.c.id)
    )
    history = conn.execute(
        select(order_status_history)
        .where(order_status_history.c.order_id == order_id)
        .order_by(order_status_history.c.at, order_status_history.c.id)
    )
    return OrderDetail(
        dict(row._mapping),
        [dict(r._mapping) for r in items],
        [dict(r._mapping) for r in paid],
        [dict(r._mapping) for r in history],
    )


def move_order(
    conn: Connection, *, store_id: int, order_id: int, target: str, reason: str, now: datetime
) -> OrderDetail:
    """Move the order to ``target`` (``Refused`` when the state machine does not allow it)."""
    if not reason.strip():
        raise Invalid("reason", "say why the order moves")
    exists = conn.execute(
        select(orders.c.id).where(orders.c.store_id == store_id, orders.c.id == order_id)
    ).first()
    if exists is None:
        raise NotFound(f"order {order_id}")
    try:
        transition_order(
            conn, store_id=store_id, order_id=order_id, target=target, reason=reason, now=now
        )
    except TransitionRefused as refused:
        raise Refused(str(refused)) from None
    return order_detail(conn, store_id=store_id, order_id=order_id)


def set_merchant_note(
    conn: Connection, *, store_id: int, order_id: int, note: str | None, now: datetime
) -> OrderDetail:
    if note is not None and len(note) > MAX_NOTE:
        raise Invalid("note", f"at most {MAX_NOTE} characters")
    changed = conn.execute(
        update(orders)
        .where(orders.c.store_id == store_id, orders.c.id == order_id)
        .values(merchant_note=note or None, updated_at=now)
    )
    if changed.rowcount != 1:
        raise NotFound(f"order {order_id}")
    return order_detail(conn, store_id=store_id, order_id=order_id)
