"""Reading orders back: one order, one of a customer's orders, an order's items."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, bindparam, select

from companion.db.commerce_schema import order_items, orders

# Built once (each order placed reads both back).
_ORDER = select(orders).where(
    orders.c.store_id == bindparam("store_id"), orders.c.id == bindparam("order_id")
)
_ITEMS = (
    select(order_items)
    .where(order_items.c.order_id == bindparam("order_id"))
    .order_by(order_items.c.id)
)


def order_row(conn: Connection, *, store_id: int, order_id: int) -> Row[Any] | None:
    return conn.execute(_ORDER, {"store_id": store_id, "order_id": order_id}).first()


def customer_order_row(
    conn: Connection, *, store_id: int, customer_id: int, order_id: int
) -> Row[Any] | None:
    return conn.execute(
        select(orders).where(
            orders.c.store_id == store_id,
            orders.c.customer_id == customer_id,
            orders.c.id == order_id,
        )
    ).first()


def order_item_rows(conn: Connection, *, order_id: int) -> list[Row[Any]]:
    return list(conn.execute(_ITEMS, {"order_id": order_id}))
