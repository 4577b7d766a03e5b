"""Store-wide context: store information, custom variables, promotions and banners."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import or_, select

from companion.cursors import clamp_limit
from companion.db.schema import banners, custom_variables, promotions, stores
from companion.deps import CurrentTenant, ReadDb, ServicesDep
from companion.problems import not_found
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.paging import first_page
from companion.routes.read.params import Limit
from companion.schemas.envelope import Envelope
from companion.schemas.read import Banner, CustomVariable, Promotion, Store
from companion.wire_values import wire

router = APIRouter(route_class=OneHopRoute)


@router.get(
    "/store", summary="Store name, logo, contact, social links, currency", response_model=Store
)
def store_info(db: ReadDb, tenant: CurrentTenant) -> dict[str, Any]:
    row = db.execute(select(stores).where(stores.c.id == tenant.store_id)).first()
    if row is None:
        raise not_found("store")
    social = row.social if isinstance(row.social, dict) else {}
    return {
        "name": row.name,
        "logo_url": row.logo_url,
        "email": row.email,
        "phone": row.phone,
        "address": row.address,
        "social": {str(k): str(v) for k, v in social.items() if v},
        "currency_code": row.currency_code,
        "locale": row.locale,
    }


@router.get("/custom-variables", summary="Store custom variables")
def list_custom_variables(db: ReadDb, tenant: CurrentTenant) -> Envelope[CustomVariable]:
    rows = db.execute(
        select(custom_variables.c.key, custom_variables.c.value)
        .where(custom_variables.c.store_id == tenant.store_id)
        .order_by(custom_variables.c.key)
    ).all()
    items = [CustomVariable(key=r.key, value=r.value) for r in rows]
    return Envelope[CustomVariable](items=items, next_cursor=None, has_more=False)


@router.get("/promotions", summary="Visible text promotions")
def list_promotions(db: ReadDb, tenant: CurrentTenant) -> Envelope[Promotion]:
    rows = db.execute(
        select(promotions)
        .where(promotions.c.store_id == tenant.store_id, promotions.c.visible.is_(True))
        .order_by(promotions.c.position, promotions.c.id)
    ).all()
    items = [Promotion(id=r.id, text=r.text, link_url=r.link_url) for r in rows]
    return Envelope[Promotion](items=items, next_cursor=None, has_more=False)


@router.get("/banners", summary="Banners showing now, by position")
def list_banners(
    db: ReadDb,
    tenant: CurrentTenant,
    services: ServicesDep,
    location_code: Annotated[
        str | None, Query(max_length=50, description="Only banners of this location")
    ] = None,
    limit: Limit = None,
) -> Envelope[Banner]:
    """A banner shows while starts_at <= now < ends_at, or from starts_at on when it has no end."""
    settings = services.settings
    size = clamp_limit(limit, default=settings.default_limit, maximum=settings.max_limit)
    now = services.clock.now()
    conds = [
        banners.c.store_id == tenant.store_id,
        banners.c.starts_at <= now,
        or_(banners.c.ends_at.is_(None), banners.c.ends_at > now),
    ]
    if location_code is not None:
        conds.append(banners.c.location_code == location_code)
    query = (
        select(banners)
        .where(*conds)
        .order_by(banners.c.location_code, banners.c.position, banners.c.id)
        .limit(size + 1)
    )
    page, has_more = first_page(db.execute(query).all(), size)
    items = [
        Banner(
            id=r.id,
            title=r.title,
            image_url=r.image_url,
            link_url=r.link_url,
            location_code=r.location_code,
            position=r.position,
            starts_at=wire(r.starts_at),
            ends_at=wire(r.ends_at) if r.ends_at else None,
        )
        for r in page
    ]
    return Envelope[Banner](items=items, next_cursor=None, has_more=has_more)
