"""Products as the back office lists and quick-edits them: price and stock.

One price for a product: the card shows the product's price, the page and the cart its
variants'; a quick edit sets both (``catalog_admin.set_product_price``), so they never
disagree. A variant price changed on its own (a CSV import) leaves the product at its lowest
variant price. Each change is written through the catalogue's internal API, which queues the
``product.updated`` content-change webhook.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select, update

from companion.catalog_admin import CatalogError, set_product_price
from companion.db import schema as t
from companion.text import fold
from companion.webhooks.events import Action, Entity
from companion.webhooks.queue import emit

PAGE = 50
MAX_PRICE = 10**12


class EditRefused(ValueError):
    """A quick edit that cannot be made (an unknown product, a price out of range)."""


@dataclass(frozen=True, slots=True)
class VariantLine:
    id: int
    name: str
    sku: str
    price: int | None
    stock: int | None


@dataclass(frozen=True, slots=True)
class ProductLine:
    id: int
    name: str
    slug: str
    price: int | None
    status: str
    variants: list[VariantLine]


def list_products(
    conn: Connection,
    *,
    store_id: int,
    search: str = "",
    offset: int = 0,
    limit: int = PAGE,
    ids: list[int] | None = None,
) -> list[ProductLine]:
    query = select(t.products).where(t.products.c.store_id == store_id)
    if ids is not None:
        query = query.where(t.products.c.id.in_(ids))
    if search.strip():
        query = query.where(t.products.c.search_name.contains(fold(search.strip())))
    rows = list(conn.execute(query.order_by(t.products.c.id).offset(offset).limit(limit)))
    by_product: dict[int, list[VariantLine]] = {row.id: [] for row in rows}
    if by_product:
        for v in conn.execute(
            select(t.variants)
            .where(t.variants.c.product_id.in_(list(by_product)))
            .order_by(t.variants.c.position, t.variants.c.id)
        ):
            by_product[v.product_id].append(
                VariantLine(v.id, v.name, v.sku or "", v.price, v.stock)
            )
    return [
        ProductLine(row.id, row.name, row.slug, row.price, row.status, by_product[row.id])
        for row in rows
    ]


def product_line(conn: Connection, *, store_id: int, product_id: int) -> ProductLine:
    found = list_products(conn, store_id=store_id, ids=[product_id])
    if not found:
        raise EditRefused(f"no product {product_id}")
    return found[0]


def check_price(price: int) -> int:
    if not 0 <= price < MAX_PRICE:
        raise EditRefused(f"a price is 0 to {MAX_PRICE - 1} ₫")
    return price


def set_price(
    conn: Connection, *, store_id: int, product_id: int, price: int, now: datetime
) -> None:
    """The product's price and every variant's (the catalogue's one price edit): cards, pages,
    cart and orders then agree."""
    try:
        set_product_price(
            conn, store_id=store_id, product_id=product_id, price=check_price(price), now=now
        )
    except CatalogError as exc:
        raise EditRefused(str(exc)) from None


def set_variant(
    conn: Connection,
    *,
    store_id: int,
    product_id: int,
    variant_id: int,
    changes: dict[str, Any],
    now: datetime,
) -> None:
    """A variant's price, compare-at price or stock; the product then shows its lowest price.
    Its siblings without a price of their own (the product's, until now) keep that price."""
    if "price" in changes:
        own = conn.execute(
            select(t.products.c.price).where(
                t.products.c.store_id == store_id, t.products.c.id == product_id
            )
        ).scalar()
        conn.execute(
            update(t.variants)
            .where(t.variants.c.product_id == product_id, t.variants.c.price.is_(None))
            .values(price=own)
        )
    done = conn.execute(
        update(t.variants)
        .where(
            t.variants.c.store_id == store_id,
            t.variants.c.product_id == product_id,
            t.variants.c.id == variant_id,
        )
        .values(**changes, updated_at=now)
    )
    if done.rowcount != 1:
        raise EditRefused(f"no variant {variant_id} of product {product_id}")
    product_changes: dict[str, Any] = {}
    if "price" in changes:
        lowest = conn.execute(
            select(func.min(t.variants.c.price)).where(t.variants.c.product_id == product_id)
        ).scalar()
        product_changes["price"] = lowest
    touched(conn, store_id=store_id, product_id=product_id, values=product_changes, now=now)
    emit(
        conn,
        store_id=store_id,
        entity=Entity.PRODUCT,
        action=Action.UPDATED,
        entity_id=product_id,
        changed=sorted({"variants", *product_changes}),
        now=now,
    )


def touched(
    conn: Connection, *, store_id: int, product_id: int, values: dict[str, Any], now: datetime
) -> None:
    conn.execute(
        update(t.products)
        .where(t.products.c.store_id == store_id, t.products.c.id == product_id)
        .values(**values, updated_at=now)
    )


def set_stock(
    conn: Connection,
    *,
    store_id: int,
    product_id: int,
    variant_id: int,
    stock: int | None,
    now: datetime,
) -> None:
    if stock is not None and not 0 <= stock < 10**9:
        raise EditRefused("a stock is 0 or more")
    set_variant(
        conn,
        store_id=store_id,
        product_id=product_id,
        variant_id=variant_id,
        changes={"stock": stock},
        now=now,
    )
