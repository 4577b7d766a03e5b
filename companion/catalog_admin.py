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

from sqlalchemy import Connection, Table, delete, insert, update

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
}
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
    return row


def create_entity(
    conn: Connection, entity: Entity, values: dict[str, Any], *, store_id: int, now: datetime
) -> int:
    table = TABLES[entity]
    row = _checked(entity, values)
    row.update(store_id=store_id, updated_at=now)
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
        .values(**row, updated_at=now)
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
