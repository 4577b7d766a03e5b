"""One price edit sets what the card, the product page, its variants, the cart and the order use.

A product whose variants carry their own price (2.240.000) listed at 1.590.000: after
``set_product_price`` every place a shopper sees or pays a price says the new one.
"""

from __future__ import annotations

import pytest
from sqlalchemy import update

from companion.catalog_admin import set_product_price
from companion.db.schema import products, variants
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio


async def test_a_price_edit_reaches_card_page_variants_cart_and_order(store: Store) -> None:
    shirt = store.goods.shirt
    with store.engine.begin() as conn:
        conn.execute(update(products).where(products.c.id == shirt).values(price=1_590_000))
        conn.execute(update(variants).where(variants.c.product_id == shirt).values(price=2_240_000))
        set_product_price(
            conn, store_id=store.store_id, product_id=shirt, price=1_790_000, now=store.clock.now()
        )

    page = await store.ok("GET", f"/products/{shirt}")
    assert page["price"] == 1_790_000
    listed_variants = await store.ok("GET", f"/products/{shirt}/variants")
    assert {v["price"] for v in listed_variants["items"]} == {1_790_000}
    listed = await store.ok("GET", "/products", params={"limit": 100})
    [card] = [p for p in listed["items"] if p["id"] == shirt]
    assert card["price"] == 1_790_000
    token = await store.cart((store.goods.shirt_m, 1))
    cart = await store.ok("GET", "/cart", params={"token": token})
    assert [int(line["unit_price"]) for line in cart["items"]] == [1_790_000]
    order = await store.place(token)
    assert [int(item["unit_price"]) for item in order["items"]] == [1_790_000]
    assert int(order["subtotal"]) == 1_790_000
