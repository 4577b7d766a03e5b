"""Moving real orders through the state machine: every allowed transition with its side
effects (stock, loyalty points, history), every refused one leaving the order untouched."""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy import select

from companion.commerce.order_states import TRANSITIONS, OrderStatus, TransitionRefused
from companion.commerce.order_transitions import transition_order
from companion.db.commerce_schema import customers, order_status_history, orders
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio

# A shortest path from pending to each status.
ROUTE = {
    OrderStatus.PENDING: [],
    OrderStatus.PAID: [OrderStatus.PAID],
    OrderStatus.PAYMENT_FAILED: [OrderStatus.PAYMENT_FAILED],
    OrderStatus.FULFILLED: [OrderStatus.PAID, OrderStatus.FULFILLED],
    OrderStatus.DELIVERED: [OrderStatus.PAID, OrderStatus.FULFILLED, OrderStatus.DELIVERED],
    OrderStatus.CANCELLED: [OrderStatus.CANCELLED],
    OrderStatus.REFUNDED: [OrderStatus.PAID, OrderStatus.REFUNDED],
}
ALLOWED = [(s, g) for s, goals in TRANSITIONS.items() for g in sorted(goals)]
REFUSED = [
    (s, g) for s, g in itertools.product(OrderStatus, OrderStatus) if g not in TRANSITIONS[s]
]


async def order_at(
    store: Store, status: OrderStatus, *, jwt: str | None = None, payment_method: str = "cod"
) -> int:
    token = await store.cart((store.goods.shirt_m, 2))
    order = await store.place(token, jwt=jwt, payment_method=payment_method)
    for step in ROUTE[status]:
        move(store, order["id"], step)
    order_id: int = order["id"]
    return order_id


def move(store: Store, order_id: int, target: str) -> OrderStatus:
    with store.engine.begin() as conn:
        return transition_order(
            conn,
            store_id=store.store_id,
            order_id=order_id,
            target=target,
            reason="test",
            now=store.clock.now(),
        )


def status_of(store: Store, order_id: int) -> str:
    with store.engine.connect() as conn:
        status: str = conn.execute(
            select(orders.c.current_status).where(orders.c.id == order_id)
        ).scalar_one()
    return status


@pytest.mark.parametrize(("source", "goal"), ALLOWED, ids=str)
async def test_allowed_transition_is_applied_and_recorded(
    store: Store, source: OrderStatus, goal: OrderStatus
) -> None:
    order_id = await order_at(store, source)
    assert move(store, order_id, goal) is goal
    assert status_of(store, order_id) == goal
    with store.engine.connect() as conn:
        last = conn.execute(
            select(order_status_history.c.from_status, order_status_history.c.to_status)
            .where(order_status_history.c.order_id == order_id)
            .order_by(order_status_history.c.id.desc())
        ).first()
    assert tuple(last or ()) == (source.value, goal.value)


@pytest.mark.parametrize(("source", "goal"), REFUSED, ids=str)
async def test_refused_transition_changes_nothing(
    store: Store, source: OrderStatus, goal: OrderStatus
) -> None:
    order_id = await order_at(store, source)
    with pytest.raises(TransitionRefused):
        move(store, order_id, goal)
    assert status_of(store, order_id) == source


async def test_cancelling_releases_the_stock(store: Store) -> None:
    order_id = await order_at(store, OrderStatus.PENDING)
    assert store.stock(store.goods.shirt_m) == 8
    move(store, order_id, "cancelled")
    assert store.stock(store.goods.shirt_m) == 10


async def test_refund_after_delivery_keeps_the_stock_out(store: Store) -> None:
    order_id = await order_at(store, OrderStatus.DELIVERED)
    move(store, order_id, "refunded")
    assert store.stock(store.goods.shirt_m) == 8


async def test_delivery_credits_points_once_and_a_refund_reverses_them(store: Store) -> None:
    jwt = await store.customer()
    order_id = await order_at(store, OrderStatus.FULFILLED, jwt=jwt)
    assert (await store.ok("GET", "/customer/me", jwt=jwt))["points_balance"] == 0
    move(store, order_id, "delivered")
    assert (await store.ok("GET", "/customer/me", jwt=jwt))["points_balance"] == 40
    move(store, order_id, "refunded")
    assert (await store.ok("GET", "/customer/me", jwt=jwt))["points_balance"] == 0
    entries = (await store.ok("GET", "/customer/me/points", jwt=jwt))["items"]
    assert [(e["delta"], e["reason"]) for e in entries] == [(-40, "reversed"), (40, "earned")]


async def test_cancelling_returns_redeemed_points(store: Store) -> None:
    jwt = await store.customer()
    with store.engine.begin() as conn:
        conn.execute(customers.update().values(points_balance=100))
    token = await store.cart((store.goods.shirt_m, 1))
    order = await store.place(token, jwt=jwt, redeem_points=100)
    assert (await store.ok("GET", "/customer/me", jwt=jwt))["points_balance"] == 0
    move(store, order["id"], "cancelled")
    assert (await store.ok("GET", "/customer/me", jwt=jwt))["points_balance"] == 100


async def test_unknown_order_is_refused(store: Store) -> None:
    with pytest.raises(TransitionRefused, match="does not exist"):
        move(store, 999, "paid")


async def test_cash_on_delivery_ships_unpaid_but_prepaid_must_pay_first(store: Store) -> None:
    token = await store.cart((store.goods.jeans_v, 1))
    cod = await store.place(token)
    assert move(store, cod["id"], "fulfilled") is OrderStatus.FULFILLED
    prepaid = await order_at(store, OrderStatus.PENDING, payment_method="vnpay")
    with pytest.raises(TransitionRefused, match="must be paid"):
        move(store, prepaid, "fulfilled")
