"""POST /shipping-methods, GET /shipping/provinces, GET /shipping/wards, GET /pickup-locations,
GET /warehouses."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from sqlalchemy import select

from companion.commerce.admin_units import provinces, wards
from companion.commerce.carts import find_cart
from companion.commerce.quote import shipping_fee, subtotal_of
from companion.commerce.quoting import cart_lines
from companion.commerce.shipping import enabled_methods
from companion.db.commerce_schema import pickup_locations, warehouses
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import not_found
from companion.routes.commerce.pages import whole
from companion.routes.commerce.wire import money
from companion.routes.one_hop import OneHopRoute
from companion.schemas.commerce_checkout import (
    PickupLocationOut,
    ProvinceOut,
    ShippingMethodOut,
    ShippingMethodsIn,
    WardOut,
    WarehouseOut,
)
from companion.schemas.envelope import Envelope

router = APIRouter(tags=["shipping"], route_class=OneHopRoute)


@router.post(
    "/shipping-methods",
    response_model=Envelope[ShippingMethodOut],
    summary="Shipping methods with their fee for a cart",
)
def post_shipping_methods(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    body: Annotated[ShippingMethodsIn | None, Body()] = None,
) -> Envelope[Any]:
    """With a cart token, each fee is the one that cart would pay (free-shipping thresholds
    applied); without, the base fee. Every method ships to every province."""
    store_id = tenant.store_id
    subtotal = 0
    if body is not None and body.cart_token:
        cart = find_cart(db, store_id=store_id, token=body.cart_token)
        if cart is None:
            raise not_found("cart")
        subtotal = subtotal_of(
            cart_lines(db, store_id=store_id, cart=cart, now=services.clock.now())
        )
    return whole(
        [
            ShippingMethodOut(
                code=m.code,
                name=m.name,
                kind=m.kind,
                fee=money(shipping_fee(m.fee, m.free_over, subtotal)),
                free_over=money(m.free_over) if m.free_over is not None else None,
                estimated_days=m.estimated_days,
            )
            for m in enabled_methods(db, store_id=store_id)
        ]
    )


@router.get("/shipping/provinces", response_model=Envelope[ProvinceOut])
def get_provinces(tenant: CurrentTenant) -> Envelope[Any]:
    """The 34 province-level units (the address field ``city``)."""
    return whole([ProvinceOut(code=p.code, name=p.name) for p in provinces()])


@router.get("/shipping/wards", response_model=Envelope[WardOut])
def get_wards(
    tenant: CurrentTenant,
    province_code: Annotated[
        str | None, Query(max_length=10, description="Only this province's wards")
    ] = None,
) -> Envelope[Any]:
    """Wards and communes (the address field ``ward``); all 3,321 without a province."""
    return whole(
        [
            WardOut(code=w.code, name=w.name, province_code=w.province_code)
            for w in wards(province_code)
        ]
    )


@router.get("/pickup-locations", response_model=Envelope[PickupLocationOut])
def get_pickup_locations(db: Db, tenant: CurrentTenant) -> Envelope[Any]:
    rows = db.execute(
        select(pickup_locations)
        .where(pickup_locations.c.store_id == tenant.store_id)
        .order_by(pickup_locations.c.position, pickup_locations.c.id)
    )
    return whole(
        [
            PickupLocationOut(
                id=r.id,
                name=r.name,
                address=r.address,
                city=r.city,
                phone=r.phone,
                opening_hours=r.opening_hours,
            )
            for r in rows
        ]
    )


@router.get("/warehouses", response_model=Envelope[WarehouseOut])
def get_warehouses(db: Db, tenant: CurrentTenant) -> Envelope[Any]:
    rows = db.execute(
        select(warehouses)
        .where(warehouses.c.store_id == tenant.store_id)
        .order_by(warehouses.c.position, warehouses.c.id)
    )
    return whole(
        [
            WarehouseOut(
                id=r.id, code=r.code, name=r.name, address=r.address, city=r.city, phone=r.phone
            )
            for r in rows
        ]
    )
