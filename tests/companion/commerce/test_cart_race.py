"""A cart changed or merged while its order is placed, the interleaving forced: the order is
held at one step (in its worker thread) while the other request runs, then let go. The order
is placed with the items it was priced from and no item changes once it is placed, on SQLite
and on PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import anyio.to_thread
import httpx
import pytest
from sqlalchemy import select

from companion.commerce import ordering
from companion.db.commerce_schema import order_items, orders
from tests.companion.commerce.conftest import ADDRESS, Store

pytestmark = pytest.mark.anyio

#: Seconds a held step waits to be let go: past it the order goes on, and the test fails.
HOLD_WAIT = 30
#: Seconds the other request is given to finish while the order is held at a step that keeps
#: the cart: it must still be waiting then.
WAITING = 0.5


class Held:
    """One function of ``ordering`` made to stop, once called, until ``go``."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.released = threading.Event()

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def stopping(*args: Any, **kwargs: Any) -> Any:
            self.reached.set()
            self.released.wait(HOLD_WAIT)
            return function(*args, **kwargs)

        return stopping

    async def wait_reached(self) -> None:
        assert await anyio.to_thread.run_sync(self.reached.wait, HOLD_WAIT)

    def go(self) -> None:
        self.released.set()


@contextmanager
def held_at(monkeypatch: pytest.MonkeyPatch, name: str) -> Iterator[Held]:
    held = Held()
    with monkeypatch.context() as patched:
        patched.setattr(ordering, name, held.wrap(getattr(ordering, name)))
        try:
            yield held
        finally:
            held.go()


async def place(store: Store, token: str) -> httpx.Response:
    return await store.call(
        "POST",
        "/checkout/place-order",
        params={"cart_token": token},
        json={"address": ADDRESS, "payment": {"payment_method": "cod"}},
    )


async def while_the_order_holds_the_cart(
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    token: str,
    other: Callable[[], Awaitable[httpx.Response]],
    what: str,
) -> tuple[httpx.Response, httpx.Response]:
    """The cart's order held once it holds the cart (at its stock reservation) while ``other``
    runs, which must still be waiting ``WAITING`` seconds later; the order's answer and the
    other's, once the order goes on."""
    answers: list[httpx.Response] = []
    others: list[httpx.Response] = []

    async def placing() -> None:
        answers.append(await place(store, token))

    async def running() -> None:
        others.append(await other())

    with held_at(monkeypatch, "_reserve_stock") as held:  # the cart held, the order inserted
        async with anyio.create_task_group() as group:
            group.start_soon(placing)
            await held.wait_reached()
            group.start_soon(running)
            await anyio.sleep(WAITING)
            assert not others, f"the {what} did not wait for the order"
            held.go()
    [answer], [second] = answers, others
    return answer, second


def ordered_items(store: Store) -> list[tuple[int, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(order_items.c.variant_id, order_items.c.quantity)).all()
    return [(row.variant_id, row.quantity) for row in rows]


def order_count(store: Store) -> int:
    with store.engine.connect() as conn:
        return len(conn.execute(select(orders.c.id)).all())


async def test_items_changed_while_the_order_is_priced_refuse_the_order(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order priced one shirt; the shopper then asked for three: no order for one shirt
    at the price of one, and the next try orders the three."""
    shirt = store.goods.shirt_m
    token = await store.cart((shirt, 1))
    answers: list[httpx.Response] = []

    async def placing() -> None:
        answers.append(await place(store, token))

    with held_at(monkeypatch, "order_totals") as held:  # priced, nothing written yet
        async with anyio.create_task_group() as group:
            group.start_soon(placing)
            await held.wait_reached()
            body = {"items": [{"variant_id": shirt, "quantity": 3}]}
            changed = await store.ok("PUT", "/cart/items", params={"token": token}, json=body)
            assert changed["status"] == "active"
            held.go()
    [answer] = answers
    assert answer.status_code == 409, answer.text
    assert answer.json()["code"] == "cart_changed"
    assert order_count(store) == 0
    order = await store.place(token)
    assert [(i["variant_id"], i["quantity"]) for i in order["items"]] == [(shirt, 3)]


async def test_items_cannot_change_once_the_order_holds_the_cart(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The change waits for the order, then is refused: the cart keeps the items ordered."""
    shirt = store.goods.shirt_m
    token = await store.cart((shirt, 1))
    body = {"items": [{"variant_id": shirt, "quantity": 5}]}

    def change() -> Awaitable[httpx.Response]:
        return store.call("PUT", "/cart/items", params={"token": token}, json=body)

    answer, refused = await while_the_order_holds_the_cart(
        store, monkeypatch, token, change, "change"
    )
    assert answer.status_code == 201, answer.text
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "cart_closed"
    cart = await store.ok("GET", "/cart", params={"token": token})
    assert cart["status"] == "ordered"
    assert [(i["variant_id"], i["quantity"]) for i in cart["items"]] == [(shirt, 1)]
    assert ordered_items(store) == [(shirt, 1)]


async def test_a_guest_cart_being_ordered_is_not_merged(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A login's merge waits for the guest cart's order, then is refused: the ordered items do
    not go into the customer's cart to be ordered again."""
    g = store.goods
    jwt = await store.customer()
    mine = await store.cart((g.jeans_v, 1), jwt=jwt)
    guest = await store.cart((g.shirt_m, 2))

    def merge() -> Awaitable[httpx.Response]:
        return store.call("POST", "/cart/merge", params={"token": guest}, jwt=jwt)

    answer, refused = await while_the_order_holds_the_cart(
        store, monkeypatch, guest, merge, "merge"
    )
    assert answer.status_code == 201, answer.text
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "cart_closed"
    assert (await store.ok("GET", "/cart", params={"token": guest}))["status"] == "ordered"
    kept = await store.ok("GET", "/cart", params={"token": mine})
    assert [(i["variant_id"], i["quantity"]) for i in kept["items"]] == [(g.jeans_v, 1)]


async def test_a_second_order_of_a_held_cart_answers_the_first(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    answers = await while_the_order_holds_the_cart(
        store, monkeypatch, token, lambda: place(store, token), "second order"
    )
    assert sorted(a.status_code for a in answers) == [200, 201], [a.text for a in answers]
    assert len({a.json()["id"] for a in answers}) == 1
    assert order_count(store) == 1
