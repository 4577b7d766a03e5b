"""The money of an order: what it records and what it charges. Pure.

subtotal        regular prices x quantities
discount_total  product-level discounts (flash-sale prices) + redeemed loyalty points
discount_amount order-level discount: always 0 (coupons and promotions live in the quote)
total           subtotal - discount_total + shipping_total
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

    @property
    def discount_total(self) -> int:
        return self.product_discount + self.points_discount

    @property
    def total(self) -> int:
        return self.subtotal - self.discount_total + self.shipping_total


def order_totals(
    lines: Sequence[PricedLine],
    *,
    shipping_total: int,
    points_wanted: int,
    loyalty: LoyaltyRule,
) -> OrderTotals:
    """Points are redeemed only up to the value of the goods (never to pay for shipping)."""
    subtotal = sum(line.list_price * line.quantity for line in lines)
    product_discount = sum((line.list_price - line.unit_price) * line.quantity for line in lines)
    goods = subtotal - product_discount
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
    )
