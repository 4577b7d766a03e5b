"""Checkouts: one per cart, collecting address, shipping and payment choices before the order."""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, Select, bindparam, insert, select, update

from companion.commerce.carts import Cart
from companion.commerce_states import CheckoutStatus
from companion.db.commerce_schema import carts, checkouts


@dataclass(frozen=True, slots=True)
class Checkout:
    id: str
    cart_id: int
    cart_token: str
    customer_id: int | None
    status: CheckoutStatus
    email: str | None
    coupon_code: str | None
    address: dict[str, Any] | None
    shipping_method: str | None
    pickup_location_id: int | None
    payment_method: str | None
    order_id: int | None
    updated_at: datetime


def _select() -> Select[Any]:
    return select(
        checkouts.c.id,
        checkouts.c.cart_id,
        carts.c.token,
        checkouts.c.customer_id,
        checkouts.c.status,
        checkouts.c.email,
        checkouts.c.coupon_code,
        checkouts.c.address,
        checkouts.c.shipping_method,
        checkouts.c.pickup_location_id,
        checkouts.c.payment_method,
        checkouts.c.order_id,
        checkouts.c.updated_at,
    ).join(carts, carts.c.id == checkouts.c.cart_id)


# Read by every quote and order (a cart's checkout): built once, values bound at each call.
_OF_CART = (
    _select()
    .where(
        checkouts.c.store_id == bindparam("store_id"),
        checkouts.c.cart_id == bindparam("cart_id"),
    )
    .order_by(checkouts.c.created_at.desc())
    .limit(1)
)


def _checkout(row: Any) -> Checkout:
    values = list(row)
    values[4] = CheckoutStatus(values[4])
    return Checkout(*values)


def new_checkout_id() -> str:
    """High entropy: a checkout id gives access to the address typed into it."""
    return "chk_" + secrets.token_urlsafe(24)


def get_checkout(conn: Connection, *, store_id: int, checkout_id: str) -> Checkout | None:
    row = conn.execute(
        _select().where(checkouts.c.store_id == store_id, checkouts.c.id == checkout_id)
    ).first()
    return _checkout(row) if row else None


def latest_checkout(conn: Connection, *, store_id: int, cart_id: int) -> Checkout | None:
    """The cart's checkout (a cart has at most one)."""
    row = conn.execute(_OF_CART, {"store_id": store_id, "cart_id": cart_id}).first()
    return _checkout(row) if row else None


def start_checkout(
    conn: Connection, *, store_id: int, cart: Cart, customer_id: int | None, now: datetime
) -> Checkout:
    """The cart's checkout: the existing one if there is one (starting again is harmless)."""
    existing = latest_checkout(conn, store_id=store_id, cart_id=cart.id)
    if existing is not None:
        if customer_id is not None and existing.customer_id is None:
            return update_checkout(conn, existing, {"customer_id": customer_id}, now=now)
        return existing
    checkout_id = new_checkout_id()
    conn.execute(
        insert(checkouts).values(
            id=checkout_id,
            store_id=store_id,
            cart_id=cart.id,
            customer_id=customer_id,
            status=CheckoutStatus.OPEN.value,
            created_at=now,
            updated_at=now,
        )
    )
    return Checkout(
        checkout_id,
        cart.id,
        cart.token,
        customer_id,
        CheckoutStatus.OPEN,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        now,
    )


def update_checkout(
    conn: Connection, checkout: Checkout, values: dict[str, Any], *, now: datetime
) -> Checkout:
    stored = {k: v.value if isinstance(v, StrEnum) else v for k, v in values.items()}
    conn.execute(
        update(checkouts).where(checkouts.c.id == checkout.id).values(**stored, updated_at=now)
    )
    return dataclasses.replace(checkout, **values, updated_at=now)
