"""Catalogue writes for the merchant side, which the public API does not have.

A small internal Python API (the CLI, seeders and tests use it): each write keeps derived
columns in step (``search_name``, ``search_title``, ``updated_at``) and queues the matching
content-change webhook event in the same transaction, so a CI job subscribed to the companion
can rebuild the static site when content changes.

    set_product_price(conn, store_id=1, product_id=12, price=199_000, now=now)
    update_entity(conn, Entity.CATEGORY, 3, {"name": "Áo"}, store_id=1, now=now)
    delete_entity(conn, Entity.PRODUCT, 12, store_id=1, now=now)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, delete, insert, select, update

from companion.db import commerce_schema as c
from companion.db import schema as t
from companion.text import fold
from companion.webhooks.events import Action, Entity
from companion.webhooks.queue import emit

TABLES: dict[Entity, Table] = {
    Entity.PRODUCT: t.products,
    Entity.CATEGORY: t.categories,
    Entity.COLLECTION: t.collections,
    Entity.ARTICLE: t.articles,
    Entity.PAGE: t.pages,
    Entity.MENU: t.menus,
    Entity.BANNER: t.banners,
    Entity.COUPON: c.coupons,
    Entity.PROMOTION: t.promotions,
    Entity.ORDER_PROMOTION: c.order_promotions,
    Entity.SHIPPING_METHOD: c.shipping_methods,
    Entity.FLASH_SALE: t.flash_sales,
}
#: A product's own rows: written through the product, announced as ``product.updated``.
PARTS: dict[str, Table] = {"variants": t.variants, "images": t.product_images}
#: Columns derived from others: never written directly.
DERIVED = {"id", "store_id", "search_name", "search_title", "created_at", "updated_at"}


class CatalogError(LookupError):
    """The entity does not exist in the store, or a change names an unknown column."""


def _checked(entity: Entity, values: dict[str, Any]) -> dict[str, Any]:
    table = TABLES[entity]
    unknown = sorted(set(values) - (set(table.c.keys()) - DERIVED))
    if unknown:
        raise CatalogError(f"{entity.value} has no writable column(s): {', '.join(unknown)}")
    row = dict(values)
    if entity is Entity.PRODUCT and "name" in row:
        row["search_name"] = fold(row["name"])
    if entity is Entity.ARTICLE and "title" in row:
        row["search_title"] = fold(row["title"])
    if entity is Entity.COUPON and isinstance(row.get("code"), str):
        row["code"] = row["code"].upper()  # matched case-insensitively against upper case
    return row


def _stamped(table: Table, row: dict[str, Any], now: datetime) -> dict[str, Any]:
    return {**row, "updated_at": now} if "updated_at" in table.c else row


def create_entity(
    conn: Connection, entity: Entity, values: dict[str, Any], *, store_id: int, now: datetime
) -> int:
    table = TABLES[entity]
    row = _checked(entity, values)
    row = _stamped(table, row, now)
    row["store_id"] = store_id
    if "created_at" in table.c:
        row["created_at"] = now
    result = conn.execute(insert(table).values(**row))
    assert result.inserted_primary_key is not None
    entity_id = int(result.inserted_primary_key[0])
    emit(
        conn,
        store_id=store_id,
        entity=entity,
        action=Action.CREATED,
        entity_id=entity_id,
        changed=sorted(values),
        now=now,
    )
    return entity_id


def update_entity(
    conn: Connection,
    entity: Entity,
    entity_id: int,
    changes: dict[str, Any],
    *,
    store_id: int,
    now: datetime,
) -> None:
    table = TABLES[entity]
    row = _checked(entity, changes)
    changed = conn.execute(
        update(table)
        .where(table.c.store_id == store_id, table.c.id == entity_id)
        .values(**_stamped(table, row, now))
    )
    if changed.rowcount != 1:
        raise CatalogError(f"no {entity.value} {entity_id} in store {store_id}")
    emit(
        conn,
        store_id=store_id,
        entity=entity,
        action=Action.UPDATED,
        entity_id=entity_id,
        changed=sorted(changes),
        now=now,
    )


def delete_entity(
    conn: Connection, entity: Entity, entity_id: int, *, store_id: int, now: datetime
) -> None:
    table = TABLES[entity]
    removed = conn.execute(
        delete(table).where(table.c.store_id == store_id, table.c.id == entity_id)
    )
    if removed.rowcount != 1:
        raise CatalogError(f"no {entity.value} {entity_id} in store {store_id}")
    emit(
        conn,
        store_id=store_id,
        entity=entity,
        action=Action.DELETED,
        entity_id=entity_id,
        changed=[],
        now=now,
    )


def set_product_price(
    conn: Connection,
    *,
    store_id: int,
    product_id: int,
    price: int | None,
    now: datetime,
) -> None:
    """A new price (None: no price yet) for the product and every one of its variants: a
    variant's own price is what the cart and the order charge, so one edit sets all of them.
    Emits ``product.updated`` with changed [price]."""
    update_entity(conn, Entity.PRODUCT, product_id, {"price": price}, store_id=store_id, now=now)
    conn.execute(
        update(t.variants)
        .where(t.variants.c.store_id == store_id, t.variants.c.product_id == product_id)
        .values(price=price, updated_at=now)
    )


def write_child(
    conn: Connection,
    table: Table,
    parent: dict[str, int],
    row_id: int | None,
    values: dict[str, Any] | None,
    *,
    missing: str,
) -> int:
    """Insert (``row_id`` None), delete (``values`` None) or update a row of ``table`` under
    ``parent`` (its store's and its owner's ids, column by column); the row's id.
    ``CatalogError(missing)`` when the row to change is not there."""
    if row_id is None:
        assert values is not None, "the caller refuses a create with nothing to create"
        result = conn.execute(insert(table).values(**values, **parent))
        assert result.inserted_primary_key is not None
        return int(result.inserted_primary_key[0])
    mine = [table.c[name] == value for name, value in parent.items()]
    if values is None:
        changed = conn.execute(delete(table).where(*mine, table.c.id == row_id))
    else:
        changed = conn.execute(update(table).where(*mine, table.c.id == row_id).values(**values))
    if changed.rowcount != 1:
        raise CatalogError(missing)
    return row_id


def write_part(
    conn: Connection,
    part: str,
    product_id: int,
    part_id: int | None,
    values: dict[str, Any] | None,
    *,
    store_id: int,
    now: datetime,
) -> int:
    """Create (``part_id`` None), update or delete (``values`` None) a variant or an image of a
    product; emits ``product.updated`` with changed [``part``]. The row's id."""
    table = PARTS[part]
    if values is not None:
        unknown = sorted(set(values) - (set(table.c.keys()) - DERIVED - {"product_id"}))
        if unknown:
            raise CatalogError(f"{part} have no writable column(s): {', '.join(unknown)}")
        values = _stamped(table, values, now)
    if part_id is None:
        if values is None:
            raise CatalogError(f"nothing to create for {part}")
        exists = conn.execute(
            select(t.products.c.id).where(
                t.products.c.store_id == store_id, t.products.c.id == product_id
            )
        ).first()
        if exists is None:
            raise CatalogError(f"no product {product_id} in store {store_id}")
    part_id = write_child(
        conn,
        table,
        {"store_id": store_id, "product_id": product_id},
        part_id,
        values,
        missing=f"no {part} {part_id} of product {product_id}",
    )
    conn.execute(
        update(t.products)
        .where(t.products.c.store_id == store_id, t.products.c.id == product_id)
        .values(updated_at=now)
    )
    emit(
        conn,
        store_id=store_id,
        entity=Entity.PRODUCT,
        action=Action.UPDATED,
        entity_id=product_id,
        changed=[part],
        now=now,
    )
    return part_id
