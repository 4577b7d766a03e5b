"""Pricing a cart (quote) and the money of an order (totals): pure arithmetic in VND."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from companion.commerce.discounts import CouponVerdict, DiscountKind, DiscountRule
from companion.commerce.order_totals import order_totals
from companion.commerce.quote import (
    PricedLine,
    Promotion,
    TaxRule,
    price_quote,
    shipping_fee,
)
from companion.commerce.store_rules import LoyaltyRule
from companion.commerce_states import CouponReason

NOW = datetime(2026, 11, 20, 3, 0)
VAT_INCLUDED = TaxRule(10, True)


def line(
    unit: int, quantity: int = 1, *, listed: int | None = None, available: bool = True
) -> PricedLine:
    return PricedLine(
        variant_id=1,
        product_id=1,
        name="Áo",
        variant_name="M",
        sku=None,
        quantity=quantity,
        list_price=listed if listed is not None else unit,
        unit_price=unit,
        flash_sale_id=None,
        image_url=None,
        url=None,
        stock=None,
        available=available,
    )


def applied(amount: int) -> CouponVerdict:
    return CouponVerdict("GIAM", True, CouponReason.APPLIED, "ok", amount)


def test_included_vat_is_shown_but_not_added() -> None:
    quote = price_quote(
        [line(110_000)], promotions=[], coupon=None, tax=VAT_INCLUDED, shipping_total=0, now=NOW
    )
    assert quote.total == 110_000
    assert [(t.amount, t.included) for t in quote.tax_lines] == [(10_000, True)]


def test_vat_on_top_is_added_to_the_total() -> None:
    quote = price_quote(
        [line(100_000)],
        promotions=[],
        coupon=None,
        tax=TaxRule(8, False),
        shipping_total=30_000,
        now=NOW,
    )
    assert quote.total == 100_000 + 8_000 + 30_000


def test_unavailable_lines_are_not_charged() -> None:
    quote = price_quote(
        [line(100_000, 2), line(999_000, available=False)],
        promotions=[],
        coupon=None,
        tax=TaxRule(0, True),
        shipping_total=0,
        now=NOW,
    )
    assert quote.subtotal == 200_000 and quote.tax_lines == ()


def test_promotion_then_coupon_never_exceed_the_subtotal() -> None:
    promo = Promotion("Giảm 50%", DiscountRule(DiscountKind.PERCENT, 50))
    quote = price_quote(
        [line(100_000)],
        promotions=[promo],
        coupon=applied(80_000),
        tax=VAT_INCLUDED,
        shipping_total=20_000,
        now=NOW,
    )
    assert [d.amount for d in quote.discount_lines] == [50_000, 50_000]
    assert quote.discount_lines[1].code == "GIAM"
    assert quote.total == 20_000


def test_promotion_outside_its_dates_or_below_minimum_is_skipped() -> None:
    ended = Promotion("Hết hạn", DiscountRule(DiscountKind.FIXED, 1, ends_at=NOW))
    later = Promotion("Sắp tới", DiscountRule(DiscountKind.FIXED, 1, starts_at=NOW + timedelta(1)))
    big = Promotion("Đơn lớn", DiscountRule(DiscountKind.FIXED, 1, min_order=10**9))
    quote = price_quote(
        [line(100_000)],
        promotions=[ended, later, big],
        coupon=None,
        tax=VAT_INCLUDED,
        shipping_total=0,
        now=NOW,
    )
    assert quote.discount_lines == ()


def test_refused_coupon_takes_nothing_off() -> None:
    refused = CouponVerdict("HET", False, CouponReason.EXPIRED, "expired")
    quote = price_quote(
        [line(100_000)], promotions=[], coupon=refused, tax=VAT_INCLUDED, shipping_total=0, now=NOW
    )
    assert quote.total == 100_000 and quote.coupon is refused


def test_shipping_is_free_from_the_threshold() -> None:
    assert shipping_fee(30_000, 500_000, 499_999) == 30_000
    assert shipping_fee(30_000, 500_000, 500_000) == 0
    assert shipping_fee(30_000, None, 10**9) == 30_000


def test_order_records_flash_discount_and_points() -> None:
    totals = order_totals(
        [line(800_000, 2, listed=1_000_000)],
        shipping_total=30_000,
        points_wanted=100,
        loyalty=LoyaltyRule(10_000, 100),
    )
    assert totals.subtotal == 2_000_000
    assert totals.product_discount == 400_000
    assert totals.points_discount == 10_000
    assert totals.discount_total == 410_000
    assert totals.total == 2_000_000 - 410_000 + 30_000
    assert totals.points_earned == (1_600_000 - 10_000) // 10_000


def test_points_never_pay_for_more_than_the_goods() -> None:
    totals = order_totals(
        [line(10_000)], shipping_total=30_000, points_wanted=10**6, loyalty=LoyaltyRule(10_000, 100)
    )
    assert totals.points_redeemed == 100
    assert totals.total == 30_000


def test_a_promotion_on_some_products_counts_their_units_and_prices_their_lines() -> None:
    bundle = Promotion(
        "Mua 2 giảm 15%",
        DiscountRule(DiscountKind.PERCENT, 15),
        product_ids=frozenset({1}),
        min_quantity=2,
    )
    other = replace(line(300_000), product_id=2)

    def off(*lines: PricedLine) -> int:
        quote = price_quote(
            lines, promotions=[bundle], coupon=None, tax=VAT_INCLUDED, shipping_total=0, now=NOW
        )
        return sum(d.amount for d in quote.discount_lines)

    assert off(line(200_000), other) == 0  # one counted unit; the other product does not count
    assert off(line(200_000, 2), other) == 60_000  # 15% of the two, not of the order
    assert off(line(200_000, 3, available=False), other) == 0
