"""Collections: visible ones, by position. No get-by-id (the spec has none): by slug only."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import select

from companion.cursors import clamp_limit
from companion.db.schema import collections
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.problems import not_found
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.paging import first_page
from companion.routes.read.params import Limit, Slug
from companion.schemas.envelope import Envelope
from companion.schemas.read import Collection
from companion.wire_values import wire

router = APIRouter(route_class=OneHopRoute)


def to_collection(row: Any) -> Collection:
    return Collection(
        id=row.id,
        name=row.name,
        slug=row.slug,
        description_html=row.description_html,
        image_url=row.image_url,
        updated_at=wire(row.updated_at),
    )


@router.get("/collections", summary="Visible collections (limit up to 200)")
def list_collections(
    db: ReadDb, tenant: CurrentTenant, services: ServicesDep, limit: Limit = None
) -> Envelope[Collection]:
    settings = services.settings
    size = clamp_limit(
        limit, default=settings.default_limit, maximum=settings.collections_max_limit
    )
    query = (
        select(collections)
        .where(collections.c.store_id == tenant.store_id, collections.c.visible.is_(True))
        .order_by(collections.c.position, collections.c.id)
        .limit(size + 1)
    )
    page, has_more = first_page(db.execute(query).all(), size)
    return Envelope[Collection](
        items=[to_collection(r) for r in page], next_cursor=None, has_more=has_more
    )


@router.get("/collections/by-slug/{slug}", summary="Collection detail by slug")
def collection_by_slug(slug: Slug, db: ReadDb, tenant: CurrentTenant) -> Collection:
    row = db.execute(
        select(collections).where(
            collections.c.store_id == tenant.store_id,
            collections.c.visible.is_(True),
            collections.c.slug == slug,
        )
    ).first()
    if row is None:
        raise not_found(f"collection {slug!r}")
    return to_collection(row)
