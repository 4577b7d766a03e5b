"""Orders and the answer cache: a product page read before an order shows the stock the order
took at once, in the same worker."""

from __future__ import annotations

import pytest

from companion.answer_cache.middleware import AnswerCache
from tests.companion.commerce.conftest import Store
from tests.companion.conftest import layer_of

pytestmark = pytest.mark.anyio


def hits(store: Store) -> int:
    return layer_of(store.app, AnswerCache).hits


async def test_an_order_taking_the_last_units_is_read_at_once(store: Store) -> None:
    goods = store.goods
    dress = f"/products/{goods.dress}"
    assert (await store.ok("GET", dress))["in_stock"] is True
    assert (await store.ok("GET", dress))["in_stock"] is True  # now kept
    variants = await store.ok("GET", f"{dress}/variants")
    assert [v["stock"] for v in variants["items"]] == [5]
    listed = await store.ok("GET", "/products")
    assert {p["id"]: p["in_stock"] for p in listed["items"]}[goods.dress] is True
    kept = hits(store)
    await store.place(await store.cart((goods.dress_v, 5)))
    assert (await store.ok("GET", dress))["in_stock"] is False
    variants = await store.ok("GET", f"{dress}/variants")
    assert [v["stock"] for v in variants["items"]] == [0]
    listed = await store.ok("GET", "/products")
    assert {p["id"]: p["in_stock"] for p in listed["items"]}[goods.dress] is False
    assert hits(store) == kept  # all three read again
