"""Shipping methods, pickup locations and warehouses of a store."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, select

from companion.commerce_states import ShippingKind
from companion.db.commerce_schema import pickup_locations, shipping_methods


@dataclass(frozen=True, slots=True)
class ShippingMethod:
    code: str
    name: str
    kind: ShippingKind
    fee: int
    free_over: int | None
    estimated_days: str | None


# Built once: every order placed reads it.
_ENABLED = (
    select(
        shipping_methods.c.code,
        shipping_methods.c.name,
        shipping_methods.c.kind,
        shipping_methods.c.fee,
        shipping_methods.c.free_over,
        shipping_methods.c.estimated_days,
    )
    .where(
        shipping_methods.c.store_id == bindparam("store_id"), shipping_methods.c.enabled.is_(True)
    )
    .order_by(shipping_methods.c.position, shipping_methods.c.id)
)


def enabled_methods(conn: Connection, *, store_id: int) -> list[ShippingMethod]:
    rows = conn.execute(_ENABLED, {"store_id": store_id})
    return [
        ShippingMethod(code, name, ShippingKind(kind), fee, free_over, days)
        for code, name, kind, fee, free_over, days in rows
    ]


def find_method(conn: Connection, *, store_id: int, code: str) -> ShippingMethod | None:
    return next((m for m in enabled_methods(conn, store_id=store_id) if m.code == code), None)


def pickup_location_exists(conn: Connection, *, store_id: int, location_id: int) -> bool:
    found = conn.execute(
        select(pickup_locations.c.id).where(
            pickup_locations.c.store_id == store_id, pickup_locations.c.id == location_id
        )
    ).first()
    return found is not None
