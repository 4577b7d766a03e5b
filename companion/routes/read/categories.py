"""Product categories: lists, the two-level tree, detail, breadcrumb and subcategories.

Only published categories are served. Siblings are ordered by position, then id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from sqlalchemy import ColumnElement, Connection, select

from companion.cursors import clamp_limit
from companion.db.schema import categories
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.problems import not_found
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.category_index import product_counts
from companion.routes.read.paging import first_page
from companion.routes.read.params import EntityId, Limit, Ref, Slug
from companion.routes.read.refs import ref_match
from companion.schemas.envelope import Envelope
from companion.schemas.read import BreadcrumbItem, Category, CategoryTreeNode
from companion.wire_values import clean_url, wire

router = APIRouter(route_class=OneHopRoute)

VISIBLE = categories.c.status == "published"
SIBLING_ORDER = (categories.c.position, categories.c.id)


def category_rows(conn: Connection, store_id: int, *conds: ColumnElement[bool]) -> list[Any]:
    query = (
        select(categories)
        .where(categories.c.store_id == store_id, VISIBLE, *conds)
        .order_by(*SIBLING_ORDER)
    )
    return list(conn.execute(query).all())


def category_fields(conn: Connection, store_id: int, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """The fields of ``Category`` as plain JSON values, one dict per row."""
    counts = product_counts(conn, store_id, [r.id for r in rows])
    return [
        {
            "id": r.id,
            "parent_id": r.parent_id,
            "name": r.name,
            "slug": r.slug,
            "url": clean_url(r.url),
            "description_html": r.description_html,
            "cover_image_url": r.image_url,
            "image_url": r.image_url,
            "product_count": counts[r.id],
            "meta_title": r.meta_title,
            "meta_description": r.meta_description,
            "updated_at": wire(r.updated_at),
        }
        for r in rows
    ]


def to_categories(conn: Connection, store_id: int, rows: Sequence[Any]) -> list[Category]:
    return [Category(**fields) for fields in category_fields(conn, store_id, rows)]


def one_category(conn: Connection, store_id: int, match: ColumnElement[bool], what: str) -> Any:
    rows = category_rows(conn, store_id, match)
    if not rows:
        raise not_found(what)
    return rows[0]


@router.get(
    "/categories",
    summary="Top-level categories, or the children of parent",
    response_model=Envelope[Category],
)
def list_categories(
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    parent: Ref = None,
    limit: Limit = None,
) -> dict[str, Any]:
    """Plain JSON built field by field: a page view's list, answered without a model."""
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    if parent is None:
        rows = category_rows(db, tenant.store_id, categories.c.parent_id.is_(None))
    else:
        parent_ids = select(categories.c.id).where(
            categories.c.store_id == tenant.store_id, ref_match(categories, parent)
        )
        rows = category_rows(db, tenant.store_id, categories.c.parent_id.in_(parent_ids))
    page, has_more = first_page(rows, size)
    return {
        "items": category_fields(db, tenant.store_id, page),
        "next_cursor": None,
        "has_more": has_more,
    }


@router.get("/categories/tree", summary="Two-level category tree")
def category_tree(db: ReadDb, tenant: CurrentTenant) -> Envelope[CategoryTreeNode]:
    rows = category_rows(db, tenant.store_id)
    tops = [r for r in rows if r.parent_id is None]
    top_ids = {r.id for r in tops}
    seconds = [r for r in rows if r.parent_id in top_ids]
    cats = {c.id: c for c in to_categories(db, tenant.store_id, [*tops, *seconds])}
    nodes = [
        CategoryTreeNode(
            **cats[top.id].model_dump(),
            children=[cats[s.id] for s in seconds if s.parent_id == top.id],
        )
        for top in tops
    ]
    return Envelope[CategoryTreeNode](items=nodes, next_cursor=None, has_more=False)


@router.get("/categories/by-slug/{slug}", summary="Category detail by slug")
def category_by_slug(slug: Slug, db: ReadDb, tenant: CurrentTenant) -> Category:
    row = one_category(db, tenant.store_id, categories.c.slug == slug, f"category {slug!r}")
    return to_categories(db, tenant.store_id, [row])[0]


@router.get("/categories/{category_id}", summary="Category detail by id")
def category_by_id(category_id: EntityId, db: ReadDb, tenant: CurrentTenant) -> Category:
    row = one_category(
        db, tenant.store_id, categories.c.id == category_id, f"category {category_id}"
    )
    return to_categories(db, tenant.store_id, [row])[0]


@router.get("/categories/{category_id}/breadcrumb", summary="Path from the root category")
def category_breadcrumb(
    category_id: EntityId, db: ReadDb, tenant: CurrentTenant
) -> Envelope[BreadcrumbItem]:
    by_id = {r.id: r for r in category_rows(db, tenant.store_id)}
    if category_id not in by_id:
        raise not_found(f"category {category_id}")
    trail: list[BreadcrumbItem] = []
    seen: set[int] = set()
    current: int | None = category_id
    while current is not None and current in by_id and current not in seen:
        seen.add(current)
        row = by_id[current]
        trail.append(BreadcrumbItem(id=row.id, name=row.name, url=clean_url(row.url)))
        current = row.parent_id
    trail.reverse()
    return Envelope[BreadcrumbItem](items=trail, next_cursor=None, has_more=False)


@router.get("/categories/{category_id}/subcategories", summary="Direct children")
def subcategories(category_id: EntityId, db: ReadDb, tenant: CurrentTenant) -> Envelope[Category]:
    one_category(db, tenant.store_id, categories.c.id == category_id, f"category {category_id}")
    rows = category_rows(db, tenant.store_id, categories.c.parent_id == category_id)
    items = to_categories(db, tenant.store_id, rows)
    return Envelope[Category](items=items, next_cursor=None, has_more=False)
