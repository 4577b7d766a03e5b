"""POST /checkout/place-order: one order per cart, idempotent, stock reserved, discounts and
points recorded, discount_amount 0; and the customer's view of orders."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from companion.db.commerce_schema import orders
from tests.companion.commerce.conftest import ADDRESS, Store

pytestmark = pytest.mark.anyio

TEN_FIELDS = {
    "id",
    "code",
    "current_status",
    "total",
    "subtotal",
    "discount_total",
    "shipping_total",
    "currency",
    "placed_at",
    "note",
}


async def test_order_records_prices_and_reserves_stock(store: Store) -> None:
    g = store.goods
    token = await store.cart((g.dress_v, 2), (g.shirt_m, 1))
    order = await store.place(token)
    assert order["current_status"] == "pending"
    assert order["code"].startswith("DH") and len(order["code"]) == 10
    assert order["subtotal"] == "2200000"  # regular prices
    assert order["discount_total"] == "400000"  # the flash sale, product level
    assert order["discount_amount"] == "0"
    assert order["shipping_total"] == "0"  # standard: free from 500,000
    assert order["total"] == "1800000"
    assert order["points_earned"] == 180
    dress = next(i for i in order["items"] if i["variant_id"] == g.dress_v)
    assert (dress["list_price"], dress["unit_price"]) == ("1000000", "800000")
    assert dress["flash_sale_id"] is not None
    assert store.stock(g.dress_v) == 3 and store.stock(g.shirt_m) == 9


async def test_placing_the_same_cart_again_returns_the_same_order(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    first = await store.place(token)
    second = await store.place(token, expect=200)
    assert second["id"] == first["id"] and second["code"] == first["code"]
    assert store.stock(store.goods.shirt_m) == 9
    with store.engine.connect() as conn:
        assert len(conn.execute(select(orders.c.id)).all()) == 1


async def test_idempotency_key_is_honoured(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    key = {"Idempotency-Key": "order-attempt-1"}
    body = {"address": ADDRESS, "payment": {"payment_method": "cod"}}
    params = {"cart_token": token}
    first = await store.call("POST", "/checkout/place-order", params=params, json=body, headers=key)
    replay = await store.call(
        "POST", "/checkout/place-order", params=params, json=body, headers=key
    )
    assert (first.status_code, replay.status_code) == (201, 200)
    assert replay.json()["id"] == first.json()["id"]
    other = await store.cart((store.goods.jeans_v, 1))
    reused = await store.call(
        "POST", "/checkout/place-order", params={"cart_token": other}, json=body, headers=key
    )
    assert reused.status_code == 409 and reused.json()["code"] == "idempotency_key_reused"


async def test_shipping_comes_from_the_checkout(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    checkout = await store.ok("POST", "/checkout", params={"cart_token": token})
    await store.ok(
        "PUT", f"/checkout/{checkout['checkout_id']}/shipping", json={"shipping_method": "express"}
    )
    order = await store.place(token)
    assert (order["shipping_method"], order["shipping_total"]) == ("express", "50000")
    assert order["total"] == "250000"


async def test_coupon_is_in_the_history_but_not_in_the_order(store: Store) -> None:
    """Without the companion's extension, as the spec says."""
    store.app.state.order_discounts = False
    jwt = await store.customer()
    token = await store.cart((store.goods.jeans_v, 1), jwt=jwt)
    await store.ok(
        "POST", "/checkout", params={"cart_token": token}, json={"coupon_code": "GIAM10"}, jwt=jwt
    )
    order = await store.place(token, jwt=jwt)
    assert order["total"] == "500000" and order["discount_amount"] == "0"
    history = await store.ok("GET", "/customer/coupons", jwt=jwt)
    [used] = history["items"]
    assert used["coupon_code"] == "GIAM10" and used["order_id"] == order["id"]
    assert set(used) == {"id", "coupon_code", "used_at", "order_id"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"payment": {"payment_method": "cod"}}, "address"),
        ({"address": ADDRESS}, "payment"),
        ({"address": ADDRESS, "payment": {"payment_method": ""}}, "payment.payment_method"),
        (
            {"address": {**ADDRESS, "city": ""}, "payment": {"payment_method": "cod"}},
            "address.city",
        ),
        (
            {"address": ADDRESS, "payment": {"payment_method": "cod", "redeem_points": -1}},
            "payment.redeem_points",
        ),
    ],
)
async def test_bad_place_order_body_is_422(
    store: Store, body: dict[str, object], field: str
) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    response = await store.call(
        "POST", "/checkout/place-order", params={"cart_token": token}, json=body
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == field


async def test_payment_method_is_a_free_string(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    order = await store.place(token, payment_method="chuyen-khoan")
    assert order["payment_method"] == "chuyen-khoan"


async def test_empty_unknown_and_stale_carts(store: Store) -> None:
    empty = await store.ok("PUT", "/cart/items", json={"items": []})
    response = await store.call(
        "POST",
        "/checkout/place-order",
        params={"cart_token": empty["token"]},
        json={"address": ADDRESS, "payment": {"payment_method": "cod"}},
    )
    assert response.status_code == 422 and "empty" in response.json()["detail"]
    await store.place("no-such-cart", expect=404)
    token = await store.cart((store.goods.shirt_l, 1))
    store.set_stock(store.goods.shirt_l, 0)
    sold_out = await store.place(token, expect=409)
    assert sold_out["code"] == "out_of_stock"


async def test_order_of_a_customer_is_theirs(store: Store) -> None:
    jwt = await store.customer()
    token = await store.cart((store.goods.shirt_m, 1))
    order = await store.place(token, jwt=jwt)
    listing = await store.ok("GET", "/customer/orders", jwt=jwt)
    assert [o["id"] for o in listing["items"]] == [order["id"]]
    detail = await store.ok("GET", f"/customer/orders/{order['id']}", jwt=jwt)
    assert set(detail) == TEN_FIELDS
    assert detail["total"] == "230000" and detail["currency"] == "VND"  # with shipping
    other = await store.customer("khac@example.vn")
    hidden = await store.call("GET", f"/customer/orders/{order['id']}", jwt=other)
    assert hidden.status_code == 404
    assert (await store.call("GET", "/customer/orders")).status_code == 401


async def test_customer_orders_are_paginated_newest_first(store: Store) -> None:
    jwt = await store.customer()
    ids = []
    for _ in range(3):
        token = await store.cart((store.goods.jeans_v, 1))
        ids.append((await store.place(token, jwt=jwt))["id"])
        store.clock.advance(60)
    first = await store.ok("GET", "/customer/orders", params={"limit": 2}, jwt=jwt)
    assert [o["id"] for o in first["items"]] == ids[:0:-1] and first["has_more"]
    rest = await store.ok(
        "GET", "/customer/orders", params={"limit": 2, "cursor": first["next_cursor"]}, jwt=jwt
    )
    assert [o["id"] for o in rest["items"]] == ids[:1] and rest["next_cursor"] is None
    bad = await store.call("GET", "/customer/orders", params={"cursor": "garbage"}, jwt=jwt)
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "cursor"


async def test_loyalty_points_are_redeemed_and_recorded(store: Store) -> None:
    from sqlalchemy import update

    from companion.db.commerce_schema import customers

    jwt = await store.customer()
    with store.engine.begin() as conn:
        conn.execute(update(customers).values(points_balance=500))
    token = await store.cart((store.goods.shirt_m, 1))
    order = await store.place(token, jwt=jwt, redeem_points=300)
    assert order["points_redeemed"] == 300
    assert order["discount_total"] == "30000" and order["total"] == "200000"  # 170k + 30k ship
    me = await store.ok("GET", "/customer/me", jwt=jwt)
    assert me["points_balance"] == 200
    points = await store.ok("GET", "/customer/me/points", jwt=jwt)
    assert [(p["delta"], p["reason"]) for p in points["items"]] == [(-300, "redeemed")]
    guest = await store.cart((store.goods.shirt_m, 1))
    refused = await store.place(guest, redeem_points=10, expect=401)
    assert refused["code"] == "login_required"


async def test_with_the_extension_the_order_is_charged_the_quote_to_the_dong(store: Store) -> None:
    """The reported case: GIAM10 priced in the cart, a paid shipping method chosen, and the
    order charged the same total; the quote declares the extension."""
    jwt = await store.customer()
    g = store.goods
    token = await store.cart((g.jeans_v, 1), (g.dress_v, 1), jwt=jwt)
    checkout = await store.ok(
        "POST", "/checkout", params={"cart_token": token}, json={"coupon_code": "GIAM10"}, jwt=jwt
    )
    await store.ok(
        "PUT",
        f"/checkout/{checkout['checkout_id']}/shipping",
        json={"shipping_method": "express"},
        jwt=jwt,
    )
    quote = await store.ok(
        "GET", "/cart/quote", params={"token": token, "coupon_code": "GIAM10"}, jwt=jwt
    )
    assert quote["order_discounts"] is True
    assert quote["coupon"]["valid"] and quote["shipping_total"] != "0"
    coupon_off = sum(int(d["amount"]) for d in quote["discount_lines"])
    assert coupon_off > 0
    order = await store.place(token, jwt=jwt)
    assert order["total"] == quote["total"]
    assert order["discount_amount"] == str(coupon_off)
    assert order["shipping_total"] == quote["shipping_total"]
    mine = await store.ok("GET", f"/customer/orders/{order['id']}", jwt=jwt)
    assert mine["total"] == quote["total"]
