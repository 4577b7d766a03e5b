"""Product views (customer or anonymous session): recorded, then mined for recommendations."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, func, insert, select

from companion.db.commerce_schema import product_views
from companion.db.schema import products
from companion.product_cards import PUBLISHED

#: The products a view may name in a recommendation: published ones.
_SHOWN = (products.c.id == product_views.c.product_id) & PUBLISHED


def record_product_view(
    conn: Connection,
    *,
    store_id: int,
    product_id: int,
    customer_id: int | None,
    session_token: str | None,
    now: datetime,
) -> int:
    result = conn.execute(
        insert(product_views).values(
            store_id=store_id,
            customer_id=customer_id,
            session_token=session_token or None,
            product_id=product_id,
            viewed_at=now,
        )
    )
    assert result.inserted_primary_key is not None
    return int(result.inserted_primary_key[0])


def recently_viewed_ids(
    conn: Connection,
    *,
    store_id: int,
    customer_id: int | None,
    session_token: str | None,
    limit: int,
) -> list[int]:
    """Distinct published products, most recently viewed first, by the customer or else the
    session."""
    viewer = (
        product_views.c.customer_id == customer_id
        if customer_id is not None
        else product_views.c.session_token == session_token
    )
    last_seen = func.max(product_views.c.viewed_at)
    rows = conn.execute(
        select(product_views.c.product_id, last_seen)
        .join(products, _SHOWN)
        .where(product_views.c.store_id == store_id, viewer)
        .group_by(product_views.c.product_id)
        .order_by(last_seen.desc(), product_views.c.product_id.desc())
        .limit(limit)
    )
    return [product_id for product_id, _ in rows]


def also_viewed_ids(conn: Connection, *, store_id: int, product_id: int, limit: int) -> list[int]:
    """Published products most often viewed by the viewers (customers or sessions) of
    ``product_id``."""
    seen = product_views.alias("seen")
    other = product_views.alias("other")
    same_viewer = (
        seen.c.customer_id.is_not(None) & (other.c.customer_id == seen.c.customer_id)
    ) | (seen.c.session_token.is_not(None) & (other.c.session_token == seen.c.session_token))
    hits = func.count()
    rows = conn.execute(
        select(other.c.product_id, hits)
        .join(seen, same_viewer)
        .join(products, (products.c.id == other.c.product_id) & PUBLISHED)
        .where(
            seen.c.store_id == store_id,
            seen.c.product_id == product_id,
            other.c.store_id == store_id,
            other.c.product_id != product_id,
        )
        .group_by(other.c.product_id)
        .order_by(hits.desc(), other.c.product_id)
        .limit(limit)
    )
    return [pid for pid, _ in rows]
