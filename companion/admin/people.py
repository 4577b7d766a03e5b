"""The store's customers (read only: their passwords are theirs), newest first."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, or_, select

from companion.admin.errors import NotFound
from companion.admin.paging import Page, newest_first
from companion.db.commerce_schema import customers, orders

#: What the merchant sees of a customer (never the password's hash).
SHOWN = (
    customers.c.id,
    customers.c.email,
    customers.c.full_name,
    customers.c.phone,
    customers.c.points_balance,
    customers.c.created_at,
)


def list_customers(
    conn: Connection, *, store_id: int, search: str | None, cursor: str | None, limit: int
) -> Page:
    query = select(*SHOWN).where(customers.c.store_id == store_id)
    if search:
        needle = f"%{search.strip().lower()}%"
        query = query.where(
            or_(
                customers.c.email.like(needle),
                func.lower(customers.c.full_name).like(needle),
                func.coalesce(customers.c.phone, "").like(needle),
            )
        )
    return newest_first(
        conn,
        query,
        time_col=customers.c.created_at,
        id_col=customers.c.id,
        cursor=cursor,
        limit=limit,
    )


def customer_detail(conn: Connection, *, store_id: int, customer_id: int) -> dict[str, Any]:
    row = conn.execute(
        select(*SHOWN).where(customers.c.store_id == store_id, customers.c.id == customer_id)
    ).first()
    if row is None:
        raise NotFound(f"customer {customer_id}")
    counted = conn.execute(
        select(func.count(), func.coalesce(func.sum(orders.c.total), 0)).where(
            orders.c.store_id == store_id, orders.c.customer_id == customer_id
        )
    ).one()
    return {**row._mapping, "orders_count": int(counted[0]), "orders_total": int(counted[1])}
