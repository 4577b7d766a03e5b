"""Tracking calls from storefronts: POST /analytics/entity-view, POST /banners/{id}/click,
POST /storefront-errors. Ordinary endpoints, not events sent to subscribers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Response, status
from sqlalchemy import insert, select

from companion.commerce.event_times import accepted_time, parse_client_time
from companion.db.commerce_schema import banner_clicks, entity_views, storefront_errors
from companion.db.schema import banners
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import not_found, unprocessable
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import EntityId
from companion.schemas.commerce_activity import (
    BannerClickIn,
    EntityViewIn,
    StorefrontErrorBatch,
    StorefrontErrorsOut,
)

router = APIRouter(tags=["tracking"], route_class=OneHopRoute)


@router.post(
    "/analytics/entity-view",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
)
def post_entity_view(
    body: EntityViewIn, db: Db, tenant: CurrentTenant, services: ServicesDep
) -> None:
    """Recorded as sent: a stale page reporting a deleted entity is not an error."""
    db.execute(
        insert(entity_views).values(
            store_id=tenant.store_id,
            entity_type=body.entity_type.value,
            entity_id=body.entity_id,
            session_token=body.session_token or None,
            viewed_at=services.clock.now(),
        )
    )


@router.post(
    "/banners/{banner_id}/click",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
)
def post_banner_click(
    banner_id: EntityId,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    body: Annotated[BannerClickIn | None, Body()] = None,
) -> None:
    found = db.execute(
        select(banners.c.id).where(banners.c.store_id == tenant.store_id, banners.c.id == banner_id)
    ).first()
    if found is None:
        raise not_found(f"banner {banner_id}")
    db.execute(
        insert(banner_clicks).values(
            store_id=tenant.store_id,
            banner_id=banner_id,
            session_token=body.session_token if body else None,
            clicked_at=services.clock.now(),
        )
    )


@router.post(
    "/storefront-errors",
    response_model=StorefrontErrorsOut,
    status_code=status.HTTP_202_ACCEPTED,
)
def post_storefront_errors(
    body: StorefrontErrorBatch, db: Db, tenant: CurrentTenant, services: ServicesDep
) -> StorefrontErrorsOut:
    """At most 50 events per call. An ``occurred_at`` older than 24 hours or in the future is
    replaced by the receive time (and counted in ``adjusted``)."""
    received = services.clock.now()
    rows = []
    adjusted = 0
    for i, event in enumerate(body.events):
        try:
            claimed = parse_client_time(event.occurred_at) if event.occurred_at else None
        except ValueError:
            raise unprocessable(f"events.{i}.occurred_at", "not an ISO 8601 timestamp") from None
        occurred_at, replaced = accepted_time(claimed, received)
        adjusted += replaced
        rows.append(
            {
                "store_id": tenant.store_id,
                "status": event.status,
                "method": event.method.upper() if event.method else None,
                "path": event.path,
                "message": event.message,
                "occurred_at": occurred_at,
                "received_at": received,
            }
        )
    db.execute(insert(storefront_errors), rows)
    return StorefrontErrorsOut(accepted=len(rows), adjusted=adjusted)
