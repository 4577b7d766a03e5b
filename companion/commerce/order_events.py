"""The order webhooks, queued in the transaction that makes the change (as content events are):
``order.created`` when an order is placed, ``order.status_changed`` on every move, and
``order.paid`` when the move is to paid."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, select

from companion.db.commerce_schema import orders
from companion.webhooks.events import ORDER_CREATED, ORDER_PAID, ORDER_STATUS_CHANGED
from companion.webhooks.queue import emit_order


def _data(conn: Connection, order_id: int) -> dict[str, object]:
    row = conn.execute(
        select(
            orders.c.id,
            orders.c.code,
            orders.c.current_status,
            orders.c.total,
            orders.c.payment_method,
        ).where(orders.c.id == order_id)
    ).one()
    return {
        "id": row.id,
        "code": row.code,
        "status": row.current_status,
        "total": int(row.total),
        "payment_method": row.payment_method,
    }


def order_created(conn: Connection, *, store_id: int, order_id: int, now: datetime) -> None:
    emit_order(
        conn, store_id=store_id, event_type=ORDER_CREATED, data=_data(conn, order_id), now=now
    )


def order_moved(
    conn: Connection,
    *,
    store_id: int,
    order_id: int,
    source: str,
    reason: str,
    paid: bool,
    now: datetime,
) -> None:
    data = _data(conn, order_id)
    moved = {**data, "from": source, "reason": reason}
    emit_order(conn, store_id=store_id, event_type=ORDER_STATUS_CHANGED, data=moved, now=now)
    if paid:
        emit_order(conn, store_id=store_id, event_type=ORDER_PAID, data=data, now=now)
