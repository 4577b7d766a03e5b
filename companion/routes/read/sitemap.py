"""Sitemap data as paths (clients write the XML).

GET /sitemap counts each section's rows by status (published products, categories, pages and
articles; visible collections). GET /sitemap/{section} serves only rows that have a page:
a non-empty url (products, categories, pages); /bai-viet/<slug> for articles whose publication
time has come; for collections, the first merchant-chosen custom path that targets each (a
collection has no url column). So a section may count N rows and serve fewer.

Pages walk (created_at, id) ascending, so rows written between pages never repeat or vanish.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter
from sqlalchemy import ColumnElement, Select, String, Table, and_, func, literal, select

from companion.cursors import clamp_limit
from companion.db.schema import articles, categories, collections, custom_paths, pages, products
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.paging import after_asc, cut_page, time_cursor, time_key
from companion.routes.read.params import Cursor, Limit
from companion.schemas.envelope import Envelope
from companion.schemas.read import SectionName, Sitemap, SitemapEntry, SitemapSection
from companion.wire_values import wire

router = APIRouter(route_class=OneHopRoute)

SECTIONS: tuple[SectionName, ...] = ("products", "categories", "collections", "articles", "pages")
WITH_URL: dict[str, Table] = {"products": products, "categories": categories, "pages": pages}


def has_url(table: Table) -> ColumnElement[bool]:
    return and_(table.c.url.is_not(None), func.trim(table.c.url) != "")


def counted(name: str, store_id: int) -> ColumnElement[bool]:
    """The rows a section counts: by status (visibility for collections)."""
    if name == "collections":
        return and_(collections.c.store_id == store_id, collections.c.visible.is_(True))
    table = WITH_URL.get(name, articles)
    return and_(table.c.store_id == store_id, table.c.status == "published")


def served(name: str, store_id: int, now: datetime) -> Select[Any]:
    """The rows a section serves, as (path, updated_at, created_at, id)."""
    if name in WITH_URL:
        t = WITH_URL[name]
        return select(t.c.url.label("path"), t.c.updated_at, t.c.created_at, t.c.id).where(
            counted(name, store_id), has_url(t)
        )
    if name == "articles":
        path = literal("/bai-viet/", String) + articles.c.slug
        return select(
            path.label("path"), articles.c.updated_at, articles.c.created_at, articles.c.id
        ).where(counted(name, store_id), articles.c.published_at <= now)
    first_path = (
        select(custom_paths.c.target_id, func.min(custom_paths.c.id).label("path_id"))
        .where(custom_paths.c.store_id == store_id, custom_paths.c.target_type == "collection")
        .group_by(custom_paths.c.target_id)
        .subquery()
    )
    return (
        select(
            custom_paths.c.path,
            collections.c.updated_at,
            collections.c.created_at,
            collections.c.id,
        )
        .join(first_path, first_path.c.target_id == collections.c.id)
        .join(custom_paths, custom_paths.c.id == first_path.c.path_id)
        .where(counted(name, store_id))
    )


def created_key(row: Any) -> str:
    return time_key(row.created_at, row.id)


def count_table(name: str) -> Table:
    return collections if name == "collections" else WITH_URL.get(name, articles)


@router.get("/sitemap", summary="Sitemap sections and the row count of each")
def sitemap(db: ReadDb, tenant: CurrentTenant) -> Sitemap:
    sections = []
    for name in SECTIONS:
        query = (
            select(func.count())
            .select_from(count_table(name))
            .where(counted(name, tenant.store_id))
        )
        sections.append(SitemapSection(name=name, count=int(db.execute(query).scalar_one())))
    return Sitemap(sections=sections)


@router.get("/sitemap/{section}", summary="One page of a section's paths (not XML)")
def sitemap_section(
    section: SectionName,
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    limit: Limit = None,
    cursor: Cursor = None,
) -> Envelope[SitemapEntry]:
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    rows = served(section, tenant.store_id, services.clock.now()).subquery()
    query = select(rows).order_by(rows.c.created_at, rows.c.id)
    if cursor is not None:
        query = query.where(after_asc(rows.c.created_at, rows.c.id, *time_cursor(cursor)))
    rows_found = db.execute(query.limit(size + 1)).all()
    page, next_cursor, has_more = cut_page(rows_found, size, created_key)
    items = [SitemapEntry(path=r.path, updated_at=wire(r.updated_at)) for r in page]
    return Envelope[SitemapEntry](items=items, next_cursor=next_cursor, has_more=has_more)
