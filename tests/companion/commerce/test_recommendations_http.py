"""Recommendations: rule types for a product, recently viewed by customer or session."""

from __future__ import annotations

from itertools import count

import pytest
from sqlalchemy import insert, update

from companion.db.schema import products
from tests.companion.commerce.conftest import Store
from tests.companion.conftest import START

pytestmark = pytest.mark.anyio


async def ids(store: Store, path: str, jwt: str | None = None, **params: object) -> list[int]:
    body = await store.ok("GET", path, params=params, jwt=jwt)
    return [item["id"] for item in body["items"]]


async def view(store: Store, product: int, session: str) -> None:
    response = await store.call(
        "POST", "/recommendations/view", json={"product_id": product, "session_token": session}
    )
    assert response.status_code == 204
    store.clock.advance(1)


async def test_same_category_and_same_brand_exclude_the_product(store: Store) -> None:
    g = store.goods
    path = f"/recommendations/product/{g.shirt}"
    assert await ids(store, path) == [g.jeans]
    assert await ids(store, path, rule_type="same_brand") == []
    unknown = await store.call("GET", path, params={"rule_type": "random"})
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "rule_type"
    missing = await store.call("GET", "/recommendations/product/99999")
    assert missing.status_code == 404


async def test_also_viewed_ranks_products_seen_by_the_same_visitors(store: Store) -> None:
    g = store.goods
    await view(store, g.shirt, "visitor-a")
    await view(store, g.dress, "visitor-a")
    await view(store, g.shirt, "visitor-b")
    await view(store, g.dress, "visitor-b")
    await view(store, g.jeans, "visitor-b")
    await view(store, g.jeans, "visitor-c")
    path = f"/recommendations/product/{g.shirt}"
    assert await ids(store, path, rule_type="also_viewed") == [g.dress, g.jeans]


async def test_recently_viewed_by_session(store: Store) -> None:
    g = store.goods
    for product in (g.shirt, g.jeans, g.shirt):
        await view(store, product, "visitor-a")
    await view(store, g.dress, "visitor-b")
    path = "/recommendations/recently-viewed"
    assert await ids(store, path, session_token="visitor-a") == [g.shirt, g.jeans]
    anonymous = await store.call("GET", path)
    assert anonymous.status_code == 422
    assert anonymous.json()["errors"][0]["field"] == "session_token"


async def test_recently_viewed_by_customer_is_private(store: Store) -> None:
    g = store.goods
    jwt = await store.customer()
    me = await store.ok("GET", "/customer/me", jwt=jwt)
    await store.ok(
        "POST", "/customer/product-views", status=201, json={"product_id": g.dress}, jwt=jwt
    )
    store.clock.advance(1)
    response = await store.call(
        "POST", "/recommendations/view", json={"product_id": g.jeans}, jwt=jwt
    )
    assert response.status_code == 204
    path = "/recommendations/recently-viewed"
    assert await ids(store, path, jwt=jwt, customer_id=me["id"]) == [g.jeans, g.dress]
    assert await ids(store, path, jwt=jwt) == [g.jeans, g.dress]
    other = await store.customer("khac@example.vn")
    peek = await store.call("GET", path, params={"customer_id": me["id"]}, jwt=other)
    assert peek.status_code == 403
    anonymous = await store.call("GET", path, params={"customer_id": me["id"]})
    assert anonymous.status_code == 401


async def test_recording_a_view_checks_its_input(store: Store) -> None:
    no_viewer = await store.call(
        "POST", "/recommendations/view", json={"product_id": store.goods.shirt}
    )
    assert no_viewer.status_code == 422
    unknown = await store.call(
        "POST", "/recommendations/view", json={"product_id": 99_999, "session_token": "s"}
    )
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "product_id"
    odd = await store.call(
        "POST",
        "/recommendations/view",
        json={"product_id": store.goods.shirt, "session_token": "<script>"},
    )
    assert odd.status_code == 422 and odd.json()["errors"][0]["field"] == "session_token"


_made = count(1)


def add_products(store: Store, how_many: int, **values: object) -> list[int]:
    """``how_many`` published products of the store (``values``: their category, brand, ...)."""
    made = []
    with store.engine.begin() as conn:
        for n in range(how_many):
            slug = f"goi-y-{next(_made)}"
            made.append(
                int(
                    conn.execute(
                        insert(products).values(
                            store_id=store.store_id,
                            name=f"Gợi ý {n}",
                            search_name=f"goi y {n}",
                            slug=slug,
                            url=f"/{slug}",
                            price=100_000,
                            created_at=START,
                            updated_at=START,
                            published_at=START,
                            **values,
                        )
                    ).inserted_primary_key[0]
                )
            )
    return made


async def page(store: Store, path: str, **params: object) -> tuple[int, bool, object]:
    body = await store.ok("GET", path, params=params)
    return len(body["items"]), body["has_more"], body["next_cursor"]


async def test_has_more_says_whether_more_products_exist(store: Store) -> None:
    g = store.goods
    add_products(store, 11, category_id=g.category, brand_id=g.brand)  # 12 beside the shirt
    path = f"/recommendations/product/{g.shirt}"
    assert await page(store, path, limit=2) == (2, True, None)
    assert await page(store, path, limit=11) == (11, True, None)
    assert await page(store, path, limit=12) == (12, False, None)
    assert await page(store, path, rule_type="same_brand", limit=10) == (10, True, None)
    assert await page(store, path, rule_type="same_brand", limit=11) == (11, False, None)


async def test_has_more_of_viewed_products_counts_only_published_ones(store: Store) -> None:
    g = store.goods
    seen = add_products(store, 3)
    hidden = add_products(store, 1)
    for product in (g.shirt, *seen, *hidden):
        for visitor in ("visitor-a", "visitor-b"):
            await view(store, product, visitor)
    with store.engine.begin() as conn:  # viewed, then taken off the shop
        conn.execute(update(products).where(products.c.id == hidden[0]).values(status="draft"))
    await view(store, seen[0], "visitor-c")
    also = f"/recommendations/product/{g.shirt}"
    assert await page(store, also, rule_type="also_viewed", limit=2) == (2, True, None)
    assert await page(store, also, rule_type="also_viewed", limit=3) == (3, False, None)
    recent = "/recommendations/recently-viewed"
    assert await page(store, recent, session_token="visitor-a", limit=3) == (3, True, None)
    assert await page(store, recent, session_token="visitor-a", limit=4) == (4, False, None)
    assert await page(store, recent, session_token="visitor-a", limit=2) == (2, True, None)
