"""GET /cart, PUT /cart/items and POST /cart/merge over HTTP, under /public/v1 and /public."""

from __future__ import annotations

import pytest

from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio


def field_of(response_json: dict[str, object]) -> str:
    errors = response_json["errors"]
    assert isinstance(errors, list)
    return str(errors[0]["field"])


async def test_put_without_token_creates_a_cart_with_a_high_entropy_token(store: Store) -> None:
    g = store.goods
    cart = await store.ok(
        "PUT", "/cart/items", json={"items": [{"variant_id": g.shirt_m, "quantity": 2}]}
    )
    assert len(cart["token"]) >= 40
    assert cart["status"] == "active"
    assert cart["item_count"] == 2
    assert cart["subtotal"] == "400000"
    [item] = cart["items"]
    assert item["unit_price"] == "200000" and item["line_total"] == "400000"
    assert item["name"] == "Áo thun cổ tròn" and item["variant_name"] == "M"
    assert item["url"] is not None and item["available"] is True
    again = await store.ok("GET", "/cart", params={"token": cart["token"]})
    assert again["items"] == cart["items"]


async def test_put_replaces_the_items(store: Store) -> None:
    g = store.goods
    token = await store.cart((g.shirt_m, 1), (g.jeans_v, 1))
    cart = await store.ok(
        "PUT",
        "/cart/items",
        params={"token": token},
        json={"items": [{"variant_id": g.dress_v, "quantity": 1}]},
    )
    assert [i["variant_id"] for i in cart["items"]] == [g.dress_v]
    assert cart["token"] == token


async def test_flash_sale_price_is_the_unit_price(store: Store) -> None:
    token = await store.cart((store.goods.dress_v, 1))
    cart = await store.ok("GET", "/cart", params={"token": token})
    assert cart["items"][0]["unit_price"] == "800000"


async def test_same_variant_twice_adds_up(store: Store) -> None:
    g = store.goods
    body = {
        "items": [
            {"variant_id": g.jeans_v, "quantity": 2},
            {"variant_id": g.jeans_v, "quantity": 3},
        ]
    }
    cart = await store.ok("PUT", "/cart/items", json=body)
    assert [(i["variant_id"], i["quantity"]) for i in cart["items"]] == [(g.jeans_v, 5)]


async def test_empty_list_empties_the_cart(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    cart = await store.ok("PUT", "/cart/items", params={"token": token}, json={"items": []})
    assert cart["items"] == [] and cart["subtotal"] == "0"


async def test_alias_under_public_is_the_same_handler(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    response = await store.call("GET", "/cart", prefix="/public", params={"token": token})
    assert response.status_code == 200 and response.json()["token"] == token


@pytest.mark.parametrize(
    ("item", "field", "message"),
    [
        ({"variant_id": 999_999, "quantity": 1}, "items.0.variant_id", "no variant"),
        ({"variant_id": 0, "quantity": 1}, "items.0.variant_id", ""),
        ({"variant_id": 1, "quantity": 0}, "items.0.quantity", ""),
        ({"variant_id": 1, "quantity": 1000}, "items.0.quantity", ""),
        ({"variant_id": "x", "quantity": 1}, "items.0.variant_id", ""),
    ],
)
async def test_bad_items_are_422_naming_the_field(
    store: Store, item: dict[str, object], field: str, message: str
) -> None:
    response = await store.call("PUT", "/cart/items", json={"items": [item]})
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    assert field_of(response.json()) == field
    assert message in response.json()["detail"]


async def test_item_not_for_sale_is_refused(store: Store) -> None:
    g = store.goods
    for variant in (g.scarf_v, g.draft_v):
        response = await store.call(
            "PUT", "/cart/items", json={"items": [{"variant_id": variant, "quantity": 1}]}
        )
        assert response.status_code == 422
        assert "not for sale" in response.json()["detail"]


async def test_more_than_in_stock_names_the_quantity(store: Store) -> None:
    g = store.goods
    body = {
        "items": [
            {"variant_id": g.shirt_m, "quantity": 1},
            {"variant_id": g.shirt_l, "quantity": 2},
        ]
    }
    response = await store.call("PUT", "/cart/items", json=body)
    assert response.status_code == 422
    assert field_of(response.json()) == "items.1.quantity"
    assert "only 1" in response.json()["detail"]


async def test_unknown_token_is_404_and_missing_token_is_422(store: Store) -> None:
    assert (await store.call("GET", "/cart", params={"token": "nope"})).status_code == 404
    missing = await store.call("GET", "/cart")
    assert missing.status_code == 422 and field_of(missing.json()) == "token"


async def test_missing_body_is_422(store: Store) -> None:
    response = await store.call("PUT", "/cart/items")
    assert response.status_code == 422


async def test_logged_in_customer_reads_their_cart_without_token(store: Store) -> None:
    jwt = await store.customer()
    token = await store.cart((store.goods.shirt_m, 1), jwt=jwt)
    cart = await store.ok("GET", "/cart", jwt=jwt)
    assert cart["token"] == token


async def test_merge_adds_guest_items_to_the_customer_cart(store: Store) -> None:
    g = store.goods
    jwt = await store.customer()
    mine = await store.cart((g.shirt_m, 1), (g.jeans_v, 1), jwt=jwt)
    guest = await store.cart((g.shirt_m, 2), (g.dress_v, 1))
    merged = await store.ok("POST", "/cart/merge", params={"token": guest}, jwt=jwt)
    assert merged["token"] == mine
    quantities = {i["variant_id"]: i["quantity"] for i in merged["items"]}
    assert quantities == {g.shirt_m: 3, g.jeans_v: 1, g.dress_v: 1}
    old = await store.ok("GET", "/cart", params={"token": guest})
    assert old["status"] == "merged"
    again = await store.call("POST", "/cart/merge", params={"token": guest}, jwt=jwt)
    assert again.status_code == 409


async def test_merge_without_a_customer_cart_adopts_the_guest_cart(store: Store) -> None:
    jwt = await store.customer()
    guest = await store.cart((store.goods.shirt_m, 1))
    merged = await store.ok("POST", "/cart/merge", params={"token": guest}, jwt=jwt)
    assert merged["token"] == guest
    assert (await store.ok("GET", "/cart", jwt=jwt))["token"] == guest


async def test_merge_needs_a_login_and_refuses_another_customers_cart(store: Store) -> None:
    guest = await store.cart((store.goods.shirt_m, 1))
    anonymous = await store.call("POST", "/cart/merge", params={"token": guest})
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "login_required"
    first = await store.customer("a@example.vn")
    second = await store.customer("b@example.vn")
    theirs = await store.cart((store.goods.shirt_m, 1), jwt=first)
    response = await store.call("POST", "/cart/merge", params={"token": theirs}, jwt=second)
    assert response.status_code == 403


async def test_ordered_cart_cannot_change(store: Store) -> None:
    token = await store.cart((store.goods.jeans_v, 1))
    await store.place(token)
    response = await store.call("PUT", "/cart/items", params={"token": token}, json={"items": []})
    assert response.status_code == 409 and response.json()["code"] == "cart_closed"
    assert (await store.ok("GET", "/cart", params={"token": token}))["status"] == "ordered"
