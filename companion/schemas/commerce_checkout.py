"""Bodies of checkout, shipping, orders and payments.

Address naming follows the spec, counter-intuitive as it is: ``city`` is the province-or-city
level (required), ``province`` the district level (optional), then ``ward`` and ``street``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from companion.commerce_states import CheckoutStatus, ShippingKind
from companion.schemas.commerce_fields import (
    Code,
    Email,
    Name,
    OptionalCode,
    OptionalLine,
    OptionalName,
    RowId,
    WireMoney,
    WireTime,
)

RequiredPhone = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=6, max_length=30, pattern=r"^[0-9+() .\-]+$"
    ),
]
Note = Annotated[
    str | None, StringConstraints(strip_whitespace=True, max_length=1000, pattern=r"^[^\x00]*$")
]
#: Checked by ``payments.return_origins`` (a plain http(s) address on one of the store's own
#: site origins), so that every refusal is logged with its reason.
ReturnUrl = str | None


class AddressIn(BaseModel):
    full_name: Name
    phone: RequiredPhone
    email: Email | None = None
    city: Name = Field(description="Province or centrally-run city (the spec's name)")
    province: OptionalName = Field(None, description="District level (the spec's name)")
    ward: OptionalName = None
    street: OptionalLine = None


class AddressOut(BaseModel):
    full_name: str
    phone: str
    email: str | None
    city: str
    province: str | None
    ward: str | None
    street: str | None


class CheckoutIn(BaseModel):
    email: Email | None = None
    coupon_code: OptionalCode = Field(
        None,
        description=(
            "Kept for the customer's coupon history; priced only in the quote. Null keeps the "
            "code the checkout holds; an empty string takes it off (this implementation's way: "
            "the spec has none)"
        ),
    )


class ShippingChoiceIn(BaseModel):
    shipping_method: Code
    pickup_location_id: RowId | None = Field(None, description="Required for a pickup method")


class CheckoutPaymentIn(BaseModel):
    payment_method: Code


class CheckoutOut(BaseModel):
    checkout_id: str
    cart_token: str
    status: CheckoutStatus
    email: str | None
    coupon_code: str | None
    address: AddressOut | None
    shipping_method: str | None
    pickup_location_id: int | None
    payment_method: str | None
    order_id: int | None
    updated_at: WireTime


class PaymentIn(BaseModel):
    payment_method: Code = Field(description="A free string, e.g. cod or vnpay")
    redeem_points: int = Field(
        0,
        ge=0,
        le=10**9,
        description=(
            "Loyalty points to spend: only with the customer JWT of the cart's own customer "
            "(or on a guest cart); the cart token alone never spends points"
        ),
    )


class PlaceOrderIn(BaseModel):
    """No coupon field and no shipping block (spec): shipping comes from the checkout."""

    address: AddressIn
    payment: PaymentIn
    note: Note = None


class OrderItemOut(BaseModel):
    product_id: int | None
    variant_id: int | None
    name: str
    variant_name: str | None
    sku: str | None
    quantity: int
    list_price: WireMoney
    unit_price: WireMoney
    flash_sale_id: int | None


class OrderOut(BaseModel):
    id: int
    code: str
    current_status: str
    total: WireMoney
    subtotal: WireMoney
    discount_total: WireMoney = Field(description="Product-level discounts and loyalty points")
    discount_amount: WireMoney = Field(description="Order-level discount: always 0")
    shipping_total: WireMoney
    currency: str
    payment_method: str
    shipping_method: str | None
    points_redeemed: int
    points_earned: int
    placed_at: WireTime
    note: str | None
    items: list[OrderItemOut]


class CustomerOrderRead(BaseModel):
    """Exactly the ten scalar fields of the spec: no items, no shipping address."""

    id: int
    code: str
    current_status: str
    total: WireMoney
    subtotal: WireMoney
    discount_total: WireMoney
    shipping_total: WireMoney
    currency: str
    placed_at: WireTime
    note: str | None


class ShippingMethodsIn(BaseModel):
    cart_token: Annotated[str, StringConstraints(max_length=100)] | None = None
    city: OptionalName = None


class ShippingMethodOut(BaseModel):
    code: str
    name: str
    kind: ShippingKind
    fee: WireMoney = Field(description="For the given cart, after any free-shipping threshold")
    free_over: WireMoney | None
    estimated_days: str | None


class ProvinceOut(BaseModel):
    code: str
    name: str


class WardOut(BaseModel):
    code: str
    name: str
    province_code: str


class PickupLocationOut(BaseModel):
    id: int
    name: str
    address: str
    city: str
    phone: str | None
    opening_hours: str | None


class WarehouseOut(BaseModel):
    id: int
    code: str
    name: str
    address: str
    city: str
    phone: str | None


class PaymentMethodOut(BaseModel):
    code: str
    name: str
    online: bool = Field(description="True: paid through POST /checkout/pay")


class PayIn(BaseModel):
    provider: OptionalCode = Field(None, description="Default: the order's payment_method")
    return_url: ReturnUrl = Field(
        None,
        description="Where the gateway sends the customer back: a plain http(s) address of "
        "at most 2000 characters on one of the store's own site origins",
    )


class PayOut(BaseModel):
    provider: str
    payment_url: str = Field(description="Redirect the customer here")
    txn_ref: str
    amount: WireMoney
    order_id: int
    order_code: str


class PaymentReturnIn(BaseModel):
    query_string: Annotated[str, StringConstraints(max_length=4000)] = Field(
        description="Raw payload: the query string of a GET return, the raw body of a POST one"
    )
    provider: OptionalCode = Field(None, description="Optional: identified when omitted")


class OrderRefOut(BaseModel):
    id: int
    code: str
    current_status: str


class PaymentReturnOut(BaseModel):
    provider: str
    valid: bool = Field(description="The signature is the gateway's")
    success: bool = Field(description="The gateway reports success (the IPN still decides)")
    response_code: str | None
    txn_ref: str | None
    amount: WireMoney | None
    order: OrderRefOut | None
    message: str
