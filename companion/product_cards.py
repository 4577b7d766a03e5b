"""Product rows to ProductCards: the running flash-sale price and stock.

Two ways, one result:
- ``card_select``: one query whose rows carry the discount and the stock flag as columns
  (correlated subqueries, evaluated for the rows returned only); ``card_of`` turns a row into
  the card's fields. The hot read routes use it: one round trip per page.
- ``build_cards`` / ``card_values``: cards of rows already loaded, with two batched queries per
  page (discounts, variant stock), never one per product.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    ColumnElement,
    Connection,
    DateTime,
    Integer,
    Select,
    bindparam,
    case,
    func,
    or_,
    select,
)
from sqlalchemy import type_coerce as as_type

from companion.db.schema import flash_sale_products, flash_sales, products, variants
from companion.pricing import discounted, product_in_stock
from companion.schemas.read import ProductCard
from companion.wire_values import clean_url, wire

CARD_COLUMNS = (
    products.c.id,
    products.c.name,
    products.c.slug,
    products.c.url,
    products.c.price,
    products.c.compare_at_price,
    products.c.image_url,
    products.c.category_id,
    products.c.brand_id,
    products.c.created_at,
    products.c.updated_at,
)

PUBLISHED = products.c.status == "published"


def discount_column(store_id: int, now: datetime) -> ColumnElement[Any]:
    """The largest discount among the flash sales running now that include the row's product
    (NULL when none does); correlated to ``products``."""
    return (
        select(func.max(flash_sales.c.discount_percent))
        .select_from(
            flash_sale_products.join(
                flash_sales, flash_sales.c.id == flash_sale_products.c.flash_sale_id
            )
        )
        .where(
            flash_sale_products.c.product_id == products.c.id,
            flash_sales.c.store_id == store_id,
            flash_sales.c.starts_at <= now,
            flash_sales.c.ends_at > now,
        )
        .scalar_subquery()
    )


def in_stock_column(store_id: int) -> ColumnElement[bool]:
    """``product_in_stock`` in SQL: no variant on sale, or one on sale that is in stock.
    One correlated aggregate (not EXISTS, which PostgreSQL turns into a scan of every variant
    of the store): the product's variants are read through their index, for the rows returned."""
    available = func.count(case((or_(variants.c.stock.is_(None), variants.c.stock > 0), 1)))
    flag = (
        select(or_(func.count() == 0, available > 0))
        .where(
            variants.c.product_id == products.c.id,
            variants.c.store_id == store_id,
            variants.c.on_sale.is_(True),
        )
        .scalar_subquery()
    )
    return as_type(flag, Boolean)


def card_select(store_id: int, now: datetime, *columns: Any) -> Select[Any]:
    """Card columns (then ``columns``) of products, with ``discount`` and ``in_stock``."""
    return select(
        *CARD_COLUMNS,
        *columns,
        discount_column(store_id, now).label("discount"),
        in_stock_column(store_id).label("in_stock"),
    )


#: Parameters of statements built once per process (``bound_card_select``): a statement reused
#: as it is skips SQLAlchemy's building and cache-keying on every read.
STORE = bindparam("store_id", type_=Integer)
NOW = bindparam("now", type_=DateTime)


def bound_card_select(*columns: Any) -> Select[Any]:
    """``card_select`` for parameters ``store_id`` and ``now``, given when it is executed."""
    return card_select(STORE, NOW, *columns)  # type: ignore[arg-type]


def card_of(row: Any) -> dict[str, Any]:
    """The card fields of a ``card_select`` row."""
    return card_fields(row, row.discount, bool(row.in_stock))


def running_discounts(
    conn: Connection, store_id: int, product_ids: Sequence[int], now: datetime
) -> dict[int, int]:
    """product id -> the largest discount among flash sales running now that include it."""
    if not product_ids:
        return {}
    query = (
        select(flash_sale_products.c.product_id, func.max(flash_sales.c.discount_percent))
        .join(flash_sales, flash_sales.c.id == flash_sale_products.c.flash_sale_id)
        .where(
            flash_sales.c.store_id == store_id,
            flash_sales.c.starts_at <= now,
            flash_sales.c.ends_at > now,
            flash_sale_products.c.product_id.in_(product_ids),
        )
        .group_by(flash_sale_products.c.product_id)
    )
    return {pid: int(d) for pid, d in conn.execute(query)}


def variant_stocks(
    conn: Connection, store_id: int, product_ids: Sequence[int]
) -> dict[int, list[int | None]]:
    """product id -> stock of each variant on sale (None: untracked)."""
    if not product_ids:
        return {}
    query = select(variants.c.product_id, variants.c.stock).where(
        variants.c.store_id == store_id,
        variants.c.on_sale.is_(True),
        variants.c.product_id.in_(product_ids),
    )
    stocks: dict[int, list[int | None]] = defaultdict(list)
    for pid, stock in conn.execute(query):
        stocks[pid].append(stock)
    return stocks


def card_fields(row: Any, discount: int | None, in_stock: bool) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "slug": row.slug,
        "url": clean_url(row.url),
        "price": row.price,
        "effective_price": discounted(row.price, discount),
        "compare_at_price": row.compare_at_price,
        "image_url": row.image_url,
        "in_stock": in_stock,
        "category_id": row.category_id,
        "brand_id": row.brand_id,
        "updated_at": wire(row.updated_at),
    }


def card_values(
    conn: Connection,
    store_id: int,
    rows: Sequence[Any],
    now: datetime,
    *,
    fixed_discount: int | None = None,
) -> list[dict[str, Any]]:
    """Card fields of each row; ``fixed_discount`` replaces the running sales (one sale's page)."""
    ids = [row.id for row in rows]
    discounts = running_discounts(conn, store_id, ids, now) if fixed_discount is None else {}
    stocks = variant_stocks(conn, store_id, ids)
    return [
        card_fields(
            row,
            fixed_discount if fixed_discount is not None else discounts.get(row.id),
            product_in_stock(stocks.get(row.id, [])),
        )
        for row in rows
    ]


def build_cards(
    conn: Connection,
    store_id: int,
    rows: Sequence[Any],
    now: datetime,
    *,
    fixed_discount: int | None = None,
) -> list[ProductCard]:
    values = card_values(conn, store_id, rows, now, fixed_discount=fixed_discount)
    return [ProductCard(**v) for v in values]
