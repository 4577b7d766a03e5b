"""GET /cart, PUT /cart/items, POST /cart/merge, GET /cart/quote."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy import Connection

from companion.commerce.cart_lines import price_variants
from companion.commerce.carts import (
    Cart,
    combine_quantities,
    create_cart,
    customer_cart,
    find_cart,
    hold_active,
    item_quantities,
    replace_items,
    touch,
)
from companion.commerce.quote import PricedLine, Quote, subtotal_of
from companion.commerce.quoting import quote_cart
from companion.commerce_states import CartStatus
from companion.deps import CurrentTenant, Db, ServicesDep
from companion.problems import conflict, forbidden, not_found, unprocessable
from companion.routes.commerce.wire import CartTokenQuery, RequiredCartToken, money
from companion.routes.customer_auth import CustomerId, OptionalCustomerId
from companion.routes.one_hop import OneHopRoute
from companion.schemas.commerce_cart import (
    MAX_QUANTITY,
    CartItemOut,
    CartItemsIn,
    CartOut,
    CartQuoteRead,
    CouponOut,
    DiscountLineOut,
    TaxLineOut,
)
from companion.wire_values import wire

router = APIRouter(tags=["cart"], route_class=OneHopRoute)


def cart_view(conn: Connection, *, store_id: int, cart: Cart, now: datetime) -> CartOut:
    lines = price_variants(conn, store_id=store_id, quantities=item_quantities(conn, cart), now=now)
    return view_of(cart, lines)


def view_of(cart: Cart, lines: list[PricedLine]) -> CartOut:
    """The cart as answered, from its lines priced in the same transaction."""
    return CartOut(
        token=cart.token,
        status=cart.status,
        items=[_item(line) for line in lines],
        item_count=sum(line.quantity for line in lines),
        subtotal=money(subtotal_of(lines)),
        updated_at=wire(cart.updated_at),
    )


def _item(line: PricedLine) -> CartItemOut:
    return CartItemOut(
        variant_id=line.variant_id,
        product_id=line.product_id,
        name=line.name,
        variant_name=line.variant_name,
        sku=line.sku,
        quantity=line.quantity,
        unit_price=money(line.unit_price) if line.available else None,
        line_total=money(line.line_total),
        image_url=line.image_url,
        url=line.url,
        available=line.available,
    )


def resolve_cart(
    conn: Connection, *, store_id: int, token: str | None, customer_id: int | None
) -> Cart:
    """The cart named by its token, else the logged-in customer's current cart."""
    if token:
        cart = find_cart(conn, store_id=store_id, token=token)
        if cart is None:
            raise not_found("cart")
        return cart
    if customer_id is not None:
        cart = customer_cart(conn, store_id=store_id, customer_id=customer_id)
        if cart is None:
            raise not_found("the customer's cart")
        return cart
    raise unprocessable("token", "send the cart token (or log in)")


@router.get("/cart", response_model=CartOut, summary="Cart by cart token")
def read_cart(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: OptionalCustomerId,
    token: CartTokenQuery = None,
) -> CartOut:
    cart = resolve_cart(db, store_id=tenant.store_id, token=token, customer_id=customer_id)
    return cart_view(db, store_id=tenant.store_id, cart=cart, now=services.clock.now())


@router.put("/cart/items", response_model=CartOut, summary="Replace the cart's items")
def put_cart_items(
    body: CartItemsIn,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: OptionalCustomerId,
    token: CartTokenQuery = None,
) -> CartOut:
    """Without a token a new cart is created: keep the returned token."""
    store_id, now = tenant.store_id, services.clock.now()
    wanted = combine_quantities(
        [], [(i.variant_id, i.quantity) for i in body.items], cap=MAX_QUANTITY
    )
    lines = _check_items(db, store_id=store_id, wanted=wanted, body=body, now=now)
    if token:
        cart = _held(db, find_cart(db, store_id=store_id, token=token), store_id=store_id, now=now)
        if customer_id is not None and cart.customer_id is None:
            cart = touch(db, cart, now=now, customer_id=customer_id)
    else:
        cart = create_cart(db, store_id=store_id, customer_id=customer_id, now=now)
    cart = replace_items(db, cart, store_id=store_id, items=wanted, now=now)
    # The cart now holds exactly ``wanted``, in that order, and the lines checked it priced in
    # this transaction: no need to read the items and price them again.
    return view_of(cart, lines)


def _held(
    conn: Connection,
    cart: Cart | None,
    *,
    store_id: int,
    now: datetime,
    then: str = "start a new cart",
) -> Cart:
    """``cart`` held for this request's writes (``hold_active``); 404 without one, 409
    ``cart_closed`` once ordered or merged, even by a request that was still running."""
    if cart is None:
        raise not_found("cart")
    held = hold_active(conn, cart, now=now) if cart.status is CartStatus.ACTIVE else None
    if held is None:
        closed = find_cart(conn, store_id=store_id, token=cart.token) or cart
        raise conflict("cart_closed", f"the cart was {closed.status}; {then}")
    return held


def _check_items(
    conn: Connection,
    *,
    store_id: int,
    wanted: list[tuple[int, int]],
    body: CartItemsIn,
    now: datetime,
) -> list[PricedLine]:
    """Every variant exists, is for sale and has the stock asked for (422 naming the item);
    the lines of ``wanted``, in its order."""
    priced = price_variants(conn, store_id=store_id, quantities=wanted, now=now)
    lines = {line.variant_id: line for line in priced}
    position = {item.variant_id: i for i, item in reversed(list(enumerate(body.items)))}
    for variant_id, quantity in wanted:
        where = f"items.{position[variant_id]}"
        line = lines.get(variant_id)
        if line is None:
            raise unprocessable(f"{where}.variant_id", f"no variant {variant_id} in this store")
        if not line.available:
            raise unprocessable(f"{where}.variant_id", f"{line.name} is not for sale")
        if line.stock is not None and quantity > line.stock:
            raise unprocessable(
                f"{where}.quantity", f"only {max(line.stock, 0)} of {line.name} in stock"
            )
    return priced


@router.post("/cart/merge", response_model=CartOut, summary="Merge a guest cart on login")
def merge_cart(
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: CustomerId,
    token: RequiredCartToken,
) -> CartOut:
    """The guest cart's items go into the customer's cart (quantities add up); without one,
    the guest cart becomes the customer's. The answer is the cart to keep using."""
    store_id, now = tenant.store_id, services.clock.now()
    found = find_cart(db, store_id=store_id, token=token)
    if found is not None and found.customer_id not in (None, customer_id):
        raise forbidden("cart_not_yours", "this cart belongs to another customer")
    guest = _held(db, found, store_id=store_id, now=now, then="nothing to merge")
    target = customer_cart(db, store_id=store_id, customer_id=customer_id)
    if target is not None and target.id != guest.id:
        target = hold_active(db, target, now=now)  # None: ordered meanwhile, the guest's kept
    if target is None or target.id == guest.id:
        adopted = touch(db, guest, now=now, customer_id=customer_id)
        return cart_view(db, store_id=store_id, cart=adopted, now=now)
    merged = combine_quantities(
        item_quantities(db, target), item_quantities(db, guest), cap=MAX_QUANTITY
    )
    target = replace_items(db, target, store_id=store_id, items=merged, now=now)
    touch(db, guest, now=now, status=CartStatus.MERGED)
    return cart_view(db, store_id=store_id, cart=target, now=now)


@router.get("/cart/quote", response_model=CartQuoteRead, summary="Price the cart")
def read_quote(
    request: Request,
    db: Db,
    tenant: CurrentTenant,
    services: ServicesDep,
    customer_id: OptionalCustomerId,
    token: CartTokenQuery = None,
    coupon_code: Annotated[
        str | None, Query(max_length=50, description="One customer-entered code")
    ] = None,
) -> CartQuoteRead:
    """Order-level coupons and promotions are computed here (and only here)."""
    cart = resolve_cart(db, store_id=tenant.store_id, token=token, customer_id=customer_id)
    code = coupon_code.strip() if coupon_code else None
    quote = quote_cart(
        db, store_id=tenant.store_id, cart=cart, coupon_code=code, now=services.clock.now()
    )
    return quote_view(cart, quote, order_discounts=bool(request.app.state.order_discounts))


def quote_view(cart: Cart, quote: Quote, *, order_discounts: bool = False) -> CartQuoteRead:
    verdict = quote.coupon
    return CartQuoteRead(
        token=cart.token,
        currency="VND",
        subtotal=money(quote.subtotal),
        discount_lines=[
            DiscountLineOut(code=d.code, label=d.label, amount=money(d.amount))
            for d in quote.discount_lines
        ],
        tax_lines=[
            TaxLineOut(label=t.label, amount=money(t.amount), included=t.included)
            for t in quote.tax_lines
        ],
        coupon=CouponOut(
            code=verdict.code,
            valid=verdict.valid,
            reason=verdict.reason,
            message=verdict.message,
        )
        if verdict
        else None,
        shipping_total=money(quote.shipping_total),
        total=money(quote.total),
        order_discounts=order_discounts,
    )
