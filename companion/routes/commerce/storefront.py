"""GET /storefront/settings: what a storefront needs to wire its islands."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from sqlalchemy import select

from companion.db.schema import stores
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.payments.sandbox_access import accepted_gateways, sandbox_serves
from companion.routes.one_hop import OneHopRoute
from companion.schemas.commerce_activity import StorefrontSettingsOut

router = APIRouter(tags=["storefront"], route_class=OneHopRoute)

CART_COOKIE = "service_cart"  # shared with the template engine: one cart across both engines
CUSTOMER_COOKIE = "service_customer"


@router.get("/storefront/settings", response_model=StorefrontSettingsOut)
def get_storefront_settings(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    tenant_id: Annotated[
        str | None,
        Query(max_length=100, description="Legacy and optional: the key identifies the store"),
    ] = None,
) -> StorefrontSettingsOut:
    """``tenant_id`` is accepted for a legacy host and ignored: the key decides the store."""
    sandbox = sandbox_serves(db, store_id=tenant.store_id, asked=services.settings.sandbox_payments)
    store = db.execute(
        select(stores.c.id, stores.c.name, stores.c.currency_code, stores.c.locale).where(
            stores.c.id == tenant.store_id
        )
    ).one()
    return StorefrontSettingsOut(
        store_id=store.id,
        name=store.name,
        currency_code=store.currency_code,
        locale=store.locale,
        cart_cookie=CART_COOKIE,
        customer_cookie=CUSTOMER_COOKIE,
        payment_methods=[
            g.code for g in accepted_gateways(db, store_id=tenant.store_id, sandbox=sandbox)
        ],
        reviews_enabled=True,
        points_enabled=True,
    )
