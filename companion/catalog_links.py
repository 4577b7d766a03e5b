"""The catalogue's links, written for the merchant side: a menu's items, a collection's products
and a product's extra categories.

As in ``companion.catalog_admin``, each write stamps its owner's ``updated_at`` and queues the
owner's content-change webhook in the same transaction: ``menu.updated`` with changed
``["items"]``, ``collection.updated`` with ``["products"]``, ``product.updated`` with
``["category_ids"]`` (the public field it moves).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, delete, insert, select, update

from companion.catalog_admin import CatalogError, write_child
from companion.db import schema as t
from companion.webhooks.events import Action, Entity
from companion.webhooks.queue import emit

#: What a menu item's body may name.
ITEM_COLUMNS = frozenset({"label", "url", "parent_id", "position"})


class LinkInvalid(ValueError):
    """A link that cannot be made: another menu's parent, a parent cycle, an unknown category."""


def _owned(conn: Connection, table: Table, store_id: int, row_id: int) -> None:
    found = conn.execute(
        select(table.c.id).where(table.c.store_id == store_id, table.c.id == row_id)
    ).first()
    if found is None:
        raise CatalogError(f"no {table.name.rstrip('s')} {row_id} in store {store_id}")


def _changed(
    conn: Connection,
    entity: Entity,
    table: Table,
    entity_id: int,
    changed: str,
    *,
    store_id: int,
    now: datetime,
) -> None:
    conn.execute(
        update(table)
        .where(table.c.store_id == store_id, table.c.id == entity_id)
        .values(updated_at=now)
    )
    emit(
        conn,
        store_id=store_id,
        entity=entity,
        action=Action.UPDATED,
        entity_id=entity_id,
        changed=[changed],
        now=now,
    )


def menu_item_rows(conn: Connection, menu_id: int) -> list[dict[str, Any]]:
    """A menu's items as ``GET /menus`` orders siblings: by position, then id."""
    items = t.menu_items
    return [
        dict(row._mapping)
        for row in conn.execute(
            select(items).where(items.c.menu_id == menu_id).order_by(items.c.position, items.c.id)
        )
    ]


def _check_parent(conn: Connection, menu_id: int, item_id: int | None, parent_id: int) -> None:
    """The parent is an item of the same menu, and not the item itself or one under it."""
    parents = {row["id"]: row["parent_id"] for row in menu_item_rows(conn, menu_id)}
    if parent_id not in parents:
        raise LinkInvalid(f"parent_id: {parent_id} is not an item of menu {menu_id}")
    seen: set[int] = set()
    step: int | None = parent_id
    while step is not None and step not in seen:
        if step == item_id:
            raise LinkInvalid("parent_id: an item cannot sit under itself")
        seen.add(step)
        step = parents.get(step)


def write_menu_item(
    conn: Connection,
    menu_id: int,
    item_id: int | None,
    values: dict[str, Any] | None,
    *,
    store_id: int,
    now: datetime,
) -> int:
    """Create (``item_id`` None), update or delete (``values`` None) an item of a menu; emits
    ``menu.updated`` with changed [items]. The item's id."""
    _owned(conn, t.menus, store_id, menu_id)
    items = t.menu_items
    if values is not None:
        unknown = sorted(set(values) - ITEM_COLUMNS)
        if unknown:
            raise CatalogError(f"menu items have no writable column(s): {', '.join(unknown)}")
        if ("label" in values or item_id is None) and not values.get("label"):
            raise LinkInvalid("label: a menu item needs one")
        if values.get("parent_id") is not None:
            _check_parent(conn, menu_id, item_id, values["parent_id"])
    if item_id is None and values is None:
        raise CatalogError("nothing to create for a menu item")
    item_id = write_child(
        conn,
        items,
        {"store_id": store_id, "menu_id": menu_id},
        item_id,
        values,
        missing=f"no item {item_id} of menu {menu_id}",
    )
    _changed(conn, Entity.MENU, t.menus, menu_id, "items", store_id=store_id, now=now)
    return item_id


def order_menu_items(
    conn: Connection,
    menu_id: int,
    parent_id: int | None,
    item_ids: list[int],
    *,
    store_id: int,
    now: datetime,
) -> None:
    """The children of ``parent_id`` (None: the menu's top level), every one of them, in the
    order given; emits ``menu.updated`` with changed [items]."""
    _owned(conn, t.menus, store_id, menu_id)
    siblings = {row["id"] for row in menu_item_rows(conn, menu_id) if row["parent_id"] == parent_id}
    if len(set(item_ids)) != len(item_ids) or set(item_ids) != siblings:
        raise LinkInvalid(
            "item_ids: every item under this parent, each once "
            f"({', '.join(map(str, sorted(siblings))) or 'none'})"
        )
    items = t.menu_items
    for position, item_id in enumerate(item_ids):
        conn.execute(update(items).where(items.c.id == item_id).values(position=position))
    _changed(conn, Entity.MENU, t.menus, menu_id, "items", store_id=store_id, now=now)


def collection_product_ids(conn: Connection, collection_id: int) -> list[int]:
    members = t.collection_products
    return list(
        conn.execute(
            select(members.c.product_id)
            .where(members.c.collection_id == collection_id)
            .order_by(members.c.position, members.c.product_id)
        ).scalars()
    )


def put_in_collection(
    conn: Connection,
    collection_id: int,
    product_id: int,
    position: int | None,
    *,
    store_id: int,
    now: datetime,
) -> None:
    """Add a product to a collection (one already in it stays, at ``position`` if given);
    emits ``collection.updated`` with changed [products]."""
    _owned(conn, t.collections, store_id, collection_id)
    _owned(conn, t.products, store_id, product_id)
    members = t.collection_products
    this = (members.c.collection_id == collection_id, members.c.product_id == product_id)
    if conn.execute(select(members.c.product_id).where(*this)).first() is None:
        conn.execute(
            insert(members).values(
                store_id=store_id,
                collection_id=collection_id,
                product_id=product_id,
                position=position or 0,
            )
        )
    elif position is not None:
        conn.execute(update(members).where(*this).values(position=position))
    _changed(
        conn,
        Entity.COLLECTION,
        t.collections,
        collection_id,
        "products",
        store_id=store_id,
        now=now,
    )


def take_from_collection(
    conn: Connection, collection_id: int, product_id: int, *, store_id: int, now: datetime
) -> None:
    """Remove a product from a collection; emits ``collection.updated`` with changed
    [products]."""
    _owned(conn, t.collections, store_id, collection_id)
    members = t.collection_products
    removed = conn.execute(
        delete(members).where(
            members.c.collection_id == collection_id, members.c.product_id == product_id
        )
    )
    if removed.rowcount != 1:
        raise CatalogError(f"no product {product_id} in collection {collection_id}")
    _changed(
        conn,
        Entity.COLLECTION,
        t.collections,
        collection_id,
        "products",
        store_id=store_id,
        now=now,
    )


def extra_category_ids(conn: Connection, product_id: int) -> list[int]:
    links = t.product_categories
    return list(
        conn.execute(
            select(links.c.category_id)
            .where(links.c.product_id == product_id)
            .order_by(links.c.category_id)
        ).scalars()
    )


def set_extra_categories(
    conn: Connection,
    product_id: int,
    category_ids: list[int],
    *,
    store_id: int,
    now: datetime,
) -> list[int]:
    """A product's extra categories (its primary one is ``products.category_id``), replaced by
    ``category_ids``; emits ``product.updated`` with changed [category_ids]. The ids set."""
    _owned(conn, t.products, store_id, product_id)
    wanted = sorted(set(category_ids))
    known = set(
        conn.execute(
            select(t.categories.c.id).where(
                t.categories.c.store_id == store_id, t.categories.c.id.in_(wanted)
            )
        ).scalars()
    )
    unknown = [cid for cid in wanted if cid not in known]
    if unknown:
        raise LinkInvalid(f"category_ids: no category {', '.join(map(str, unknown))} in the store")
    links = t.product_categories
    conn.execute(delete(links).where(links.c.product_id == product_id))
    if wanted:
        conn.execute(
            insert(links),
            [{"store_id": store_id, "product_id": product_id, "category_id": c} for c in wanted],
        )
    _changed(
        conn, Entity.PRODUCT, t.products, product_id, "category_ids", store_id=store_id, now=now
    )
    return wanted
