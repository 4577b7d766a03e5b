"""CMS pages by slug, and by id (the target of a route resolved to ``cms_page``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import ColumnElement, Connection, select

from companion.db.schema import pages
from companion.deps import CurrentTenant, ReadDb
from companion.problems import not_found
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import EntityId, Slug
from companion.schemas.read import CmsPage
from companion.wire_values import clean_url, wire

router = APIRouter(route_class=OneHopRoute)


def find_page(conn: Connection, store_id: int, match: ColumnElement[bool], what: str) -> CmsPage:
    row: Any = conn.execute(
        select(pages).where(pages.c.store_id == store_id, pages.c.status == "published", match)
    ).first()
    if row is None:
        raise not_found(what)
    return CmsPage(
        id=row.id,
        title=row.title,
        slug=row.slug,
        url=clean_url(row.url),
        content_html=row.content_html,
        meta_title=row.meta_title,
        meta_description=row.meta_description,
        updated_at=wire(row.updated_at),
    )


@router.get("/pages/by-slug/{slug}", summary="CMS page by slug")
def page_by_slug(slug: Slug, db: ReadDb, tenant: CurrentTenant) -> CmsPage:
    return find_page(db, tenant.store_id, pages.c.slug == slug, f"page {slug!r}")


@router.get("/pages/{page_id}", summary="CMS page by id")
def page_by_id(page_id: EntityId, db: ReadDb, tenant: CurrentTenant) -> CmsPage:
    return find_page(db, tenant.store_id, pages.c.id == page_id, f"page {page_id}")
