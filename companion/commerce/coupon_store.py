"""Coupons and automatic promotions in the database."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, bindparam, insert, or_, select, union, update

from companion.commerce.discounts import Coupon, DiscountKind, DiscountRule, normalize_code
from companion.commerce.quote import Promotion
from companion.db.commerce_schema import (
    coupon_usages,
    coupons,
    order_promotion_categories,
    order_promotions,
)
from companion.db.schema import categories, product_categories, products


def find_coupon(conn: Connection, *, store_id: int, code: str) -> tuple[int, Coupon] | None:
    """(coupon id, coupon) for an entered code, matched case-insensitively."""
    row = conn.execute(
        select(coupons).where(
            coupons.c.store_id == store_id, coupons.c.code == normalize_code(code)
        )
    ).first()
    if row is None:
        return None
    return row.id, Coupon(row.code, _rule(row), bool(row.active), row.usage_limit, row.used_count)


# Read by every quote and order: built once, the store bound at each call.
_ACTIVE_PROMOTIONS = (
    select(order_promotions)
    .where(
        order_promotions.c.store_id == bindparam("store_id"),
        order_promotions.c.active.is_(True),
    )
    .order_by(order_promotions.c.id)
)


def active_promotions(
    conn: Connection, *, store_id: int, product_ids: Collection[int]
) -> list[Promotion]:
    """Promotions switched on, those limited to categories knowing which of ``product_ids``
    (the cart's) they count; whether each runs now is the quote's business."""
    rows = conn.execute(_ACTIVE_PROMOTIONS, {"store_id": store_id}).all()
    limited = _limited_products(conn, store_id=store_id, product_ids=product_ids)
    return [
        Promotion(
            row.label,
            _rule(row),
            frozenset(limited.get(row.id, ())) if row.id in limited else None,
            row.min_quantity,
        )
        for row in rows
    ]


def _limited_products(
    conn: Connection, *, store_id: int, product_ids: Collection[int]
) -> dict[int, set[int]]:
    """For each promotion limited to categories: which of ``product_ids`` are in one of them
    (as primary or secondary category, or a child of one). A limited promotion is always a
    key, even with no product of the cart."""
    links = order_promotion_categories
    limited: dict[int, set[int]] = {
        row.promotion_id: set()
        for row in conn.execute(
            select(links.c.promotion_id).distinct().where(links.c.store_id == store_id)
        )
    }
    if not limited or not product_ids:
        return limited
    placed = union(
        select(products.c.id.label("product_id"), products.c.category_id).where(
            products.c.store_id == store_id, products.c.id.in_(product_ids)
        ),
        select(product_categories.c.product_id, product_categories.c.category_id).where(
            product_categories.c.store_id == store_id,
            product_categories.c.product_id.in_(product_ids),
        ),
    ).subquery()
    rows = conn.execute(
        select(links.c.promotion_id, placed.c.product_id)
        .select_from(placed)
        .join(categories, categories.c.id == placed.c.category_id)
        .join(
            links,
            or_(
                links.c.category_id == categories.c.id,
                links.c.category_id == categories.c.parent_id,
            ),
        )
        .where(links.c.store_id == store_id)
    )
    for row in rows:
        limited[row.promotion_id].add(row.product_id)
    return limited


def claim_coupon_use(conn: Connection, *, store_id: int, code: str) -> int | None:
    """Count one use of ``code``, atomically within its usage limit: the coupon's id, or None
    when the limit was reached first. The check and the count are one statement, so concurrent
    orders cannot both take a last use (PostgreSQL checks the row again after waiting for its
    lock; SQLite runs one writer at a time)."""
    claimed: int | None = conn.execute(
        update(coupons)
        .where(
            coupons.c.store_id == store_id,
            coupons.c.code == normalize_code(code),
            or_(coupons.c.usage_limit.is_(None), coupons.c.used_count < coupons.c.usage_limit),
        )
        .values(used_count=coupons.c.used_count + 1)
        .returning(coupons.c.id)
    ).scalar_one_or_none()
    return claimed


def record_coupon_use(
    conn: Connection,
    *,
    store_id: int,
    coupon_id: int,
    code: str,
    customer_id: int | None,
    order_id: int,
    now: datetime,
) -> None:
    """The order's line in the coupon's history (GET /customer/coupons), for a claimed use."""
    conn.execute(
        insert(coupon_usages).values(
            store_id=store_id,
            customer_id=customer_id,
            coupon_id=coupon_id,
            coupon_code=code,
            order_id=order_id,
            used_at=now,
        )
    )


def _rule(row: Row[Any]) -> DiscountRule:
    """The discount of a coupons or order_promotions row (both tables share these columns)."""
    return DiscountRule(
        DiscountKind(row.kind),
        row.value,
        row.min_order,
        row.max_discount,
        row.starts_at,
        row.ends_at,
    )
