"""Coupons, automatic order promotions and shipping thresholds as the back office edits them:
amounts, minimums, on or off; a new coupon. Checked here (plain exceptions); the checkout
reads the same rows, so a change counts from the next quote."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, insert, select, update
from sqlalchemy.exc import IntegrityError

from companion.db.commerce_schema import coupons, order_promotions, shipping_methods

MAX_AMOUNT = 10**12
KINDS = ("percent", "fixed")


class OfferRefused(ValueError):
    """A change that cannot be made (the message says why)."""


def offers(conn: Connection, *, store_id: int) -> dict[str, list[Row[Any]]]:
    return {
        "coupons": list(
            conn.execute(
                select(coupons).where(coupons.c.store_id == store_id).order_by(coupons.c.code)
            )
        ),
        "promotions": list(
            conn.execute(
                select(order_promotions)
                .where(order_promotions.c.store_id == store_id)
                .order_by(order_promotions.c.id)
            )
        ),
        "shipping": list(
            conn.execute(
                select(shipping_methods)
                .where(shipping_methods.c.store_id == store_id)
                .order_by(shipping_methods.c.position, shipping_methods.c.id)
            )
        ),
    }


def _value(kind: str, value: int) -> int:
    if kind not in KINDS:
        raise OfferRefused(f"kind is percent or fixed, not {kind[:20]!r}")
    if kind == "percent" and not 1 <= value <= 100:
        raise OfferRefused("a percent is 1 to 100")
    if kind == "fixed" and not 0 < value < MAX_AMOUNT:
        raise OfferRefused("an amount is above 0 ₫")
    return value


def _amount(value: int | None) -> int | None:
    if value is not None and not 0 <= value < MAX_AMOUNT:
        raise OfferRefused("an amount is 0 ₫ or more")
    return value


def add_coupon(
    conn: Connection, *, store_id: int, code: str, kind: str, value: int, min_order: int
) -> None:
    code = code.strip().upper()
    if not code or len(code) > 50 or not code.replace("-", "").replace("_", "").isalnum():
        raise OfferRefused("a code is 1 to 50 letters, digits, - or _")
    try:
        with conn.begin_nested():
            conn.execute(
                insert(coupons).values(
                    store_id=store_id,
                    code=code,
                    kind=kind,
                    value=_value(kind, value),
                    min_order=_amount(min_order) or 0,
                    used_count=0,
                    active=True,
                )
            )
    except IntegrityError:
        raise OfferRefused(f"the code {code} exists already") from None


def _changed(
    conn: Connection, table: Any, store_id: int, row_id: int, values: dict[str, Any]
) -> str:
    row = conn.execute(
        select(table).where(table.c.store_id == store_id, table.c.id == row_id)
    ).first()
    if row is None:
        raise OfferRefused(f"no such row {row_id}")
    conn.execute(update(table).where(table.c.id == row_id).values(**values))
    return str(getattr(row, "code", None) or getattr(row, "label", ""))


def set_coupon(
    conn: Connection, *, store_id: int, coupon_id: int, value: int, min_order: int, active: bool
) -> str:
    kind = conn.execute(
        select(coupons.c.kind).where(coupons.c.store_id == store_id, coupons.c.id == coupon_id)
    ).scalar()
    if kind is None:
        raise OfferRefused(f"no coupon {coupon_id}")
    values = {"value": _value(kind, value), "min_order": _amount(min_order), "active": active}
    return _changed(conn, coupons, store_id, coupon_id, values)


def set_promotion(
    conn: Connection, *, store_id: int, promotion_id: int, value: int, min_order: int, active: bool
) -> str:
    kind = conn.execute(
        select(order_promotions.c.kind).where(
            order_promotions.c.store_id == store_id, order_promotions.c.id == promotion_id
        )
    ).scalar()
    if kind is None:
        raise OfferRefused(f"no promotion {promotion_id}")
    values = {"value": _value(kind, value), "min_order": _amount(min_order), "active": active}
    return _changed(conn, order_promotions, store_id, promotion_id, values)


def set_shipping(
    conn: Connection,
    *,
    store_id: int,
    method_id: int,
    fee: int,
    free_over: int | None,
    enabled: bool,
) -> str:
    values = {"fee": _amount(fee), "free_over": _amount(free_over), "enabled": enabled}
    return _changed(conn, shipping_methods, store_id, method_id, values)
