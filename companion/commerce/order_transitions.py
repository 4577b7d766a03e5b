"""Moving an order to a new status, with the side effects the move implies.

The status check and the write are one compare-and-set (``WHERE current_status = :from``), so a
gateway notification and a merchant action racing on the same order cannot both apply.

Side effects:
- to ``cancelled`` (and ``refunded`` before shipping): the reserved stock goes back on sale;
- to ``cancelled`` or ``refunded``: redeemed loyalty points are returned;
- to ``delivered``: the points the order earned are credited (once);
- ``delivered -> refunded``: credited points are taken back (the balance never goes below 0);
- every move: the ``order.status_changed`` webhook (and ``order.paid`` to paid) is queued.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, case, insert, select, update

from companion.answer_cache.changes import stock_changed
from companion.commerce.order_events import order_moved
from companion.commerce.order_states import (
    OrderStatus,
    TransitionRefused,
    check_transition,
    releases_stock,
)
from companion.db.commerce_schema import (
    customers,
    order_items,
    order_status_history,
    orders,
    point_entries,
)
from companion.db.schema import variants


def transition_order(
    conn: Connection,
    *,
    store_id: int,
    order_id: int,
    target: str,
    reason: str,
    now: datetime,
) -> OrderStatus:
    """Apply ``current -> target`` or raise ``TransitionRefused`` (also for an unknown order)."""
    row = conn.execute(
        select(
            orders.c.current_status,
            orders.c.payment_method,
            orders.c.customer_id,
            orders.c.points_redeemed,
            orders.c.points_earned,
            orders.c.points_credited,
        ).where(orders.c.store_id == store_id, orders.c.id == order_id)
    ).first()
    if row is None:
        raise TransitionRefused(f"order {order_id} does not exist")
    source = OrderStatus(row.current_status)
    goal = check_transition(source, target, payment_method=row.payment_method)
    moved = conn.execute(
        update(orders)
        .where(orders.c.id == order_id, orders.c.current_status == source.value)
        .values(current_status=goal.value, updated_at=now)
    )
    if moved.rowcount != 1:
        raise TransitionRefused(f"order {order_id} changed status meanwhile; read it again")
    conn.execute(
        insert(order_status_history).values(
            store_id=store_id,
            order_id=order_id,
            from_status=source.value,
            to_status=goal.value,
            reason=reason[:200],
            at=now,
        )
    )
    order_moved(
        conn,
        store_id=store_id,
        order_id=order_id,
        source=source.value,
        reason=reason[:200],
        paid=goal is OrderStatus.PAID,
        now=now,
    )
    if releases_stock(source, goal):
        _release_stock(conn, order_id=order_id)
    customer_id = row.customer_id
    if customer_id is None:
        return goal
    if goal in (OrderStatus.CANCELLED, OrderStatus.REFUNDED) and row.points_redeemed:
        _move_points(conn, store_id, customer_id, order_id, row.points_redeemed, "returned", now)
    if goal is OrderStatus.DELIVERED and row.points_earned and not row.points_credited:
        _move_points(conn, store_id, customer_id, order_id, row.points_earned, "earned", now)
        conn.execute(update(orders).where(orders.c.id == order_id).values(points_credited=True))
    if goal is OrderStatus.REFUNDED and row.points_credited:
        _move_points(conn, store_id, customer_id, order_id, -row.points_earned, "reversed", now)
    return goal


def _release_stock(conn: Connection, *, order_id: int) -> None:
    for variant_id, quantity in conn.execute(
        select(order_items.c.variant_id, order_items.c.quantity).where(
            order_items.c.order_id == order_id, order_items.c.variant_id.is_not(None)
        )
    ).all():
        given = conn.execute(
            update(variants)
            .where(variants.c.id == variant_id)
            .values(stock=variants.c.stock + quantity)  # NULL (untracked) stays NULL
            .returning(variants.c.product_id, variants.c.stock)
        ).all()
        # What kept catalogue answers this changed (companion.answer_cache).
        stock_changed(conn, [(row.product_id, row.stock, quantity) for row in given])


def _move_points(
    conn: Connection,
    store_id: int,
    customer_id: int,
    order_id: int,
    delta: int,
    reason: str,
    now: datetime,
) -> None:
    balance = customers.c.points_balance + delta
    conn.execute(
        update(customers)
        .where(customers.c.id == customer_id)
        .values(points_balance=case((balance < 0, 0), else_=balance))
    )
    conn.execute(
        insert(point_entries).values(
            store_id=store_id,
            customer_id=customer_id,
            order_id=order_id,
            delta=delta,
            reason=reason,
            created_at=now,
        )
    )
