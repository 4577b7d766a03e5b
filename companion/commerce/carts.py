"""Carts in the database: found by their high-entropy token, items replaced as a whole."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from companion.commerce_states import CartStatus
from companion.db.commerce_schema import cart_items, carts


@dataclass(frozen=True, slots=True)
class Cart:
    id: int
    token: str
    customer_id: int | None
    status: CartStatus
    updated_at: datetime


def new_cart_token() -> str:
    """256 bits from the OS: the token is the only credential of an anonymous cart."""
    return secrets.token_urlsafe(32)


def _cart(row: Any) -> Cart:
    return Cart(row[0], row[1], row[2], CartStatus(row[3]), row[4])


_COLUMNS = (carts.c.id, carts.c.token, carts.c.customer_id, carts.c.status, carts.c.updated_at)
# The statements of every cart write and quote, built once (values bound at each call), so no
# request pays for building them.
_BY_TOKEN = select(*_COLUMNS).where(
    carts.c.store_id == bindparam("store_id"), carts.c.token == bindparam("token")
)
_ITEMS = (
    select(cart_items.c.variant_id, cart_items.c.quantity)
    .where(cart_items.c.cart_id == bindparam("cart_id"))
    .order_by(cart_items.c.position, cart_items.c.id)
)
_CLEAR_ITEMS = delete(cart_items).where(cart_items.c.cart_id == bindparam("cart_id"))
_INSERT_ITEMS = insert(cart_items)
# Its SET clause is the columns named in each call's values.
_TOUCH = update(carts).where(carts.c.id == bindparam("cart"))
_HOLD = update(carts).where(
    carts.c.id == bindparam("cart"), carts.c.status == CartStatus.ACTIVE.value
)


def find_cart(conn: Connection, *, store_id: int, token: str) -> Cart | None:
    row = conn.execute(_BY_TOKEN, {"store_id": store_id, "token": token}).first()
    return _cart(row) if row else None


def customer_cart(conn: Connection, *, store_id: int, customer_id: int) -> Cart | None:
    """The customer's most recently touched active cart."""
    row = conn.execute(
        select(*_COLUMNS)
        .where(
            carts.c.store_id == store_id,
            carts.c.customer_id == customer_id,
            carts.c.status == CartStatus.ACTIVE.value,
        )
        .order_by(carts.c.updated_at.desc(), carts.c.id.desc())
        .limit(1)
    ).first()
    return _cart(row) if row else None


def create_cart(conn: Connection, *, store_id: int, customer_id: int | None, now: datetime) -> Cart:
    token = new_cart_token()
    cart_id = conn.execute(
        insert(carts).values(
            store_id=store_id,
            token=token,
            customer_id=customer_id,
            status=CartStatus.ACTIVE.value,
            created_at=now,
            updated_at=now,
        )
    ).inserted_primary_key
    assert cart_id is not None
    return Cart(int(cart_id[0]), token, customer_id, CartStatus.ACTIVE, now)


def item_quantities(conn: Connection, cart: Cart) -> list[tuple[int, int]]:
    """(variant_id, quantity) in the order the customer put them in."""
    rows = conn.execute(_ITEMS, {"cart_id": cart.id})
    return [(variant_id, quantity) for variant_id, quantity in rows]


def replace_items(
    conn: Connection,
    cart: Cart,
    *,
    store_id: int,
    items: Sequence[tuple[int, int]],
    now: datetime,
) -> Cart:
    conn.execute(_CLEAR_ITEMS, {"cart_id": cart.id})
    if items:
        conn.execute(
            _INSERT_ITEMS,
            [
                {
                    "store_id": store_id,
                    "cart_id": cart.id,
                    "variant_id": variant_id,
                    "quantity": quantity,
                    "position": position,
                }
                for position, (variant_id, quantity) in enumerate(items)
            ],
        )
    return touch(conn, cart, now=now)


def hold_active(conn: Connection, cart: Cart, *, now: datetime) -> Cart | None:
    """``cart`` held for the rest of the transaction while it is still active, before its items
    are read or written; None: it was ordered or merged meanwhile.

    Its row is written first (PostgreSQL's row lock, SQLite's write lock), so placing its order,
    changing its items and merging it take turns: an order is placed with the items it was
    priced from, and no item changes once it is placed."""
    if conn.execute(_HOLD, {"cart": cart.id, "updated_at": now}).rowcount == 0:
        return None
    return Cart(cart.id, cart.token, cart.customer_id, CartStatus.ACTIVE, now)


def touch(
    conn: Connection,
    cart: Cart,
    *,
    now: datetime,
    status: CartStatus | None = None,
    customer_id: int | None = None,
) -> Cart:
    values: dict[str, object] = {"cart": cart.id, "updated_at": now}
    if status is not None:
        values["status"] = status.value
    if customer_id is not None:
        values["customer_id"] = customer_id
    conn.execute(_TOUCH, values)  # sets the columns named in ``values``
    return Cart(
        cart.id,
        cart.token,
        customer_id if customer_id is not None else cart.customer_id,
        status or cart.status,
        now,
    )


def combine_quantities(
    first: Sequence[tuple[int, int]], second: Sequence[tuple[int, int]], *, cap: int
) -> list[tuple[int, int]]:
    """Items of both carts: the same variant once, quantities added (at most ``cap``)."""
    totals: dict[int, int] = {}
    for variant_id, quantity in [*first, *second]:
        totals[variant_id] = min(cap, totals.get(variant_id, 0) + quantity)
    return list(totals.items())
