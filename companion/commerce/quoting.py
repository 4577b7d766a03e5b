"""Quote a stored cart: gather its lines, coupon, promotions, rules and shipping, then price."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection

from companion.commerce.cart_lines import price_variants
from companion.commerce.carts import Cart, item_quantities
from companion.commerce.checkouts import latest_checkout
from companion.commerce.coupon_store import active_promotions, find_coupon
from companion.commerce.discounts import CouponVerdict, check_coupon
from companion.commerce.quote import (
    PricedLine,
    Quote,
    TaxRule,
    price_quote,
    shipping_fee,
    subtotal_of,
)
from companion.commerce.shipping import find_method
from companion.commerce.store_rules import store_rules


def cart_lines(conn: Connection, *, store_id: int, cart: Cart, now: datetime) -> list[PricedLine]:
    return price_variants(conn, store_id=store_id, quantities=item_quantities(conn, cart), now=now)


def coupon_verdict(
    conn: Connection, *, store_id: int, code: str, subtotal: int, now: datetime
) -> CouponVerdict:
    found = find_coupon(conn, store_id=store_id, code=code)
    return check_coupon(code, found[1] if found else None, subtotal=subtotal, now=now)


def quote_cart(
    conn: Connection, *, store_id: int, cart: Cart, coupon_code: str | None, now: datetime
) -> Quote:
    """The quote of a cart; shipping is the fee of the method chosen in its checkout, if any."""
    lines = cart_lines(conn, store_id=store_id, cart=cart, now=now)
    fee = chosen_shipping_fee(conn, store_id=store_id, cart=cart, subtotal=subtotal_of(lines))
    return quote_lines(
        conn,
        store_id=store_id,
        lines=lines,
        coupon_code=coupon_code,
        tax=store_rules(conn, store_id=store_id).tax,
        shipping_total=fee,
        now=now,
    )


def quote_lines(
    conn: Connection,
    *,
    store_id: int,
    lines: Sequence[PricedLine],
    coupon_code: str | None,
    tax: TaxRule,
    shipping_total: int,
    now: datetime,
) -> Quote:
    """Priced lines quoted: the store's running promotions, the coupon's verdict on their
    subtotal, tax and shipping (the quote's route and the order placed from it price alike)."""
    verdict = (
        coupon_verdict(
            conn, store_id=store_id, code=coupon_code, subtotal=subtotal_of(lines), now=now
        )
        if coupon_code
        else None
    )
    return price_quote(
        lines,
        promotions=active_promotions(
            conn, store_id=store_id, product_ids={line.product_id for line in lines}
        ),
        coupon=verdict,
        tax=tax,
        shipping_total=shipping_total,
        now=now,
    )


def chosen_shipping_fee(conn: Connection, *, store_id: int, cart: Cart, subtotal: int) -> int:
    checkout = latest_checkout(conn, store_id=store_id, cart_id=cart.id)
    if checkout is None or checkout.shipping_method is None:
        return 0
    method = find_method(conn, store_id=store_id, code=checkout.shipping_method)
    return shipping_fee(method.fee, method.free_over, subtotal) if method else 0
