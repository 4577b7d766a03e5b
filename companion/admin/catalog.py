"""The catalogue as the merchant edits it: products (their variants, images and extra
categories), categories, collections (their products), articles, pages, menus (their items),
banners, coupons, text and order promotions, shipping
methods and flash sales.

Writes go through ``companion.catalog_admin``, which keeps derived columns in step and queues
each write's content-change webhook in the same transaction. A product's price is set with
``set_product_price``: the variants take it too, so cards, pages, cart and order agree.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, Connection, DateTime, Integer, Numeric, String, Table, select
from sqlalchemy.exc import IntegrityError

from companion.admin.errors import Invalid, NotFound, Refused
from companion.catalog_admin import (
    DERIVED,
    PARTS,
    TABLES,
    CatalogError,
    create_entity,
    delete_entity,
    set_product_price,
    update_entity,
    write_part,
)
from companion.catalog_links import (
    LinkInvalid,
    collection_product_ids,
    extra_category_ids,
    menu_item_rows,
    order_menu_items,
    put_in_collection,
    set_extra_categories,
    take_from_collection,
    write_menu_item,
)
from companion.webhooks.events import Entity

#: The kinds as the admin API names them (its paths), and what each is.
KINDS: dict[str, Entity] = {
    "products": Entity.PRODUCT,
    "categories": Entity.CATEGORY,
    "collections": Entity.COLLECTION,
    "articles": Entity.ARTICLE,
    "pages": Entity.PAGE,
    "menus": Entity.MENU,
    "banners": Entity.BANNER,
    "coupons": Entity.COUPON,
    "promotions": Entity.PROMOTION,
    "order-promotions": Entity.ORDER_PROMOTION,
    "shipping-methods": Entity.SHIPPING_METHOD,
    "flash-sales": Entity.FLASH_SALE,
}
#: A product's own rows (``/products/{id}/variants``, ``/products/{id}/images``).
PART_NAMES = tuple(PARTS)


def entity_of(kind: str) -> Entity:
    try:
        return KINDS[kind]
    except KeyError:
        raise NotFound(f"no catalogue kind {kind!r}") from None


#: What a column of each type takes from JSON (SQLite would store any value in any column;
#: PostgreSQL would refuse it with an error no answer names).
_WIRE_TYPES: tuple[tuple[type, tuple[type, ...], str], ...] = (
    (Boolean, (bool,), "true or false"),
    (Integer, (int,), "a whole number"),
    (Numeric, (int, float), "a number"),
    (String, (str,), "text"),
)


def _typed(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """Wire values as the columns take them: ISO times to naive UTC datetimes; a value of
    another type than its column's is refused with its name."""
    row = dict(values)
    for name, value in values.items():
        column = table.c.get(name)
        if column is None or value is None:
            continue
        if isinstance(column.type, DateTime):
            if not isinstance(value, str):
                raise Invalid(name, "an ISO 8601 date and time")
            try:
                moment = datetime.fromisoformat(value)
            except ValueError:
                raise Invalid(name, "an ISO 8601 date and time") from None
            if moment.tzinfo is not None:
                moment = moment.astimezone(UTC).replace(tzinfo=None)
            row[name] = moment
            continue
        for kind, takes, what in _WIRE_TYPES:
            if isinstance(column.type, kind):
                wrong_bool = isinstance(value, bool) and bool not in takes
                if wrong_bool or not isinstance(value, takes):
                    raise Invalid(name, what)
                break
    return row


def _row(conn: Connection, table: Table, store_id: int, row_id: int) -> dict[str, Any]:
    found = conn.execute(
        select(table).where(table.c.store_id == store_id, table.c.id == row_id)
    ).first()
    if found is None:
        raise NotFound(f"{table.name} {row_id}")
    return dict(found._mapping)


def list_rows(
    conn: Connection, kind: str, *, store_id: int, after: int | None, limit: int
) -> tuple[list[dict[str, Any]], int | None]:
    """One page in id order; the id to continue after (None: the last page)."""
    table = TABLES[entity_of(kind)]
    query = select(table).where(table.c.store_id == store_id)
    if after is not None:
        query = query.where(table.c.id > after)
    rows = [dict(r._mapping) for r in conn.execute(query.order_by(table.c.id).limit(limit + 1))]
    more = len(rows) > limit
    return rows[:limit], (rows[limit - 1]["id"] if more else None)


def get_row(conn: Connection, kind: str, row_id: int, *, store_id: int) -> dict[str, Any]:
    row = _row(conn, TABLES[entity_of(kind)], store_id, row_id)
    if kind == "menus":
        row["items"] = menu_item_rows(conn, row_id)
    if kind == "collections":
        row["product_ids"] = collection_product_ids(conn, row_id)
    if kind == "products":
        row["category_ids"] = extra_category_ids(conn, row_id)
        for part in PART_NAMES:
            table = PARTS[part]
            row[part] = [
                dict(r._mapping)
                for r in conn.execute(
                    select(table).where(table.c.product_id == row_id).order_by(table.c.id)
                )
            ]
    return row


def _written(action: Any) -> Any:
    """Run a write in a savepoint: a refused row leaves the request's transaction usable."""
    conn, call = action
    try:
        with conn.begin_nested():
            return call()
    except LinkInvalid as error:
        field, _, message = str(error).partition(": ")
        raise Invalid(field, message) from None
    except CatalogError as error:
        message = str(error)
        if message.startswith("no "):
            raise NotFound(message) from None
        raise Invalid("body", message) from None
    except IntegrityError as error:
        raise Refused(f"the row breaks a rule of the store's data: {error.orig}") from None


def create_row(
    conn: Connection, kind: str, values: dict[str, Any], *, store_id: int, now: datetime
) -> dict[str, Any]:
    entity = entity_of(kind)
    row = _typed(TABLES[entity], values)
    new_id = _written((conn, lambda: create_entity(conn, entity, row, store_id=store_id, now=now)))
    if entity is Entity.PRODUCT and row.get("price") is not None:
        _written((conn, lambda: _price(conn, store_id, new_id, row["price"], now)))
    return get_row(conn, kind, new_id, store_id=store_id)


def _price(
    conn: Connection, store_id: int, product_id: int, price: int | None, now: datetime
) -> None:
    if price is not None and (not isinstance(price, int) or price < 0):
        raise Invalid("price", "a whole number of VND, at least 0")
    set_product_price(conn, store_id=store_id, product_id=product_id, price=price, now=now)


def update_row(
    conn: Connection,
    kind: str,
    row_id: int,
    changes: dict[str, Any],
    *,
    store_id: int,
    now: datetime,
) -> dict[str, Any]:
    entity = entity_of(kind)
    row = _typed(TABLES[entity], changes)
    if entity is Entity.PRODUCT and "price" in row:
        price = row.pop("price")
        _row(conn, TABLES[entity], store_id, row_id)
        _written((conn, lambda: _price(conn, store_id, row_id, price, now)))
    if row or entity is not Entity.PRODUCT:
        _written(
            (conn, lambda: update_entity(conn, entity, row_id, row, store_id=store_id, now=now))
        )
    return get_row(conn, kind, row_id, store_id=store_id)


def delete_row(conn: Connection, kind: str, row_id: int, *, store_id: int, now: datetime) -> None:
    entity = entity_of(kind)
    _written((conn, lambda: delete_entity(conn, entity, row_id, store_id=store_id, now=now)))


def write_product_part(
    conn: Connection,
    part: str,
    product_id: int,
    part_id: int | None,
    values: dict[str, Any] | None,
    *,
    store_id: int,
    now: datetime,
) -> dict[str, Any] | None:
    """Create, update or delete (``values`` None) a variant or an image; the row after."""
    if part not in PARTS:
        raise NotFound(f"no product part {part!r}")
    table = PARTS[part]
    typed = None if values is None else _typed(table, values)
    written = _written(
        (
            conn,
            lambda: write_part(conn, part, product_id, part_id, typed, store_id=store_id, now=now),
        )
    )
    if values is None:
        return None
    found = conn.execute(select(table).where(table.c.id == written)).first()
    assert found is not None
    return dict(found._mapping)


def write_item(
    conn: Connection,
    menu_id: int,
    item_id: int | None,
    values: dict[str, Any] | None,
    *,
    store_id: int,
    now: datetime,
) -> dict[str, Any] | None:
    """Create, update or delete (``values`` None) an item of a menu; the item after."""
    written = _written(
        (
            conn,
            lambda: write_menu_item(conn, menu_id, item_id, values, store_id=store_id, now=now),
        )
    )
    if values is None:
        return None
    return next(row for row in menu_item_rows(conn, menu_id) if row["id"] == written)


def order_items(
    conn: Connection,
    menu_id: int,
    parent_id: int | None,
    item_ids: list[int],
    *,
    store_id: int,
    now: datetime,
) -> dict[str, Any]:
    """The siblings under ``parent_id`` in the order given; the menu after."""
    _written(
        (
            conn,
            lambda: order_menu_items(
                conn, menu_id, parent_id, item_ids, store_id=store_id, now=now
            ),
        )
    )
    return get_row(conn, "menus", menu_id, store_id=store_id)


def collect(
    conn: Connection,
    collection_id: int,
    product_id: int,
    *,
    position: int | None,
    member: bool,
    store_id: int,
    now: datetime,
) -> list[int]:
    """Add (``member``) or remove a product of a collection; the collection's products after."""
    if member:
        _written(
            (
                conn,
                lambda: put_in_collection(
                    conn, collection_id, product_id, position, store_id=store_id, now=now
                ),
            )
        )
    else:
        _written(
            (
                conn,
                lambda: take_from_collection(
                    conn, collection_id, product_id, store_id=store_id, now=now
                ),
            )
        )
    return collection_product_ids(conn, collection_id)


def set_categories(
    conn: Connection, product_id: int, category_ids: list[int], *, store_id: int, now: datetime
) -> list[int]:
    """A product's extra categories, replaced; the ids set."""
    written: list[int] = _written(
        (
            conn,
            lambda: set_extra_categories(
                conn, product_id, category_ids, store_id=store_id, now=now
            ),
        )
    )
    return written


#: Columns a merchant never writes (kept in step by the writes themselves).
READ_ONLY = frozenset(DERIVED)
