"""Concurrent orders against a real SQLite file: the last unit is sold exactly once, and one
cart placed many times at once still makes one order. Requests run in parallel worker threads
(the app's sync handlers), each on its own database connection."""

from __future__ import annotations

import anyio
import httpx
import pytest
from sqlalchemy import func, select

from companion.db.commerce_schema import orders
from tests.companion.commerce.conftest import ADDRESS, Store

pytestmark = pytest.mark.anyio

BUYERS = 8


async def place_all(store: Store, tokens: list[str]) -> list[httpx.Response]:
    responses: list[httpx.Response] = []

    async def place(token: str) -> None:
        responses.append(
            await store.call(
                "POST",
                "/checkout/place-order",
                params={"cart_token": token},
                json={"address": ADDRESS, "payment": {"payment_method": "cod"}},
            )
        )

    async with anyio.create_task_group() as group:
        for token in tokens:
            group.start_soon(place, token)
    return responses


def order_count(store: Store) -> int:
    with store.engine.connect() as conn:
        count: int = conn.execute(select(func.count()).select_from(orders)).scalar_one()
    return count


async def test_last_unit_goes_to_exactly_one_of_many_concurrent_orders(store: Store) -> None:
    last = store.goods.shirt_l  # stock 1
    tokens = [await store.cart((last, 1)) for _ in range(BUYERS)]
    responses = await place_all(store, tokens)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * (BUYERS - 1)
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {"out_of_stock"}
    assert store.stock(last) == 0
    assert order_count(store) == 1


async def test_one_cart_placed_concurrently_makes_one_order(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 2))
    responses = await place_all(store, [token] * BUYERS)
    assert all(r.status_code in (200, 201) for r in responses), [r.text for r in responses]
    assert sorted(r.status_code for r in responses).count(201) == 1
    assert len({r.json()["id"] for r in responses}) == 1
    assert store.stock(store.goods.shirt_m) == 8
    assert order_count(store) == 1
