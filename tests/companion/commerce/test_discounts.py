"""Coupon verdicts, one code at a time, and the amounts discounts take off."""

from __future__ import annotations

from datetime import datetime, timedelta

from companion.commerce.discounts import (
    Coupon,
    CouponReason,
    DiscountKind,
    DiscountRule,
    check_coupon,
    format_vnd,
)

NOW = datetime(2026, 11, 20, 3, 0)


def coupon(
    *,
    usage_limit: int | None = None,
    used_count: int = 0,
    active: bool = True,
    min_order: int = 0,
    max_discount: int | None = None,
    starts_at: datetime | None = None,
    ends_at: datetime | None = None,
) -> Coupon:
    rule = DiscountRule(DiscountKind.PERCENT, 10, min_order, max_discount, starts_at, ends_at)
    return Coupon("GIAM10", rule, active, usage_limit, used_count)


def test_valid_percent_coupon_applies_with_cap() -> None:
    verdict = check_coupon(" giam10 ", coupon(max_discount=50_000), subtotal=1_000_000, now=NOW)
    assert verdict.valid and verdict.reason is CouponReason.APPLIED
    assert verdict.code == "GIAM10"
    assert verdict.amount == 50_000
    assert "50.000 ₫" in verdict.message


def test_unknown_code_says_it_does_not_exist() -> None:
    verdict = check_coupon("nope", None, subtotal=100_000, now=NOW)
    assert (verdict.valid, verdict.reason) == (False, CouponReason.UNKNOWN)
    assert "NOPE does not exist" in verdict.message


def test_expired_coupon_is_refused_at_its_end() -> None:
    verdict = check_coupon("GIAM10", coupon(ends_at=NOW), subtotal=100_000, now=NOW)
    assert verdict.reason is CouponReason.EXPIRED and not verdict.valid


def test_coupon_not_started_yet() -> None:
    later = coupon(starts_at=NOW + timedelta(seconds=1))
    assert check_coupon("GIAM10", later, subtotal=100_000, now=NOW).reason is (
        CouponReason.NOT_STARTED
    )


def test_minimum_order_names_the_amount() -> None:
    verdict = check_coupon("GIAM10", coupon(min_order=500_000), subtotal=499_999, now=NOW)
    assert verdict.reason is CouponReason.BELOW_MINIMUM
    assert "500.000 ₫" in verdict.message


def test_usage_limit_reached() -> None:
    used_up = coupon(usage_limit=3, used_count=3)
    assert check_coupon("GIAM10", used_up, subtotal=100_000, now=NOW).reason is (
        CouponReason.USAGE_LIMIT_REACHED
    )


def test_inactive_coupon_is_refused() -> None:
    assert check_coupon("GIAM10", coupon(active=False), subtotal=1, now=NOW).reason is (
        CouponReason.INACTIVE
    )


def test_fixed_discount_never_exceeds_the_subtotal() -> None:
    rule = DiscountRule(DiscountKind.FIXED, 50_000)
    assert rule.amount_off(30_000) == 30_000
    assert rule.amount_off(80_000) == 50_000


def test_percent_discount_rounds_down_to_the_dong() -> None:
    assert DiscountRule(DiscountKind.PERCENT, 15).amount_off(99_999) == 14_999


def test_format_vnd_groups_thousands_with_dots() -> None:
    assert format_vnd(1_250_000) == "1.250.000 ₫"
