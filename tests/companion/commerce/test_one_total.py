"""One total: for every combination of coupon, flash-sale price, shipping method, VAT and
payment method, the order comes back charged exactly the quote the shopper saw (shipping chosen
in the checkout, as the islands do). Without the companion's extension (the spec's letter), the
order is charged the goods and the shipping, and the quote says so (``order_discounts``)."""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy import update

from companion.db.commerce_schema import commerce_settings
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio

COMBINATIONS = list(
    itertools.product(
        (None, "GIAM10"),  # coupon
        (False, True),  # a flash-sale item in the cart
        ("standard", "express"),  # shipping: free from 500,000, or 50,000
        (True, False),  # VAT inside the prices, or added
        ("cod", "vnpay"),  # payment method
    )
)


async def _priced_and_placed(
    store: Store, coupon: str | None, flash_sale: bool, shipping: str, payment: str
) -> tuple[dict[str, object], dict[str, object]]:
    g = store.goods
    items = [(g.dress_v, 1), (g.shirt_m, 1)] if flash_sale else [(g.shirt_m, 2)]
    token = await store.cart(*items)
    checkout = await store.ok(
        "POST", "/checkout", params={"cart_token": token}, json={"coupon_code": coupon}
    )
    await store.ok(
        "PUT", f"/checkout/{checkout['checkout_id']}/shipping", json={"shipping_method": shipping}
    )
    params = {"token": token, **({"coupon_code": coupon} if coupon else {})}
    quote = await store.ok("GET", "/cart/quote", params=params)
    order = await store.place(token, payment_method=payment)
    return quote, order


def _vat(store: Store, included: bool) -> None:
    with store.engine.begin() as conn:
        conn.execute(update(commerce_settings).values(vat_percent=10, prices_include_tax=included))


@pytest.mark.parametrize(
    ("coupon", "flash_sale", "shipping", "vat_included", "payment"), COMBINATIONS
)
async def test_the_order_is_charged_the_quote(
    store: Store,
    coupon: str | None,
    flash_sale: bool,
    shipping: str,
    vat_included: bool,
    payment: str,
) -> None:
    _vat(store, vat_included)
    quote, order = await _priced_and_placed(store, coupon, flash_sale, shipping, payment)
    assert quote["order_discounts"] is True
    assert order["total"] == quote["total"], (quote, order)
    assert order["shipping_total"] == quote["shipping_total"]


@pytest.mark.parametrize(
    ("coupon", "flash_sale", "shipping", "payment"),
    [(c, f, s, p) for c, f, s, v, p in COMBINATIONS if v],
)
async def test_without_the_extension_the_order_is_goods_and_shipping(
    store: Store, coupon: str | None, flash_sale: bool, shipping: str, payment: str
) -> None:
    """What the islands charge against such a backend (``orderAmount`` in checkout.js)."""
    store.app.state.order_discounts = False
    _vat(store, True)
    quote, order = await _priced_and_placed(store, coupon, flash_sale, shipping, payment)
    assert quote["order_discounts"] is False
    assert int(order["total"]) == int(quote["subtotal"]) + int(quote["shipping_total"])
    if coupon:
        assert int(order["total"]) > int(quote["total"])  # the saving the islands never promise
