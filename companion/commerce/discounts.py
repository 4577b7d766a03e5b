"""Order-level discounts: coupons (one customer-entered code) and automatic promotions. Pure.

A coupon is checked one code at a time and the verdict always carries a message the storefront
can show as is. The checks run in a fixed order so the message names the first thing wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from companion.commerce_states import CouponReason


class DiscountKind(StrEnum):
    PERCENT = "percent"
    FIXED = "fixed"


@dataclass(frozen=True, slots=True)
class DiscountRule:
    """What a coupon or promotion takes off an order; ``value`` is a percent or VND."""

    kind: DiscountKind
    value: int
    min_order: int = 0
    max_discount: int | None = None
    starts_at: datetime | None = None
    ends_at: datetime | None = None

    def amount_off(self, subtotal: int) -> int:
        """VND taken off ``subtotal``: never negative, never more than the subtotal."""
        if self.kind is DiscountKind.PERCENT:
            off = subtotal * max(0, min(self.value, 100)) // 100
            if self.max_discount is not None:
                off = min(off, self.max_discount)
        else:
            off = self.value
        return max(0, min(off, subtotal))

    def running_at(self, now: datetime) -> bool:
        started = self.starts_at is None or self.starts_at <= now
        not_ended = self.ends_at is None or now < self.ends_at
        return started and not_ended


@dataclass(frozen=True, slots=True)
class Coupon:
    code: str
    rule: DiscountRule
    active: bool
    usage_limit: int | None
    used_count: int


@dataclass(frozen=True, slots=True)
class CouponVerdict:
    code: str
    valid: bool
    reason: CouponReason
    message: str
    amount: int = 0


def normalize_code(code: str) -> str:
    """Codes are matched case-insensitively and without surrounding blanks."""
    return code.strip().upper()


def check_coupon(
    code: str, coupon: Coupon | None, *, subtotal: int, now: datetime
) -> CouponVerdict:
    """The verdict on one entered code for a cart of ``subtotal`` VND at ``now``."""
    code = normalize_code(code)

    def refuse(reason: CouponReason, message: str) -> CouponVerdict:
        return CouponVerdict(code, False, reason, message)

    if coupon is None:
        return refuse(CouponReason.UNKNOWN, f"Coupon {code} does not exist.")
    if not coupon.active:
        return refuse(CouponReason.INACTIVE, f"Coupon {code} is no longer available.")
    rule = coupon.rule
    if rule.starts_at is not None and now < rule.starts_at:
        return refuse(CouponReason.NOT_STARTED, f"Coupon {code} is not valid yet.")
    if rule.ends_at is not None and now >= rule.ends_at:
        return refuse(CouponReason.EXPIRED, f"Coupon {code} has expired.")
    if coupon.usage_limit is not None and coupon.used_count >= coupon.usage_limit:
        return refuse(
            CouponReason.USAGE_LIMIT_REACHED, f"Coupon {code} has reached its usage limit."
        )
    if subtotal < rule.min_order:
        return refuse(
            CouponReason.BELOW_MINIMUM,
            f"Coupon {code} needs an order of at least {format_vnd(rule.min_order)}.",
        )
    amount = rule.amount_off(subtotal)
    return CouponVerdict(
        code, True, CouponReason.APPLIED, f"Coupon {code} applied: -{format_vnd(amount)}.", amount
    )


def format_vnd(amount: int) -> str:
    """Vietnamese money display for messages: 1.250.000 ₫."""
    return f"{amount:,}".replace(",", ".") + " ₫"
