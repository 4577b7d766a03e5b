"""Read variants with the prices in force, for carts, quotes and orders.

Every cart write, quote and order prices its lines here, so the two statements are built once,
with their values bound at each call, rather than built again by every call.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, bindparam, select

from companion.commerce.quote import PricedLine
from companion.db.schema import flash_sale_products, flash_sales, products, variants
from companion.pricing import discounted

#: The variants asked for (``ids``) of a store, with their product's name, price and status.
_VARIANT_ROWS = (
    select(
        variants.c.id.label("variant_id"),
        variants.c.product_id,
        variants.c.name.label("variant_name"),
        variants.c.sku,
        variants.c.price.label("variant_price"),
        variants.c.stock,
        variants.c.on_sale,
        variants.c.image_url.label("variant_image"),
        products.c.name,
        products.c.price.label("product_price"),
        products.c.url,
        products.c.image_url,
        products.c.status,
    )
    .join(products, products.c.id == variants.c.product_id)
    .where(
        variants.c.store_id == bindparam("store_id"),
        variants.c.id.in_(bindparam("ids", expanding=True)),
    )
)
#: The flash sales of a store running at ``now`` on any of ``product_ids``, deepest first.
_RUNNING_SALES = (
    select(
        flash_sale_products.c.product_id,
        flash_sales.c.id,
        flash_sales.c.discount_percent,
    )
    .join(flash_sales, flash_sales.c.id == flash_sale_products.c.flash_sale_id)
    .where(
        flash_sales.c.store_id == bindparam("store_id"),
        flash_sale_products.c.product_id.in_(bindparam("product_ids", expanding=True)),
        flash_sales.c.starts_at <= bindparam("now"),
        flash_sales.c.ends_at > bindparam("now"),
    )
    .order_by(flash_sales.c.discount_percent.desc(), flash_sales.c.id)
)


def price_variants(
    conn: Connection,
    *,
    store_id: int,
    quantities: Sequence[tuple[int, int]],
    now: datetime,
) -> list[PricedLine]:
    """One line per known ``(variant_id, quantity)``, in the given order; unknown ids are left out.

    A line is unavailable (never charged, never ordered) when its product is not published, the
    variant is off sale, or there is no price yet.
    """
    ids = [variant_id for variant_id, _ in quantities]
    if not ids:
        return []
    rows = {
        row.variant_id: row
        for row in conn.execute(_VARIANT_ROWS, {"store_id": store_id, "ids": ids})
    }
    sales = _running_flash_sales(
        conn, store_id=store_id, product_ids={r.product_id for r in rows.values()}, now=now
    )
    lines: list[PricedLine] = []
    for variant_id, quantity in quantities:
        row = rows.get(variant_id)
        if row is None:
            continue
        # A variant without its own price sells at the product's price.
        price = row.variant_price if row.variant_price is not None else row.product_price
        available = row.status == "published" and bool(row.on_sale) and price is not None
        list_price = price or 0
        sale = sales.get(row.product_id)
        unit_price = discounted(list_price, sale[1] if sale else None) or 0
        lines.append(
            PricedLine(
                variant_id=variant_id,
                product_id=row.product_id,
                name=row.name,
                variant_name=row.variant_name,
                sku=row.sku,
                quantity=quantity,
                list_price=list_price,
                unit_price=unit_price,
                flash_sale_id=sale[0] if sale else None,
                image_url=row.variant_image or row.image_url,
                url=row.url or None,
                stock=row.stock,
                available=available,
            )
        )
    return lines


def _running_flash_sales(
    conn: Connection, *, store_id: int, product_ids: set[int], now: datetime
) -> dict[int, tuple[int, int]]:
    """product id -> (flash sale id, discount percent) of its deepest running sale."""
    if not product_ids:
        return {}
    rows = conn.execute(
        _RUNNING_SALES,
        {"store_id": store_id, "product_ids": sorted(product_ids), "now": now},
    )
    best: dict[int, tuple[int, int]] = {}
    for product_id, sale_id, percent in rows:
        best.setdefault(product_id, (sale_id, percent))
    return best
