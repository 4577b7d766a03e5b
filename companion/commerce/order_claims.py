"""A guest order joined to a customer's account by proof of possession: its code and the phone
it was placed with. Never by e-mail: anyone can register with an e-mail they do not own, and an
unverified e-mail proves nothing (docs/orders.md)."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Connection, Row, func, select, update

from companion.db.commerce_schema import orders

_SEPARATORS = re.compile(r"[\s().\-]")


def phone_digits(phone: str) -> str:
    """A Vietnamese phone as one string of digits: separators dropped, +84 read as 0."""
    digits = _SEPARATORS.sub("", phone)
    return "0" + digits[3:] if digits.startswith("+84") else digits


def claim_order(
    conn: Connection, *, store_id: int, customer_id: int, code: str, phone: str
) -> Row[Any] | None:
    """The order, now the customer's, when ``code`` and ``phone`` match a guest order (or one
    already theirs); else None. The join is one conditional update: of two customers claiming
    one order at once, only the first gets it."""
    row = conn.execute(
        select(orders).where(
            orders.c.store_id == store_id, func.upper(orders.c.code) == code.strip().upper()
        )
    ).first()
    if row is None or row.customer_id not in (None, customer_id):
        return None
    placed_with = str((row.address or {}).get("phone") or "")
    if not placed_with or phone_digits(placed_with) != phone_digits(phone):
        return None
    if row.customer_id is None:
        joined = conn.execute(
            update(orders)
            .where(orders.c.id == row.id, orders.c.customer_id.is_(None))
            .values(customer_id=customer_id)
        )
        if joined.rowcount != 1:
            return None
    return conn.execute(select(orders).where(orders.c.id == row.id)).first()
