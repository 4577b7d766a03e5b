"""GET/POST /customer/addresses, PATCH/DELETE /customer/addresses/{id},
POST /customer/addresses/{id}/default."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status
from sqlalchemy import Connection

from companion.customers.addresses import (
    MAX_ADDRESSES,
    add_address,
    change_address,
    count_addresses,
    get_address,
    list_addresses,
    remove_address,
    set_default,
)
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import conflict, not_found, unprocessable
from companion.routes.commerce.pages import whole
from companion.routes.customer_auth import CustomerId
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import EntityId
from companion.schemas.commerce_customer import (
    CustomerAddressIn,
    CustomerAddressOut,
    CustomerAddressPatch,
)
from companion.schemas.envelope import Envelope
from companion.wire_values import wire

router = APIRouter(tags=["customer"], route_class=OneHopRoute)

REQUIRED = ("full_name", "phone", "city")


def address_view(row: Any) -> CustomerAddressOut:
    return CustomerAddressOut(
        id=row.id,
        full_name=row.full_name,
        phone=row.phone,
        city=row.city,
        province=row.province,
        ward=row.ward,
        street=row.street,
        is_default=bool(row.is_default),
        created_at=wire(row.created_at),
        updated_at=wire(row.updated_at),
    )


def _owned(conn: Connection, store_id: int, customer_id: int, address_id: int) -> Any:
    row = get_address(conn, store_id=store_id, customer_id=customer_id, address_id=address_id)
    if row is None:
        raise not_found(f"address {address_id}")
    return row


@router.get("/customer/addresses", response_model=Envelope[CustomerAddressOut])
def get_addresses(
    db: Db, tenant: CurrentTenant, customer_id: CustomerId
) -> Envelope[CustomerAddressOut]:
    """The default address first."""
    rows = list_addresses(db, store_id=tenant.store_id, customer_id=customer_id)
    return whole([address_view(r) for r in rows])


@router.post(
    "/customer/addresses",
    response_model=CustomerAddressOut,
    status_code=status.HTTP_201_CREATED,
)
def post_address(
    body: CustomerAddressIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> CustomerAddressOut:
    """The first address becomes the default; ``is_default`` makes any later one the default."""
    if count_addresses(db, customer_id=customer_id) >= MAX_ADDRESSES:
        raise conflict("too_many_addresses", f"at most {MAX_ADDRESSES} addresses per customer")
    values = body.model_dump(exclude={"is_default"})
    address_id = add_address(
        db,
        store_id=tenant.store_id,
        customer_id=customer_id,
        values=values,
        make_default=body.is_default,
        now=services.clock.now(),
    )
    return address_view(_owned(db, tenant.store_id, customer_id, address_id))


@router.patch("/customer/addresses/{address_id}", response_model=CustomerAddressOut)
def patch_address(
    address_id: EntityId,
    body: CustomerAddressPatch,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> CustomerAddressOut:
    """Changes the fields sent; null clears an optional field (province, ward, street)."""
    _owned(db, tenant.store_id, customer_id, address_id)
    changes = body.model_dump(exclude_unset=True)
    for name in REQUIRED:
        if name in changes and changes[name] is None:
            raise unprocessable(name, "cannot be null")
    if changes:
        change_address(db, address_id=address_id, values=changes, now=services.clock.now())
    return address_view(_owned(db, tenant.store_id, customer_id, address_id))


@router.delete(
    "/customer/addresses/{address_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
)
def delete_address(
    address_id: EntityId, db: Db, tenant: CurrentTenant, customer_id: CustomerId
) -> None:
    """Deleting the default makes the most recently added remaining address the default."""
    _owned(db, tenant.store_id, customer_id, address_id)
    remove_address(db, customer_id=customer_id, address_id=address_id)


@router.post("/customer/addresses/{address_id}/default", response_model=CustomerAddressOut)
def post_default_address(
    address_id: EntityId, db: Db, tenant: CurrentTenant, customer_id: CustomerId
) -> CustomerAddressOut:
    _owned(db, tenant.store_id, customer_id, address_id)
    set_default(db, customer_id=customer_id, address_id=address_id)
    return address_view(_owned(db, tenant.store_id, customer_id, address_id))
