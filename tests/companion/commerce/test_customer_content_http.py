"""Reviews, contacts, saved products and product views."""

from __future__ import annotations

import pytest

from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio


async def test_review_lifecycle(store: Store) -> None:
    jwt = await store.customer(name="Nguyễn Thị Lan")
    product = store.goods.shirt
    body = {
        "entity_type": "product",
        "entity_id": product,
        "rating": 5,
        "title": "Đẹp",
        "content": "<b>Vải</b> mát",
    }
    review = await store.ok("POST", "/customer/reviews/", status=201, json=body, jwt=jwt)
    assert review["author_name"] == "Nguyễn Thị Lan"
    assert review["content"] == "<b>Vải</b> mát"  # stored as typed; clients escape it
    public = await store.ok(
        "GET", "/reviews/", params={"entity_type": "product", "entity_id": product}
    )
    assert [r["id"] for r in public["items"]] == [review["id"]]
    twice = await store.call("POST", "/customer/reviews/", json=body, jwt=jwt)
    assert twice.status_code == 409
    mine = await store.ok("GET", "/customer/reviews/", jwt=jwt)
    assert [r["id"] for r in mine["items"]] == [review["id"]]
    other = await store.customer("khac@example.vn")
    path = f"/customer/reviews/{review['id']}"
    assert (await store.call("DELETE", path, jwt=other)).status_code == 404
    assert (await store.call("DELETE", path, jwt=jwt)).status_code == 204
    empty = await store.ok(
        "GET", "/reviews/", params={"entity_type": "product", "entity_id": product}
    )
    assert empty["items"] == []


async def test_article_reviews_and_bad_review_input(store: Store) -> None:
    jwt = await store.customer()
    ok = {"entity_type": "article", "entity_id": store.goods.article, "rating": 4, "content": "Hay"}
    await store.ok("POST", "/customer/reviews/", status=201, json=ok, jwt=jwt)
    for change, field in (
        ({"rating": 6}, "rating"),
        ({"entity_type": "banner"}, "entity_type"),
        ({"entity_id": 99_999}, "entity_id"),
        ({"content": ""}, "content"),
    ):
        response = await store.call("POST", "/customer/reviews/", json={**ok, **change}, jwt=jwt)
        assert response.status_code == 422, change
        assert response.json()["errors"][0]["field"] == field
    missing = await store.call("GET", "/reviews/", params={"entity_type": "product"})
    assert missing.status_code == 422 and missing.json()["errors"][0]["field"] == "entity_id"


async def test_contact_without_login(store: Store) -> None:
    body = {"name": "Khách", "email": "Khach@Example.vn", "message": "Còn size M không?"}
    contact = await store.ok("POST", "/contacts", status=201, json=body)
    assert contact["email"] == "khach@example.vn" and contact["status"] == "new"
    missing = await store.call("POST", "/contacts", json={"name": "Khách", "message": "x"})
    assert missing.status_code == 422 and missing.json()["errors"][0]["field"] == "email"


async def test_contact_by_host_without_a_key(store: Store) -> None:
    body = {"name": "Khách", "email": "k@example.vn", "message": "Xin chào"}
    response = await store.client.post("/public/v1/contacts", json=body)  # no X-Service-Key
    assert response.status_code == 201  # the only store of the database


async def test_customer_contacts(store: Store) -> None:
    jwt = await store.customer(name="Lan")
    sent = await store.ok(
        "POST", "/customer/contacts/", status=201, json={"message": "Đổi hàng"}, jwt=jwt
    )
    assert (sent["name"], sent["email"]) == ("Lan", "lan@example.vn")
    listing = await store.ok("GET", "/customer/contacts/", jwt=jwt)
    assert [c["id"] for c in listing["items"]] == [sent["id"]]
    one = await store.ok("GET", f"/customer/contacts/{sent['id']}", jwt=jwt)
    assert one["message"] == "Đổi hàng"
    other = await store.customer("khac@example.vn")
    hidden = await store.call("GET", f"/customer/contacts/{sent['id']}", jwt=other)
    assert hidden.status_code == 404


async def test_saved_products(store: Store) -> None:
    jwt = await store.customer()
    g = store.goods
    saved = await store.ok(
        "POST", "/customer/saved-products", status=201, json={"product_id": g.shirt}, jwt=jwt
    )
    assert saved["product"]["name"] == "Áo thun cổ tròn"
    store.clock.advance(1)
    again = await store.ok(
        "POST", "/customer/saved-products", status=201, json={"product_id": g.shirt}, jwt=jwt
    )
    assert again["saved_at"] == saved["saved_at"]
    store.clock.advance(1)
    await store.ok(
        "POST", "/customer/saved-products", status=201, json={"product_id": g.dress}, jwt=jwt
    )
    listing = await store.ok("GET", "/customer/saved-products", params={"limit": 1}, jwt=jwt)
    assert [s["product_id"] for s in listing["items"]] == [g.dress] and listing["has_more"]
    rest = await store.ok(
        "GET", "/customer/saved-products", params={"cursor": listing["next_cursor"]}, jwt=jwt
    )
    assert [s["product_id"] for s in rest["items"]] == [g.shirt]
    assert (
        await store.call("DELETE", f"/customer/saved-products/{g.shirt}", jwt=jwt)
    ).status_code == 204
    assert (
        await store.call("DELETE", f"/customer/saved-products/{g.shirt}", jwt=jwt)
    ).status_code == 404
    unknown = await store.call(
        "POST", "/customer/saved-products", json={"product_id": 99_999}, jwt=jwt
    )
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "product_id"


async def test_product_views(store: Store) -> None:
    jwt = await store.customer()
    g = store.goods
    for product in (g.shirt, g.jeans):
        view = await store.ok(
            "POST", "/customer/product-views", status=201, json={"product_id": product}, jwt=jwt
        )
        assert view["product"]["id"] == product
        store.clock.advance(1)
    listing = await store.ok("GET", "/customer/product-views", jwt=jwt)
    assert [v["product_id"] for v in listing["items"]] == [g.jeans, g.shirt]
