"""GET /customer/orders, GET /customer/orders/{order_id}, GET /customer/coupons, and the
companion's POST /customer/orders/claim (not in the spec: a guest order joined by proof)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import select

from companion.clients import client_address
from companion.commerce.order_claims import claim_order
from companion.commerce.order_reads import customer_order_row
from companion.customers.login_attempts import claim_attempt, give_back
from companion.customers.throttle import counts_of
from companion.db.commerce_schema import coupon_usages, orders
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.logging_http import note_refusal
from companion.problems import not_found
from companion.routes.commerce.customer_account import login_limits, login_throttled
from companion.routes.commerce.pages import newest_first, page_of
from companion.routes.commerce.wire import money
from companion.routes.customer_auth import CustomerId
from companion.routes.one_hop import OneHopRoute
from companion.routes.read.params import Cursor, EntityId, Limit
from companion.schemas.commerce_checkout import CustomerOrderRead
from companion.schemas.commerce_customer import CouponUseOut, OrderClaimIn
from companion.schemas.envelope import Envelope
from companion.wire_values import wire

router = APIRouter(tags=["customer"], route_class=OneHopRoute)


def customer_order_view(row: Any) -> CustomerOrderRead:
    """The spec's ten scalar fields and nothing else."""
    return CustomerOrderRead(
        id=row.id,
        code=row.code,
        current_status=row.current_status,
        total=money(row.total),
        subtotal=money(row.subtotal),
        discount_total=money(row.discount_total),
        shipping_total=money(row.shipping_total),
        currency=row.currency,
        placed_at=wire(row.placed_at),
        note=row.note,
    )


@router.get("/customer/orders", response_model=Envelope[CustomerOrderRead])
def get_orders(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[CustomerOrderRead]:
    """The customer's orders, newest first."""
    query = select(orders).where(
        orders.c.store_id == tenant.store_id, orders.c.customer_id == customer_id
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=orders.c.placed_at,
        id_col=orders.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    return page_of([customer_order_view(r) for r in rows], next_cursor, has_more)


@router.get("/customer/orders/{order_id}", response_model=CustomerOrderRead)
def get_order(
    order_id: EntityId, db: Db, tenant: CurrentTenant, customer_id: CustomerId
) -> CustomerOrderRead:
    """Exactly ten scalar fields: no items and no shipping address (spec)."""
    row = customer_order_row(
        db, store_id=tenant.store_id, customer_id=customer_id, order_id=order_id
    )
    if row is None:
        raise not_found(f"order {order_id}")
    return customer_order_view(row)


@router.post("/customer/orders/claim", response_model=CustomerOrderRead)
def post_order_claim(
    body: OrderClaimIn,
    request: Request,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
) -> CustomerOrderRead:
    """A guest order joined to the customer's account by its code and the phone it was placed
    with (docs/orders.md); 404 for anything else, whoever's it is. Guesses at one order are
    limited like logins (``login_attempts`` per client and code in ``login_window_seconds``)."""
    code = body.code.upper()
    limits = login_limits(services.settings)
    counts = counts_of(limits, client_address(request.scope), f"order:{code}")
    refused = claim_attempt(
        services.engine,
        store_id=tenant.store_id,
        counts=counts,
        window=limits.window,
        now=services.clock.now(),
    )
    if refused is not None:
        note_refusal(request.scope, f"order claim throttled: {refused.whom}")
        raise login_throttled(refused.seconds)
    row = claim_order(
        db, store_id=tenant.store_id, customer_id=customer_id, code=code, phone=body.phone
    )
    if row is None:
        note_refusal(request.scope, "order claim: no guest order with this code and phone")
        raise not_found("order")
    give_back(db, store_id=tenant.store_id, counts=counts)  # a proof is no guess: not counted
    return customer_order_view(row)


@router.get("/customer/coupons", response_model=Envelope[CouponUseOut])
def get_coupon_history(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    cursor: Cursor = None,
    limit: Limit = None,
) -> Envelope[CouponUseOut]:
    """Codes the customer has used, newest first (there is no list of available coupons)."""
    query = select(coupon_usages).where(
        coupon_usages.c.store_id == tenant.store_id,
        coupon_usages.c.customer_id == customer_id,
    )
    rows, next_cursor, has_more = newest_first(
        db,
        query,
        time_col=coupon_usages.c.used_at,
        id_col=coupon_usages.c.id,
        cursor=cursor,
        limit=limit,
        services=services,
    )
    items = [
        CouponUseOut(
            id=r.id, coupon_code=r.coupon_code, used_at=wire(r.used_at), order_id=r.order_id
        )
        for r in rows
    ]
    return page_of(items, next_cursor, has_more)
