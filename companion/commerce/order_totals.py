"""The money of an order: what it records and what it charges. Pure.

subtotal        regular prices x quantities
discount_total  product-level discounts (flash-sale prices) + redeemed loyalty points
                (+ the order-level discount, with the order-discounts extension)
discount_amount order-level discount: 0 as the spec says (coupons and promotions live in the
                quote); with the extension, the quote's discount lines
total           subtotal - discount_total + added tax + shipping_total: with the extension,
                to the dong the quote's total
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.commerce.quote import PricedLine
from companion.commerce.store_rules import LoyaltyRule


@dataclass(frozen=True, slots=True)
class OrderTotals:
    subtotal: int
    product_discount: int
    points_redeemed: int
    points_discount: int
    shipping_total: int
    points_earned: int
    order_discount: int = 0  # the quote's discount lines (extension; 0 as the spec says)
    added_tax: int = 0  # VAT not inside the prices, as the quote adds it (extension)

    @property
    def discount_total(self) -> int:
        return self.product_discount + self.points_discount + self.order_discount

    @property
    def total(self) -> int:
        return self.subtotal - self.discount_total + self.added_tax + self.shipping_total


def order_totals(
    lines: Sequence[PricedLine],
    *,
    shipping_total: int,
    points_wanted: int,
    loyalty: LoyaltyRule,
    order_discount: int = 0,
    added_tax: int = 0,
) -> OrderTotals:
    """Points are redeemed only up to the value of the goods (never to pay for shipping)."""
    subtotal = sum(line.list_price * line.quantity for line in lines)
    product_discount = sum((line.list_price - line.unit_price) * line.quantity for line in lines)
    goods = subtotal - product_discount - order_discount
    value = max(loyalty.point_value_vnd, 1)
    points = max(0, min(points_wanted, goods // value))
    points_discount = points * value
    return OrderTotals(
        subtotal=subtotal,
        product_discount=product_discount,
        points_redeemed=points,
        points_discount=points_discount,
        shipping_total=shipping_total,
        points_earned=loyalty.points_earned(goods - points_discount),
        order_discount=order_discount,
        added_tax=added_tax,
    )
