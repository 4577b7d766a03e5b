"""Placing an order: exactly one per cart, stock reserved atomically, idempotent by key.

The guarantees rest on the database, not on checks in Python, so they hold across threads,
processes and (later) PostgreSQL:
- ``UPDATE carts ... WHERE status = 'active'`` first in the order's transaction
  (``carts.hold_active``), then its items read again: the order is placed with the items it
  was priced from (409 ``cart_changed`` when they changed meanwhile), and a change of the
  items or a merge that comes later waits for the order, then is refused (409
  ``cart_closed``); a second order of the cart waits for the first and answers with it.
- ``uq_orders_cart_id``: a second order for the same cart cannot be inserted. A request that
  loses that race rolls back its savepoint and answers with the winner's order.
- ``UPDATE variants SET stock = stock - q WHERE ... AND stock >= q``: a unit is sold once; a
  rowcount of 0 means another order took it, and the whole attempt rolls back.
- ``uq_orders_idempotency_key``: a replayed request with the same key gets the same order.
- ``UPDATE coupons SET used_count = used_count + 1 WHERE ... AND used_count < usage_limit``: a
  coupon's use is claimed once, in the order's transaction; an order priced with a use it
  cannot claim is refused (409 ``coupon_used_up``) rather than charged a discount beyond the
  limit.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from companion.answer_cache.changes import stock_changed
from companion.commerce.cart_lines import price_variants
from companion.commerce.carts import Cart, find_cart, hold_active, item_quantities, touch
from companion.commerce.checkouts import (
    Checkout,
    latest_checkout,
    update_checkout,
)
from companion.commerce.coupon_store import claim_coupon_use, record_coupon_use
from companion.commerce.discounts import CouponVerdict
from companion.commerce.order_events import order_created
from companion.commerce.order_states import OrderStatus
from companion.commerce.order_totals import OrderTotals, order_totals
from companion.commerce.quote import (
    PricedLine,
    Quote,
    TaxRule,
    shipping_fee,
    subtotal_of,
)
from companion.commerce.quoting import coupon_verdict, quote_lines
from companion.commerce.shipping import enabled_methods, find_method
from companion.commerce.store_rules import store_rules
from companion.commerce_states import CartStatus, CheckoutStatus
from companion.db.commerce_schema import (
    carts,
    customers,
    order_items,
    order_status_history,
    orders,
    point_entries,
)
from companion.db.schema import variants
from companion.refusals import Conflict, Invalid, NotFound, NotSignedIn, NotYours, Refused

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read out over the phone


@dataclass(frozen=True, slots=True)
class OrderRequest:
    address: dict[str, Any]
    payment_method: str
    note: str | None
    redeem_points: int
    idempotency_key: str | None


@dataclass(frozen=True, slots=True)
class Placed:
    order_id: int
    created: bool  # False: the cart (or the key) already had this order


# Built once, their values bound at each call (no order pays for building them): the order by
# cart or by key, the inserts, the stock taken.
_FOR_CART = select(orders.c.id).where(orders.c.cart_id == bindparam("cart_id"))
_FOR_KEY = select(orders.c.id, orders.c.cart_id).where(
    orders.c.store_id == bindparam("store_id"), orders.c.idempotency_key == bindparam("key")
)
_CART_TOKEN = select(carts.c.token).where(carts.c.id == bindparam("cart_id"))
_POINTS = select(customers.c.points_balance).where(customers.c.id == bindparam("customer_id"))
_INSERT_ORDER = insert(orders)
_INSERT_STATUS = insert(order_status_history)
_INSERT_ITEMS = insert(order_items)
_TAKE_STOCK = (
    update(variants)
    .where(
        variants.c.id == bindparam("variant"),
        variants.c.store_id == bindparam("store"),
        or_(variants.c.stock.is_(None), variants.c.stock >= bindparam("wanted")),
    )
    .values(stock=variants.c.stock - bindparam("wanted"))  # NULL (untracked) stays NULL
    .returning(variants.c.product_id, variants.c.stock)
)


def new_order_code() -> str:
    return "DH" + "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))


def place_order(
    conn: Connection,
    *,
    store_id: int,
    cart_token: str,
    request: OrderRequest,
    customer_id: int | None,
    now: datetime,
    order_discounts: bool = False,
) -> Placed:
    """The cart's order: placed now, or the one placed before (same cart or same key).
    ``order_discounts`` (the companion's extension): the order is charged what the quote
    says, its coupon and promotions included; without it, as the spec says, they are not."""
    if request.idempotency_key:
        keyed = _order_for_key(conn, store_id=store_id, key=request.idempotency_key)
        if keyed is not None:
            return _same_cart_or_conflict(conn, keyed, cart_token)
    cart = find_cart(conn, store_id=store_id, token=cart_token)
    if cart is None:
        raise NotFound("cart")
    existing = _order_for_cart(conn, cart_id=cart.id)
    if existing is not None:
        return Placed(existing, created=False)
    if cart.status is not CartStatus.ACTIVE:
        raise Conflict("cart_closed", f"the cart was {cart.status}; use the cart it went into")
    quantities = item_quantities(conn, cart)
    lines = price_variants(conn, store_id=store_id, quantities=quantities, now=now)
    if not lines:
        raise Invalid("cart_token", "the cart is empty")
    unavailable = [line.name for line in lines if not line.available]
    if unavailable:
        raise Conflict(
            "item_unavailable", f"no longer for sale: {', '.join(unavailable)}; update the cart"
        )
    buyer = customer_id if customer_id is not None else cart.customer_id
    spender = _points_spender(cart, customer_id) if request.redeem_points else None
    checkout = latest_checkout(conn, store_id=store_id, cart_id=cart.id)
    rules = store_rules(conn, store_id=store_id)
    method_code, fee = _shipping(conn, store_id=store_id, checkout=checkout, lines=lines)
    wanted = (
        min(request.redeem_points, _points_balance(conn, spender)) if spender is not None else 0
    )
    quote, order_discount, added_tax = None, 0, 0
    if order_discounts:
        quote = _quote(
            conn, store_id=store_id, lines=lines, checkout=checkout, tax=rules.tax, fee=fee, now=now
        )
        order_discount = sum(line.amount for line in quote.discount_lines)
        added_tax = sum(line.amount for line in quote.tax_lines if not line.included)
    coupon = _kept_coupon(
        conn, store_id=store_id, checkout=checkout, quote=quote, lines=lines, now=now
    )
    totals = order_totals(
        lines,
        shipping_total=fee,
        points_wanted=wanted,
        loyalty=rules.loyalty,
        order_discount=order_discount,
        added_tax=added_tax,
    )
    try:
        with conn.begin_nested():
            _hold_as_priced(conn, cart, quantities, now=now)
            coupon_id = _claim_coupon(
                conn, store_id=store_id, coupon=coupon, priced=quote is not None
            )
            order_id = _insert_order(
                conn,
                store_id=store_id,
                cart=cart,
                checkout=checkout,
                customer_id=buyer,
                request=request,
                totals=totals,
                shipping_method=method_code,
                coupon_code=coupon.code if coupon is not None and coupon_id is not None else None,
                now=now,
            )
            _reserve_stock(conn, store_id=store_id, lines=lines)
            _insert_items(conn, store_id=store_id, order_id=order_id, lines=lines)
            _redeem_points(
                conn,
                store_id=store_id,
                customer_id=spender,
                order_id=order_id,
                points=totals.points_redeemed,
                now=now,
            )
            if coupon is not None and coupon_id is not None:
                record_coupon_use(
                    conn,
                    store_id=store_id,
                    coupon_id=coupon_id,
                    code=coupon.code,
                    customer_id=buyer,
                    order_id=order_id,
                    now=now,
                )
    except (IntegrityError, Refused):
        # Lost a race: the cart or the key got its order in a concurrent request, which may
        # also have taken the last unit or coupon use this attempt then found gone.
        winner = _order_for_cart(conn, cart_id=cart.id)
        if winner is None and request.idempotency_key:
            keyed = _order_for_key(conn, store_id=store_id, key=request.idempotency_key)
            if keyed is not None:
                return _same_cart_or_conflict(conn, keyed, cart_token)
        if winner is None:
            raise
        return Placed(winner, created=False)
    touch(conn, cart, now=now, status=CartStatus.ORDERED)
    if checkout is not None:
        update_checkout(
            conn, checkout, {"status": CheckoutStatus.COMPLETED, "order_id": order_id}, now=now
        )
    order_created(conn, store_id=store_id, order_id=order_id, now=now)
    return Placed(order_id, created=True)


def _hold_as_priced(
    conn: Connection, cart: Cart, quantities: list[tuple[int, int]], *, now: datetime
) -> None:
    """The cart held for the order (``hold_active``), still holding the items it was priced
    from; 409 ``cart_closed`` (ordered or merged meanwhile) or ``cart_changed`` (its items
    changed while it was priced) otherwise."""
    if hold_active(conn, cart, now=now) is None:
        raise Conflict("cart_closed", "the cart was ordered or merged; use the cart it went into")
    if item_quantities(conn, cart) != quantities:
        raise Conflict(
            "cart_changed", "the cart changed as its order was placed; check it, then place it"
        )


def _quote(
    conn: Connection,
    *,
    store_id: int,
    lines: Sequence[PricedLine],
    checkout: Checkout | None,
    tax: TaxRule,
    fee: int,
    now: datetime,
) -> Quote:
    """The cart's quote as GET /cart/quote prices it, with the checkout's coupon and fee."""
    return quote_lines(
        conn,
        store_id=store_id,
        lines=lines,
        coupon_code=checkout.coupon_code if checkout is not None else None,
        tax=tax,
        shipping_total=fee,
        now=now,
    )


def _points_spender(cart: Cart, customer_id: int | None) -> int:
    """Whose points an order may spend: the logged-in customer's, on her own cart or a guest's.
    A cart token is readable by the page's scripts and travels in query strings, so the cart's
    customer never stands in for a login."""
    if customer_id is None:
        raise NotSignedIn(
            "login_required",
            "redeem_points needs the customer JWT as Authorization: Bearer <token>",
        )
    if cart.customer_id not in (None, customer_id):
        raise NotYours("cart_not_yours", "this cart belongs to another customer")
    return customer_id


def _kept_coupon(
    conn: Connection,
    *,
    store_id: int,
    checkout: Checkout | None,
    quote: Quote | None,
    lines: Sequence[PricedLine],
    now: datetime,
) -> CouponVerdict | None:
    """The checkout's code if it is valid now: the verdict the order's quote priced, or (the
    coupon not priced into orders) one on the goods."""
    if checkout is None or not checkout.coupon_code:
        return None
    verdict = (
        quote.coupon
        if quote is not None
        else coupon_verdict(
            conn,
            store_id=store_id,
            code=checkout.coupon_code,
            subtotal=subtotal_of(lines),
            now=now,
        )
    )
    return verdict if verdict is not None and verdict.valid else None


def _claim_coupon(
    conn: Connection, *, store_id: int, coupon: CouponVerdict | None, priced: bool
) -> int | None:
    """The coupon's id once its use is claimed in the order's transaction. Its limit may have
    been reached since the order was priced: an order whose price counts on the coupon is then
    refused, so the shopper sees the new price before paying; an order not priced with it is
    placed without it."""
    if coupon is None:
        return None
    coupon_id = claim_coupon_use(conn, store_id=store_id, code=coupon.code)
    if coupon_id is None and priced:
        raise Conflict(
            "coupon_used_up",
            f"coupon {coupon.code} reached its usage limit; quote the cart again",
            coupon_code=coupon.code,
        )
    return coupon_id


def _order_for_cart(conn: Connection, *, cart_id: int) -> int | None:
    found: int | None = conn.execute(_FOR_CART, {"cart_id": cart_id}).scalar_one_or_none()
    return found


def _order_for_key(conn: Connection, *, store_id: int, key: str) -> tuple[int, int | None] | None:
    row = conn.execute(_FOR_KEY, {"store_id": store_id, "key": key}).first()
    return (row.id, row.cart_id) if row else None


def _same_cart_or_conflict(
    conn: Connection, keyed: tuple[int, int | None], cart_token: str
) -> Placed:
    order_id, cart_id = keyed
    token = conn.execute(_CART_TOKEN, {"cart_id": cart_id}).scalar()
    if token != cart_token:
        raise Conflict(
            "idempotency_key_reused",
            "this Idempotency-Key was already used for another cart; send a new key",
        )
    return Placed(order_id, created=False)


def _shipping(
    conn: Connection, *, store_id: int, checkout: Checkout | None, lines: Sequence[PricedLine]
) -> tuple[str | None, int]:
    """The method chosen in the checkout, else the store's first: place-order has no shipping."""
    method = None
    if checkout is not None and checkout.shipping_method:
        method = find_method(conn, store_id=store_id, code=checkout.shipping_method)
    if method is None:
        method = next(iter(enabled_methods(conn, store_id=store_id)), None)
    if method is None:
        return None, 0
    goods = sum(line.line_total for line in lines)
    return method.code, shipping_fee(method.fee, method.free_over, goods)


def _points_balance(conn: Connection, customer_id: int | None) -> int:
    if customer_id is None:
        return 0
    balance: int | None = conn.execute(_POINTS, {"customer_id": customer_id}).scalar()
    return balance or 0


def _insert_order(
    conn: Connection,
    *,
    store_id: int,
    cart: Cart,
    checkout: Checkout | None,
    customer_id: int | None,
    request: OrderRequest,
    totals: OrderTotals,
    shipping_method: str | None,
    coupon_code: str | None,
    now: datetime,
) -> int:
    email = request.address.get("email") or (checkout.email if checkout else None)
    result = conn.execute(
        _INSERT_ORDER,
        {
            "store_id": store_id,
            "code": new_order_code(),
            "cart_id": cart.id,
            "checkout_id": checkout.id if checkout else None,
            "customer_id": customer_id,
            "idempotency_key": request.idempotency_key,
            "current_status": OrderStatus.PENDING.value,
            "payment_method": request.payment_method,
            "currency": "VND",
            "subtotal": totals.subtotal,
            "discount_total": totals.discount_total,
            "discount_amount": totals.order_discount,
            "shipping_total": totals.shipping_total,
            "total": totals.total,
            "points_redeemed": totals.points_redeemed,
            "points_earned": totals.points_earned,
            "points_credited": False,
            "coupon_code": coupon_code,
            "shipping_method": shipping_method,
            "address": request.address,
            "email": email,
            "note": request.note,
            "placed_at": now,
            "updated_at": now,
        },
    )
    assert result.inserted_primary_key is not None
    order_id = int(result.inserted_primary_key[0])
    conn.execute(
        _INSERT_STATUS,
        {
            "store_id": store_id,
            "order_id": order_id,
            "from_status": None,
            "to_status": OrderStatus.PENDING.value,
            "reason": "placed",
            "at": now,
        },
    )
    return order_id


def _reserve_stock(conn: Connection, *, store_id: int, lines: Sequence[PricedLine]) -> None:
    """Take each line's quantity, or fail: the check and the decrement are one statement."""
    for line in lines:
        taken = conn.execute(
            _TAKE_STOCK,
            {"variant": line.variant_id, "store": store_id, "wanted": line.quantity},
        ).all()
        # What kept catalogue answers this changed (companion.answer_cache).
        stock_changed(conn, [(row.product_id, row.stock, -line.quantity) for row in taken])
        if len(taken) != 1:
            raise Conflict(
                "out_of_stock",
                f"not enough stock for {line.name} ({line.variant_name}); update the cart",
                variant_id=line.variant_id,
            )


def _insert_items(
    conn: Connection, *, store_id: int, order_id: int, lines: Sequence[PricedLine]
) -> None:
    conn.execute(
        _INSERT_ITEMS,
        [
            {
                "store_id": store_id,
                "order_id": order_id,
                "product_id": line.product_id,
                "variant_id": line.variant_id,
                "name": line.name,
                "variant_name": line.variant_name,
                "sku": line.sku,
                "quantity": line.quantity,
                "list_price": line.list_price,
                "unit_price": line.unit_price,
                "flash_sale_id": line.flash_sale_id,
            }
            for line in lines
        ],
    )


def _redeem_points(
    conn: Connection,
    *,
    store_id: int,
    customer_id: int | None,
    order_id: int,
    points: int,
    now: datetime,
) -> None:
    if customer_id is None or points <= 0:
        return
    debited = conn.execute(
        update(customers)
        .where(customers.c.id == customer_id, customers.c.points_balance >= points)
        .values(points_balance=customers.c.points_balance - points)
    )
    if debited.rowcount != 1:
        raise Conflict("points_changed", "the points balance changed; place the order again")
    conn.execute(
        insert(point_entries).values(
            store_id=store_id,
            customer_id=customer_id,
            order_id=order_id,
            delta=-points,
            reason="redeemed",
            created_at=now,
        )
    )
