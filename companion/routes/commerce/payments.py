"""GET /checkout/payment-methods, POST /checkout/pay, POST /checkout/payment-return."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from sqlalchemy import select

from companion.commerce.carts import find_cart
from companion.db.commerce_schema import orders
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.logging_http import note_refusal
from companion.payments.return_origins import return_url_refusal, store_origins
from companion.payments.returns import verify_return
from companion.payments.sandbox_access import accepted_gateways, sandbox_serves
from companion.payments.starting import start_payment
from companion.problems import not_found, unprocessable
from companion.routes.commerce.pages import whole
from companion.routes.commerce.wire import RequiredCartToken, money
from companion.routes.one_hop import OneHopRoute
from companion.schemas.commerce_checkout import (
    OrderRefOut,
    PayIn,
    PaymentMethodOut,
    PaymentReturnIn,
    PaymentReturnOut,
    PayOut,
)
from companion.schemas.envelope import Envelope

router = APIRouter(tags=["payments"], route_class=OneHopRoute)


@router.get("/checkout/payment-methods", response_model=Envelope[PaymentMethodOut])
def get_payment_methods(db: Db, tenant: CurrentTenant, services: ServicesDep) -> Envelope[Any]:
    """The gateways the store has connected, cash on delivery (``cod``) always first; online
    gateways only where the sandbox gateway takes the store's payments."""
    store_id = tenant.store_id
    sandbox = sandbox_serves(db, store_id=store_id, asked=services.settings.sandbox_payments)
    return whole(
        [
            PaymentMethodOut(code=g.code, name=g.name, online=g.online)
            for g in accepted_gateways(db, store_id=store_id, sandbox=sandbox)
        ]
    )


@router.post("/checkout/pay", response_model=PayOut, summary="Start a gateway payment")
def post_pay(
    request: Request,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    cart_token: RequiredCartToken,
    body: Annotated[PayIn | None, Body()] = None,
) -> PayOut:
    """For the cart's placed order: redirect the customer to ``payment_url``. The gateway's
    server-to-server notification, not the customer's return, settles the order. A failed
    payment can be started again. ``return_url`` must be on one of the store's own site
    origins (``site_origins``, the session origins, the public url, its host names)."""
    store_id = tenant.store_id
    settings = services.settings
    return_url = body.return_url if body else None
    if return_url is not None:
        why = return_url_refusal(return_url, store_origins(db, settings, store_id=store_id))
        if why is not None:
            note_refusal(request.scope, f"return_url: {why}")
            raise unprocessable("return_url", why)
    cart = find_cart(db, store_id=store_id, token=cart_token)
    if cart is None:
        raise not_found("cart")
    order = db.execute(
        select(orders.c.id, orders.c.code).where(
            orders.c.store_id == store_id, orders.c.cart_id == cart.id
        )
    ).first()
    if order is None:
        raise not_found("an order placed from this cart")
    started = start_payment(
        db,
        store_id=store_id,
        order_id=order.id,
        provider=body.provider if body else None,
        return_url=return_url,
        client_ip=request.client.host if request.client else "127.0.0.1",
        public_url=settings.public_url,
        sandbox=sandbox_serves(db, store_id=store_id, asked=settings.sandbox_payments),
        now=services.clock.now(),
    )
    return PayOut(
        provider=started.provider,
        payment_url=started.payment_url,
        txn_ref=started.txn_ref,
        amount=money(started.amount),
        order_id=order.id,
        order_code=order.code,
    )


@router.post(
    "/checkout/payment-return",
    response_model=PaymentReturnOut,
    summary="Verify a gateway redirect (read-only)",
)
def post_payment_return(body: PaymentReturnIn, db: Db, tenant: CurrentTenant) -> PaymentReturnOut:
    """Checks the signature of the query the gateway sent the customer back with, and says
    what it claims. Changes nothing: only the gateway's IPN settles a payment. Without
    ``provider`` the gateway is recognised among those the store has connected."""
    verdict = verify_return(
        db, store_id=tenant.store_id, query_string=body.query_string, provider=body.provider
    )
    return PaymentReturnOut(
        provider=verdict.provider,
        valid=verdict.valid,
        success=verdict.success,
        response_code=verdict.response_code,
        txn_ref=verdict.txn_ref,
        amount=money(verdict.amount) if verdict.amount is not None else None,
        order=OrderRefOut(
            id=verdict.order[0], code=verdict.order[1], current_status=verdict.order[2]
        )
        if verdict.order
        else None,
        message=verdict.message,
    )
