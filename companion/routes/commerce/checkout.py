"""POST /checkout, PUT /checkout/{id}/address and /shipping, POST /checkout/{id}/payment,
POST /checkout/place-order."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Body, Header, Path, Request, Response, status
from sqlalchemy import Connection

from companion.commerce.carts import find_cart
from companion.commerce.checkouts import (
    Checkout,
    get_checkout,
    latest_checkout,
    start_checkout,
    update_checkout,
)
from companion.commerce.discounts import normalize_code
from companion.commerce.order_reads import order_item_rows, order_row
from companion.commerce.ordering import OrderRequest, place_order
from companion.commerce.shipping import find_method, pickup_location_exists
from companion.commerce_states import CartStatus, CheckoutStatus, ShippingKind
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.order_mail import mail_is_on, send_order_mails
from companion.payments.sandbox_access import accepted_gateways, sandbox_serves
from companion.problems import conflict, not_found, unprocessable
from companion.routes.commerce.wire import RequiredCartToken, money
from companion.routes.customer_auth import OptionalCustomerId
from companion.routes.one_hop import OneHopRoute
from companion.schemas.commerce_checkout import (
    AddressIn,
    AddressOut,
    CheckoutIn,
    CheckoutOut,
    CheckoutPaymentIn,
    OrderItemOut,
    OrderOut,
    PlaceOrderIn,
    ShippingChoiceIn,
)
from companion.wire_values import wire

router = APIRouter(tags=["checkout"], route_class=OneHopRoute)

CheckoutId = Annotated[str, Path(min_length=1, max_length=40, description="The checkout_id")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=200,
        description="A request replayed with the same key answers with the same order",
    ),
]


def checkout_view(checkout: Checkout) -> CheckoutOut:
    return CheckoutOut(
        checkout_id=checkout.id,
        cart_token=checkout.cart_token,
        status=checkout.status,
        email=checkout.email,
        coupon_code=checkout.coupon_code,
        address=AddressOut.model_validate(checkout.address) if checkout.address else None,
        shipping_method=checkout.shipping_method,
        pickup_location_id=checkout.pickup_location_id,
        payment_method=checkout.payment_method,
        order_id=checkout.order_id,
        updated_at=wire(checkout.updated_at),
    )


def order_view(conn: Connection, row: Any) -> OrderOut:
    return OrderOut(
        id=row.id,
        code=row.code,
        current_status=row.current_status,
        total=money(row.total),
        subtotal=money(row.subtotal),
        discount_total=money(row.discount_total),
        discount_amount=money(row.discount_amount),
        shipping_total=money(row.shipping_total),
        currency=row.currency,
        payment_method=row.payment_method,
        shipping_method=row.shipping_method,
        points_redeemed=row.points_redeemed,
        points_earned=row.points_earned,
        placed_at=wire(row.placed_at),
        note=row.note,
        items=[
            OrderItemOut(
                product_id=item.product_id,
                variant_id=item.variant_id,
                name=item.name,
                variant_name=item.variant_name,
                sku=item.sku,
                quantity=item.quantity,
                list_price=money(item.list_price),
                unit_price=money(item.unit_price),
                flash_sale_id=item.flash_sale_id,
            )
            for item in order_item_rows(conn, order_id=row.id)
        ],
    )


def _open_checkout(conn: Connection, *, store_id: int, checkout_id: str) -> Checkout:
    checkout = get_checkout(conn, store_id=store_id, checkout_id=checkout_id)
    if checkout is None:
        raise not_found("checkout")
    if checkout.status is not CheckoutStatus.OPEN:
        raise conflict("checkout_completed", "the checkout already became an order")
    return checkout


@router.post("/checkout", response_model=CheckoutOut, summary="Start (or resume) a checkout")
def create_checkout(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: OptionalCustomerId,
    cart_token: RequiredCartToken,
    body: Annotated[CheckoutIn | None, Body()] = None,
) -> CheckoutOut:
    """A cart has one checkout: starting again returns it (with any e-mail or code updated;
    an empty ``coupon_code`` takes the coupon off)."""
    store_id, now = tenant.store_id, services.clock.now()
    cart = find_cart(db, store_id=store_id, token=cart_token)
    if cart is None:
        raise not_found("cart")
    if cart.status is not CartStatus.ACTIVE:
        existing = latest_checkout(db, store_id=store_id, cart_id=cart.id)
        if existing is not None:
            return checkout_view(existing)  # the completed checkout of an ordered cart
        raise conflict("cart_closed", f"the cart was {cart.status}; start a new cart")
    checkout = start_checkout(
        db, store_id=store_id, cart=cart, customer_id=customer_id or cart.customer_id, now=now
    )
    changes: dict[str, Any] = {}
    if body is not None and body.email:
        changes["email"] = body.email.lower()
    if body is not None and body.coupon_code is not None:
        # The spec has no way to take a coupon off a checkout: ours is an explicit empty code
        # (null, or no field, keeps the one the checkout holds).
        changes["coupon_code"] = normalize_code(body.coupon_code) or None
    if changes:
        checkout = update_checkout(db, checkout, changes, now=now)
    return checkout_view(checkout)


@router.put("/checkout/{checkout_id}/address", response_model=CheckoutOut)
def put_checkout_address(
    checkout_id: CheckoutId,
    body: AddressIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
) -> CheckoutOut:
    """``city``: province or city (required); ``province``: district (optional); ``ward``."""
    checkout = _open_checkout(db, store_id=tenant.store_id, checkout_id=checkout_id)
    changes: dict[str, Any] = {"address": body.model_dump()}
    if body.email:
        changes["email"] = body.email.lower()
    return checkout_view(update_checkout(db, checkout, changes, now=services.clock.now()))


@router.put("/checkout/{checkout_id}/shipping", response_model=CheckoutOut)
def put_checkout_shipping(
    checkout_id: CheckoutId,
    body: ShippingChoiceIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
) -> CheckoutOut:
    store_id = tenant.store_id
    checkout = _open_checkout(db, store_id=store_id, checkout_id=checkout_id)
    method = find_method(db, store_id=store_id, code=body.shipping_method)
    if method is None:
        raise unprocessable(
            "shipping_method", f"{body.shipping_method!r} is not a shipping method of this store"
        )
    location = body.pickup_location_id
    if method.kind is ShippingKind.PICKUP:
        if location is None:
            raise unprocessable("pickup_location_id", "required for a pickup method")
        if not pickup_location_exists(db, store_id=store_id, location_id=location):
            raise unprocessable("pickup_location_id", f"no pickup location {location}")
    else:
        location = None
    changes = {"shipping_method": method.code, "pickup_location_id": location}
    return checkout_view(update_checkout(db, checkout, changes, now=services.clock.now()))


@router.post("/checkout/{checkout_id}/payment", response_model=CheckoutOut)
def post_checkout_payment(
    checkout_id: CheckoutId,
    body: CheckoutPaymentIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
) -> CheckoutOut:
    """Choose one of GET /checkout/payment-methods for this checkout."""
    store_id = tenant.store_id
    checkout = _open_checkout(db, store_id=store_id, checkout_id=checkout_id)
    sandbox = sandbox_serves(db, store_id=store_id, asked=services.settings.sandbox_payments)
    codes = [g.code for g in accepted_gateways(db, store_id=store_id, sandbox=sandbox)]
    if body.payment_method not in codes:
        raise unprocessable(
            "payment_method", f"not accepted by this store; choose one of: {', '.join(codes)}"
        )
    changes = {"payment_method": body.payment_method}
    return checkout_view(update_checkout(db, checkout, changes, now=services.clock.now()))


@router.post(
    "/checkout/place-order",
    response_model=OrderOut,
    status_code=status.HTTP_201_CREATED,
    summary="Place the cart's order (once)",
    responses={200: {"model": OrderOut, "description": "The order placed before for this cart"}},
)
def post_place_order(
    http_request: Request,
    body: PlaceOrderIn,
    response: Response,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: OptionalCustomerId,
    cart_token: RequiredCartToken,
    background: BackgroundTasks,
    idempotency_key: IdempotencyKey = None,
) -> OrderOut:
    """Exactly one order per cart: placing again answers 200 with the same order. Stock is
    reserved atomically; product-level discounts, flash-sale prices and loyalty points are
    recorded; ``discount_amount`` is 0, or with the companion's ``order_discounts`` extension
    the quote's discount lines (the order is charged the quote's total). A customer JWT ties
    the order to the customer; ``redeem_points`` needs that JWT (401 ``login_required``), of
    the cart's own customer (403 ``cart_not_yours``). 409 ``coupon_used_up``: the coupon the
    order was priced with reached its usage limit meanwhile; quote the cart again."""
    store_id = tenant.store_id
    request = OrderRequest(
        address=body.address.model_dump(),
        payment_method=body.payment.payment_method,
        note=body.note or None,
        redeem_points=body.payment.redeem_points,
        idempotency_key=idempotency_key.strip() if idempotency_key else None,
    )
    placed = place_order(
        db,
        store_id=store_id,
        cart_token=cart_token,
        request=request,
        customer_id=customer_id,
        now=services.clock.now(),
        order_discounts=bool(http_request.app.state.order_discounts),
    )
    if not placed.created:
        response.status_code = status.HTTP_200_OK
    if placed.created and mail_is_on(services.settings):  # once committed and answered
        background.add_task(
            send_order_mails,
            services.engine,
            services.settings,
            store_id=store_id,
            order_id=placed.order_id,
            event="new",
        )
    row = order_row(db, store_id=store_id, order_id=placed.order_id)
    assert row is not None
    return order_view(db, row)
