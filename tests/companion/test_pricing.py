"""Sale prices and stock: the pure rules behind effective_price and in_stock."""

from __future__ import annotations

from datetime import datetime

import pytest

from companion.pricing import discounted, product_in_stock, sale_status


@pytest.mark.parametrize(
    ("price", "percent", "expected"),
    [
        (100_000, 15, 85_000),
        (99_999, 15, 84_999),  # 84,999.15
        (10_005, 50, 5_003),  # 5,002.5 rounds half up
        (1, 50, 1),
        (100_000, 0, 100_000),
        (100_000, None, 100_000),
        (None, 30, None),
        (100_000, 150, 0),  # bad data is clamped, never negative
    ],
)
def test_discounted_price_is_rounded_to_whole_dong(
    price: int | None, percent: int | None, expected: int | None
) -> None:
    assert discounted(price, percent) == expected


def test_sale_status_follows_the_half_open_window() -> None:
    start, end = datetime(2026, 1, 1, 10), datetime(2026, 1, 1, 12)
    assert sale_status(start, end, datetime(2026, 1, 1, 9)) == "scheduled"
    assert sale_status(start, end, start) == "running"
    assert sale_status(start, end, end) == "ended"


def test_product_stock_from_its_variants() -> None:
    assert product_in_stock([]) is True
    assert product_in_stock([0, 0]) is False
    assert product_in_stock([0, None]) is True
    assert product_in_stock([0, 2]) is True
