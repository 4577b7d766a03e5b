"""Checkouts: one open checkout per cart, collecting address, shipping and payment choices."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update

from companion.db.commerce_schema import checkouts


@dataclass(frozen=True, slots=True)
class Checkout:
    id: str
    cart_id: int
    customer_id: int | None
    status: str  # open | completed
    email: str | None
    coupon_code: str | None
    address: dict[str, Any] | None
    shipping_method: str | None
    pickup_location_id: int | None
    payment_method: str | None
    order_id: int | None
    updated_at: datetime


_COLUMNS = (
    checkouts.c.id,
    checkouts.c.cart_id,
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
)


def new_checkout_id() -> str:
    """High entropy: a checkout id gives access to the address typed into it."""
    return "chk_" + secrets.token_urlsafe(24)


def get_checkout(conn: Connection, *, store_id: int, checkout_id: str) -> Checkout | None:
    row = conn.execute(
        select(*_COLUMNS).where(checkouts.c.store_id == store_id, checkouts.c.id == checkout_id)
    ).first()
    return Checkout(*row) if row else None


def latest_checkout(conn: Connection, *, store_id: int, cart_id: int) -> Checkout | None:
    """The cart's most recent checkout (open or completed)."""
    row = conn.execute(
        select(*_COLUMNS)
        .where(checkouts.c.store_id == store_id, checkouts.c.cart_id == cart_id)
        .order_by(checkouts.c.created_at.desc(), checkouts.c.id.desc())
        .limit(1)
    ).first()
    return Checkout(*row) if row else None


def start_checkout(
    conn: Connection,
    *,
    store_id: int,
    cart_id: int,
    customer_id: int | None,
    now: datetime,
) -> Checkout:
    """The cart's checkout: the existing one if there is one (starting again is harmless)."""
    existing = latest_checkout(conn, store_id=store_id, cart_id=cart_id)
    if existing is not None:
        if customer_id is not None and existing.customer_id is None:
            return update_checkout(conn, existing, {"customer_id": customer_id}, now=now)
        return existing
    checkout_id = new_checkout_id()
    conn.execute(
        insert(checkouts).values(
            id=checkout_id,
            store_id=store_id,
            cart_id=cart_id,
            customer_id=customer_id,
            status="open",
            created_at=now,
            updated_at=now,
        )
    )
    return Checkout(
        checkout_id, cart_id, customer_id, "open", None, None, None, None, None, None, None, now
    )


def update_checkout(
    conn: Connection, checkout: Checkout, values: dict[str, Any], *, now: datetime
) -> Checkout:
    conn.execute(
        update(checkouts).where(checkouts.c.id == checkout.id).values(**values, updated_at=now)
    )
    fields = {name: getattr(checkout, name) for name in Checkout.__dataclass_fields__}
    fields.update(values)
    fields["updated_at"] = now
    return Checkout(**fields)
