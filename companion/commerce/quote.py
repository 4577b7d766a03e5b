"""Pricing a cart: subtotal, order-level discounts, tax and shipping, as integer VND. Pure.

The quote is where order-level coupons and promotions are priced (spec: they are not written to
the order). Unit prices come in already carrying product-level discounts (flash sales).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from companion.commerce.discounts import CouponVerdict, DiscountRule


@dataclass(frozen=True, slots=True)
class PricedLine:
    """One cart line at the prices in force: ``unit_price`` is what the customer pays."""

    variant_id: int
    product_id: int
    name: str
    variant_name: str
    sku: str | None
    quantity: int
    list_price: int  # regular unit price
    unit_price: int  # after product-level discounts
    flash_sale_id: int | None
    image_url: str | None
    url: str | None
    stock: int | None  # None: not tracked
    available: bool = True  # False: unpublished, off sale or without a price; never charged

    @property
    def line_total(self) -> int:
        return self.unit_price * self.quantity if self.available else 0


@dataclass(frozen=True, slots=True)
class Promotion:
    """An automatic order discount. With ``product_ids`` it counts only those products' lines:
    it applies from ``min_quantity`` of their units and takes its amount off their total."""

    label: str
    rule: DiscountRule
    product_ids: frozenset[int] | None = None  # None: the whole order
    min_quantity: int = 0

    def base(self, lines: Sequence[PricedLine]) -> int:
        """What the promotion is priced on: 0 when the cart does not qualify."""
        counted = [
            line
            for line in lines
            if line.available and (self.product_ids is None or line.product_id in self.product_ids)
        ]
        if sum(line.quantity for line in counted) < self.min_quantity:
            return 0
        return subtotal_of(counted)


@dataclass(frozen=True, slots=True)
class TaxRule:
    vat_percent: int
    prices_include_tax: bool


@dataclass(frozen=True, slots=True)
class MoneyLine:
    label: str
    amount: int
    code: str | None = None
    included: bool = False  # a tax line already inside the prices


@dataclass(frozen=True, slots=True)
class Quote:
    subtotal: int
    discount_lines: tuple[MoneyLine, ...]
    tax_lines: tuple[MoneyLine, ...]
    shipping_total: int
    total: int
    coupon: CouponVerdict | None


def subtotal_of(lines: Sequence[PricedLine]) -> int:
    return sum(line.line_total for line in lines)


def price_quote(
    lines: Sequence[PricedLine],
    *,
    promotions: Sequence[Promotion],
    coupon: CouponVerdict | None,
    tax: TaxRule,
    shipping_total: int,
    now: datetime,
) -> Quote:
    """Promotions, then the coupon, each on the subtotal; together never more than it."""
    subtotal = subtotal_of(lines)
    remaining = subtotal
    discounts: list[MoneyLine] = []
    for promo in promotions:
        rule = promo.rule
        if not rule.running_at(now) or subtotal < rule.min_order:
            continue
        base = promo.base(lines)
        off = min(rule.amount_off(base), remaining) if base > 0 else 0
        if off > 0:
            discounts.append(MoneyLine(promo.label, off))
            remaining -= off
    if coupon is not None and coupon.valid:
        off = min(coupon.amount, remaining)
        if off > 0:
            discounts.append(MoneyLine(f"Coupon {coupon.code}", off, code=coupon.code))
            remaining -= off
    taxes = _tax_lines(remaining, tax)
    added_tax = sum(t.amount for t in taxes if not t.included)
    return Quote(
        subtotal=subtotal,
        discount_lines=tuple(discounts),
        tax_lines=taxes,
        shipping_total=shipping_total,
        total=remaining + added_tax + shipping_total,
        coupon=coupon,
    )


def _tax_lines(taxable: int, tax: TaxRule) -> tuple[MoneyLine, ...]:
    """VAT on the goods after discounts (shipping is quoted as a carrier fee, untaxed here)."""
    if tax.vat_percent <= 0:
        return ()
    if tax.prices_include_tax:
        amount = _round_div(taxable * tax.vat_percent, 100 + tax.vat_percent)
        return (MoneyLine(f"VAT {tax.vat_percent}% (included)", amount, included=True),)
    return (MoneyLine(f"VAT {tax.vat_percent}%", _round_div(taxable * tax.vat_percent, 100)),)


def _round_div(numerator: int, denominator: int) -> int:
    """Integer division rounding half up: VND has no smaller unit."""
    return (2 * numerator + denominator) // (2 * denominator)


def shipping_fee(fee: int, free_over: int | None, subtotal: int) -> int:
    """A method's fee for a cart: waived once the subtotal reaches ``free_over``."""
    if free_over is not None and subtotal >= free_over:
        return 0
    return fee
