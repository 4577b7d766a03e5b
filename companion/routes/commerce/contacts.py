"""POST /contacts (no login) and the customer's own messages: GET/POST /customer/contacts/,
GET /customer/contacts/{contact_id}."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, status
from sqlalchemy import Connection, insert, select

from companion.customers.accounts import get_customer
from companion.db.commerce_schema import contacts
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import not_found
from companion.routes.commerce.pages import newest_first, page_of
from companion.routes.customer_auth import CustomerId, OptionalCustomerId
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import Cursor, EntityId, Limit
from companion.schemas.commerce_activity import ContactIn, ContactOut, CustomerContactIn
from companion.schemas.envelope import Envelope
from companion.wire_values import wire

router = APIRouter(tags=["contacts"], route_class=OneHopRoute)


def contact_view(row: Any) -> ContactOut:
    return ContactOut(
        id=row.id,
        name=row.name,
        email=row.email,
        phone=row.phone,
        subject=row.subject,
        message=row.message,
        status=row.status,
        created_at=wire(row.created_at),
    )


def _store_contact(
    conn: Connection,
    *,
    store_id: int,
    customer_id: int | None,
    values: dict[str, Any],
    now: datetime,
) -> ContactOut:
    result = conn.execute(
        insert(contacts).values(
            store_id=store_id, customer_id=customer_id, status="new", created_at=now, **values
        )
    )
    assert result.inserted_primary_key is not None
    row = conn.execute(
        select(contacts).where(contacts.c.id == result.inserted_primary_key[0])
    ).one()
    return contact_view(row)


@router.post("/contacts", response_model=ContactOut, status_code=status.HTTP_201_CREATED)
def post_contact(
    body: ContactIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: OptionalCustomerId,
) -> ContactOut:
    """A support message without login; the store comes from the key or the Host header."""
    values = body.model_dump()
    values["email"] = values["email"].lower()
    return _store_contact(
        db,
        store_id=tenant.store_id,
        customer_id=customer_id,
        values=values,
        now=services.clock.now(),
    )


@router.get("/customer/contacts/", response_model=Envelope[ContactOut])
def get_customer_contacts(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[ContactOut]:
    query = select(contacts).where(
        contacts.c.store_id == tenant.store_id, contacts.c.customer_id == customer_id
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=contacts.c.created_at,
        id_col=contacts.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    return page_of([contact_view(r) for r in rows], next_cursor, has_more)


@router.get("/customer/contacts/{contact_id}", response_model=ContactOut)
def get_customer_contact(
    contact_id: EntityId, db: Db, tenant: CurrentTenant, customer_id: CustomerId
) -> ContactOut:
    row = db.execute(
        select(contacts).where(
            contacts.c.store_id == tenant.store_id,
            contacts.c.customer_id == customer_id,
            contacts.c.id == contact_id,
        )
    ).first()
    if row is None:
        raise not_found(f"contact {contact_id}")
    return contact_view(row)


@router.post("/customer/contacts/", response_model=ContactOut, status_code=status.HTTP_201_CREATED)
def post_customer_contact(
    body: CustomerContactIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> ContactOut:
    """Name and e-mail default to the account's."""
    customer = get_customer(db, store_id=tenant.store_id, customer_id=customer_id)
    assert customer is not None  # the auth dependency checked it
    values = body.model_dump()
    values["name"] = values["name"] or customer.full_name
    values["email"] = (values["email"] or customer.email).lower()
    return _store_contact(
        db,
        store_id=tenant.store_id,
        customer_id=customer_id,
        values=values,
        now=services.clock.now(),
    )
