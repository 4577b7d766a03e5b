"""Prices as the storefront shows them: flash-sale discounts and stock. Pure functions."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

SaleStatus = Literal["running", "scheduled", "ended"]


def discounted(price: int | None, discount_percent: int | None) -> int | None:
    """``price * (100 - discount) / 100`` rounded half up to whole VND; no price stays None."""
    if price is None:
        return None
    if not discount_percent:
        return price
    percent = min(max(discount_percent, 0), 100)
    return (price * (100 - percent) + 50) // 100


def sale_status(starts_at: datetime, ends_at: datetime, now: datetime) -> SaleStatus:
    """running while starts_at <= now < ends_at; scheduled before, ended after."""
    if now < starts_at:
        return "scheduled"
    if now < ends_at:
        return "running"
    return "ended"


def unit_in_stock(stock: int | None) -> bool:
    """Untracked stock (None) is always available."""
    return stock is None or stock > 0


def product_in_stock(variant_stocks: Iterable[int | None]) -> bool:
    """A product is in stock when one variant on sale is, or when it has no variants at all."""
    stocks = list(variant_stocks)
    return not stocks or any(unit_in_stock(s) for s in stocks)
