"""GET /products: published products, filtered and sorted, keyset-paginated.

Sorts: ``newest`` (created_at, then id, descending; stable while rows are written between pages),
``price_asc`` and ``price_desc`` (list price, then id; products without a price come last).
Filters combine with AND; a filter naming an unknown category or collection matches nothing.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from fastapi import APIRouter, Query
from sqlalchemy import ColumnElement, Connection, Integer, Select, bindparam, select

from companion.cursors import clamp_limit
from companion.db.schema import categories, collection_products, collections, products
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.problems import unprocessable
from companion.product_cards import PUBLISHED, STORE, bound_card_select, card_of, card_select
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.category_index import category_parents, descendants, filed_under
from companion.routes.read.paging import (
    after_desc,
    after_nullable,
    cut_page,
    money_cursor,
    money_key,
    time_cursor,
    time_key,
)
from companion.routes.read.params import MAX_ID, Cursor, Limit, Ref
from companion.routes.read.refs import ref_id
from companion.schemas.envelope import Envelope
from companion.schemas.read import ProductCard
from companion.text import fold

router = APIRouter(route_class=OneHopRoute)

Sort = Literal["newest", "price_asc", "price_desc"]
MAX_IDS = 100
_ID = re.compile(r"[0-9]{1,18}")


def parse_ids(raw: str) -> list[int]:
    """``"3, 7,9"`` -> [3, 7, 9]; ids too large to exist are dropped (they match nothing)."""
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if any(not _ID.fullmatch(p) for p in parts):
        raise unprocessable("ids", "must be product ids separated by commas")
    if len(parts) > MAX_IDS:
        raise unprocessable("ids", f"at most {MAX_IDS} ids per request")
    return [n for n in map(int, parts) if n <= MAX_ID]


def filters(
    conn: Connection,
    store_id: int,
    *,
    category: str | None,
    collection: str | None,
    ids: str | None,
    q: str | None,
) -> list[ColumnElement[bool]]:
    conds: list[ColumnElement[bool]] = [products.c.store_id == store_id, PUBLISHED]
    if ids is not None:
        conds.append(products.c.id.in_(parse_ids(ids)))
    if q is not None and fold(q):
        conds.append(products.c.search_name.contains(fold(q), autoescape=True))
    if category is not None:
        cid = ref_id(conn, categories, store_id, category)
        tree = descendants(category_parents(conn, store_id), cid) if cid else set()
        conds.append(filed_under(tree))
    if collection is not None:
        coll_id = ref_id(conn, collections, store_id, collection)
        conds.append(
            products.c.id.in_(
                select(collection_products.c.product_id).where(
                    collection_products.c.collection_id == coll_id
                )
            )
        )
    return conds


def ordered(query: Select[Any], sort: Sort, cursor: str | None) -> tuple[Select[Any], Any]:
    """The query in ``sort`` order, continued after ``cursor``; and how to make the next one."""
    price, pid = products.c.price, products.c.id
    if sort == "newest":
        query = query.order_by(products.c.created_at.desc(), pid.desc())
        if cursor is not None:
            query = query.where(after_desc(products.c.created_at, pid, *time_cursor(cursor)))
        return query, lambda row: time_key(row.created_at, row.id)
    descending = sort == "price_desc"
    key_order = price.desc() if descending else price.asc()
    query = query.order_by(key_order.nulls_last(), pid.desc() if descending else pid.asc())
    if cursor is not None:
        amount, row_id = money_cursor(cursor)
        query = query.where(after_nullable(price, pid, amount, row_id, descending=descending))
    return query, lambda row: money_key(row.price, row.id)


def _first_page(sort: Sort) -> tuple[Select[Any], Any]:
    """The first page of every published product in ``sort`` order, built once (see
    product_cards.STORE); ``size`` rows."""
    plain = bound_card_select().where(products.c.store_id == STORE, PUBLISHED)
    query, cursor_of = ordered(plain, sort, None)
    return query.limit(bindparam("size", type_=Integer)), cursor_of


# The most asked-for lists: no filter, no cursor.
_FIRST_PAGES = {sort: _first_page(sort) for sort in get_args(Sort)}


@router.get(
    "/products",
    summary="Products, filtered, sorted and paginated",
    response_model=Envelope[ProductCard],
)
def list_products(
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    limit: Limit = None,
    cursor: Cursor = None,
    category: Ref = None,
    collection: Ref = None,
    ids: Annotated[
        str | None, Query(max_length=2000, description="Comma-separated product ids")
    ] = None,
    q: Annotated[
        str | None, Query(max_length=200, description="Name search, accent-insensitive")
    ] = None,
    sort: Sort = "newest",
) -> dict[str, Any]:
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    now = services.clock.now()
    if (category, collection, ids, q, cursor) == (None, None, None, None, None):
        query, cursor_of = _FIRST_PAGES[sort]
        values = {"store_id": tenant.store_id, "now": now, "size": size + 1}
        rows = db.execute(query, values).all()
    else:
        conds = filters(db, tenant.store_id, category=category, collection=collection, ids=ids, q=q)
        cards = card_select(tenant.store_id, now)
        query, cursor_of = ordered(cards.where(*conds), sort, cursor)
        rows = db.execute(query.limit(size + 1)).all()
    page, next_cursor, has_more = cut_page(rows, size, cursor_of)
    return {
        "items": [card_of(row) for row in page],
        "next_cursor": next_cursor,
        "has_more": has_more,
    }
