"""Recommendations: rule types for a product, recently viewed by customer or session."""

from __future__ import annotations

import pytest

from tests.companion.commerce.conftest import Store

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
