"""Bodies of the cart endpoints: GET /cart, PUT /cart/items, POST /cart/merge, GET /cart/quote."""

from __future__ import annotations

from pydantic import BaseModel, Field

from companion.commerce_states import CartStatus, CouponReason
from companion.schemas.commerce_fields import RowId, WireMoney, WireTime

MAX_QUANTITY = 999
MAX_LINES = 100


class CartItemIn(BaseModel):
    variant_id: RowId
    quantity: int = Field(ge=1, le=MAX_QUANTITY)


class CartItemsIn(BaseModel):
    """The whole new content of the cart (it replaces the items); an empty list empties it."""

    items: list[CartItemIn] = Field(max_length=MAX_LINES)


class CartItemOut(BaseModel):
    variant_id: int
    product_id: int
    name: str
    variant_name: str
    sku: str | None
    quantity: int
    unit_price: WireMoney | None = Field(description="Null while the item cannot be bought")
    line_total: WireMoney
    image_url: str | None
    url: str | None
    available: bool = Field(description="False: unpublished, off sale or without a price")


class CartOut(BaseModel):
    token: str = Field(description="The cart token; keep it in the service_cart cookie")
    status: CartStatus
    items: list[CartItemOut]
    item_count: int = Field(description="Sum of the quantities")
    subtotal: WireMoney
    updated_at: WireTime


class DiscountLineOut(BaseModel):
    code: str | None = Field(description="The coupon code; null for an automatic promotion")
    label: str
    amount: WireMoney


class TaxLineOut(BaseModel):
    label: str
    amount: WireMoney
    included: bool = Field(description="True: already inside the prices, not added to total")


class CouponOut(BaseModel):
    code: str
    valid: bool
    reason: CouponReason
    message: str


class CartQuoteRead(BaseModel):
    token: str
    currency: str
    subtotal: WireMoney
    discount_lines: list[DiscountLineOut]
    tax_lines: list[TaxLineOut]
    coupon: CouponOut | None
    shipping_total: WireMoney
    total: WireMoney
    order_discounts: bool = Field(
        False,
        description="Extension of this API: true when the order placed from this cart is "
        "charged this quote's discount lines (the spec leaves order-level coupons and "
        "promotions out of the order; a backend without this field does so)",
    )
