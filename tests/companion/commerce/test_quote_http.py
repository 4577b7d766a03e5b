"""GET /cart/quote: subtotal, order-level coupons and promotions, tax lines, shipping, total;
every amount a string. Coupons are checked one code at a time with a clear message."""

from __future__ import annotations

import pytest

from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio


async def quote(store: Store, token: str, **params: str) -> dict[str, object]:
    body: dict[str, object] = await store.ok(
        "GET", "/cart/quote", params={"token": token, **params}
    )
    return body


async def test_quote_without_coupon_has_included_vat_and_string_money(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 2))
    body = await quote(store, token)
    assert body["subtotal"] == "400000" and body["total"] == "400000"
    assert body["shipping_total"] == "0" and body["currency"] == "VND"
    assert body["discount_lines"] == [] and body["coupon"] is None
    assert body["tax_lines"] == [
        {"label": "VAT 10% (included)", "amount": "36364", "included": True}
    ]


async def test_valid_coupon_is_a_discount_line(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 2))
    body = await quote(store, token, coupon_code="giam10")
    assert body["coupon"] == {
        "code": "GIAM10",
        "valid": True,
        "reason": "applied",
        "message": "Coupon GIAM10 applied: -40.000 ₫.",
    }
    assert body["discount_lines"] == [
        {"code": "GIAM10", "label": "Coupon GIAM10", "amount": "40000"}
    ]
    assert body["total"] == "360000"


@pytest.mark.parametrize(
    ("code", "reason", "words"),
    [
        ("KHONGCO", "unknown", "does not exist"),
        ("HETHAN", "expired", "has expired"),
        ("SAPTOI", "not_started", "not valid yet"),
        ("HETLUOT", "usage_limit_reached", "usage limit"),
        ("GIAM50K", "below_minimum", "at least 500.000 ₫"),
    ],
)
async def test_refused_coupon_explains_why_and_takes_nothing_off(
    store: Store, code: str, reason: str, words: str
) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    body = await quote(store, token, coupon_code=code)
    coupon = body["coupon"]
    assert isinstance(coupon, dict)
    assert (coupon["valid"], coupon["reason"]) == (False, reason)
    assert words in coupon["message"]
    assert body["total"] == body["subtotal"] == "200000"


async def test_minimum_order_coupon_applies_once_reached(store: Store) -> None:
    token = await store.cart((store.goods.jeans_v, 1))
    body = await quote(store, token, coupon_code="GIAM50K")
    assert body["total"] == "450000"


async def test_automatic_promotion_from_two_million(store: Store) -> None:
    token = await store.cart((store.goods.jeans_v, 4))
    body = await quote(store, token, coupon_code="GIAM10")
    labels = [(d["label"], d["amount"]) for d in body["discount_lines"]]  # type: ignore[union-attr]
    assert labels == [
        ("Giảm 5% cho đơn từ 2.000.000 ₫", "100000"),
        ("Coupon GIAM10", "100000"),  # 10% of 2,000,000 capped at 100,000
    ]
    assert body["total"] == "1800000"


async def test_shipping_chosen_in_checkout_is_quoted(store: Store) -> None:
    token = await store.cart((store.goods.shirt_m, 1))
    checkout = await store.ok("POST", "/checkout", params={"cart_token": token})
    await store.ok(
        "PUT",
        f"/checkout/{checkout['checkout_id']}/shipping",
        json={"shipping_method": "standard"},
    )
    body = await quote(store, token)
    assert body["shipping_total"] == "30000" and body["total"] == "230000"


async def test_quote_errors(store: Store) -> None:
    assert (await store.call("GET", "/cart/quote", params={"token": "nope"})).status_code == 404
    long_code = await store.call(
        "GET", "/cart/quote", params={"token": "x", "coupon_code": "A" * 51}
    )
    assert long_code.status_code == 422
    assert long_code.json()["errors"][0]["field"] == "coupon_code"
