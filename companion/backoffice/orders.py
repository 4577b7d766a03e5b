"""The orders as the back office shows them: today's figures, the filtered list, one order.

Reads only; a move goes through ``commerce.order_transitions`` (the state machine's one door).
"Today" is the shop's day in Vietnam's time; moments are stored as naive UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Connection, Row, and_, func, or_, select

from companion.commerce.order_states import OrderStatus, TransitionRefused, check_transition
from companion.db.commerce_schema import order_items, order_status_history, orders

SHOP_OFFSET = timedelta(hours=7)
#: Statuses whose money the shop keeps (the day's revenue).
EARNING = (OrderStatus.PENDING, OrderStatus.PAID, OrderStatus.FULFILLED, OrderStatus.DELIVERED)
PAGE = 50


@dataclass(frozen=True, slots=True)
class Today:
    orders: int
    revenue: int
    waiting: int  # pending and paid orders not yet handed to the carrier


@dataclass(frozen=True, slots=True)
class OrderFilter:
    status: str = ""
    placed_from: date | None = None  # shop days, both ends included
    placed_to: date | None = None
    search: str = ""  # an order code, a phone number or an e-mail


def shop_day_start(day: date) -> datetime:
    """The naive UTC moment a shop day begins."""
    return datetime.combine(day, time()) - SHOP_OFFSET


def shop_today(now: datetime) -> date:
    return (now + SHOP_OFFSET).date()


def today(conn: Connection, *, store_id: int, now: datetime) -> Today:
    start = shop_day_start(shop_today(now))
    placed = and_(orders.c.store_id == store_id, orders.c.placed_at >= start)
    earning = orders.c.current_status.in_([s.value for s in EARNING])
    count, revenue = conn.execute(
        select(
            func.count(),
            func.coalesce(func.sum(orders.c.total).filter(earning), 0),
        ).where(placed)
    ).one()
    waiting = conn.execute(
        select(func.count()).where(
            orders.c.store_id == store_id,
            orders.c.current_status.in_([OrderStatus.PENDING.value, OrderStatus.PAID.value]),
        )
    ).scalar_one()
    return Today(int(count), int(revenue), int(waiting))


def list_orders(
    conn: Connection, *, store_id: int, where: OrderFilter, limit: int = PAGE
) -> list[Row[Any]]:
    """Newest first."""
    query = select(orders).where(orders.c.store_id == store_id)
    if where.status:
        query = query.where(orders.c.current_status == where.status)
    if where.placed_from:
        query = query.where(orders.c.placed_at >= shop_day_start(where.placed_from))
    if where.placed_to:
        query = query.where(
            orders.c.placed_at < shop_day_start(where.placed_to + timedelta(days=1))
        )
    term = where.search.strip()
    if term:
        phone = orders.c.address["phone"].as_string()
        query = query.where(
            or_(
                orders.c.code == term.upper(),
                func.lower(orders.c.email) == term.lower(),
                phone == term,
            )
        )
    return list(
        conn.execute(query.order_by(orders.c.placed_at.desc(), orders.c.id.desc()).limit(limit))
    )


@dataclass(frozen=True, slots=True)
class OrderPage:
    order: Row[Any]
    items: list[Row[Any]]
    history: list[Row[Any]]
    moves: list[OrderStatus]


def order_page(conn: Connection, *, store_id: int, code: str) -> OrderPage | None:
    order = conn.execute(
        select(orders).where(orders.c.store_id == store_id, orders.c.code == code)
    ).first()
    if order is None:
        return None
    items = list(
        conn.execute(
            select(order_items).where(order_items.c.order_id == order.id).order_by(order_items.c.id)
        )
    )
    history = list(
        conn.execute(
            select(order_status_history)
            .where(order_status_history.c.order_id == order.id)
            .order_by(order_status_history.c.at, order_status_history.c.id)
        )
    )
    return OrderPage(order, items, history, moves_from(order.current_status, order.payment_method))


def moves_from(status: str, payment_method: str) -> list[OrderStatus]:
    """The moves a merchant may make (a failed payment is the gateway's to report)."""
    allowed = []
    for goal in OrderStatus:
        if goal is OrderStatus.PAYMENT_FAILED:
            continue
        try:
            allowed.append(check_transition(status, goal, payment_method=payment_method))
        except TransitionRefused:
            continue
    return allowed
