"""GET /filters: brands, option values and price ranges of a category's products."""

from __future__ import annotations

import pytest

from companion.routes.read.filters import ladder, price_ranges
from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


def test_ladder_steps_one_two_five() -> None:
    assert ladder(750_000) == [0, 100_000, 200_000, 500_000, 1_000_000]
    assert ladder(0) == [0, 100_000]


def test_price_ranges_cover_only_prices_present() -> None:
    ranges = [(r.min, r.max) for r in price_ranges(150_000, 600_000)]
    assert ranges == [(100_000, 200_000), (200_000, 500_000), (500_000, 1_000_000)]
    assert price_ranges(None, None) == []


async def test_filters_of_a_category_and_its_subcategories(api: Api) -> None:
    shop = api.shop
    top = shop.category("Áo", slug="ao")
    sub = shop.category("Áo thun", parent_id=top)
    elsewhere = shop.category("Giày")
    vt, owen, nike = shop.brand("Việt Tiến"), shop.brand("Owen"), shop.brand("Nike")
    a = shop.product("A", category_id=top, brand_id=vt, price=150_000)
    b = shop.product("B", category_id=sub, brand_id=owen, price=450_000)
    shop.product("C", category_id=elsewhere, brand_id=nike, price=2_000_000)
    shop.variant(a, "M", options={"Kích cỡ": "M", "Màu": "Đỏ"})
    shop.variant(b, "S", options={"Kích cỡ": "S"})
    shop.variant(b, "XL", options={"Kích cỡ": "XL"}, on_sale=False)
    body = await api.ok("/filters", category="ao")
    assert body["brands"] == [{"id": owen, "name": "Owen"}, {"id": vt, "name": "Việt Tiến"}]
    assert body["attributes"] == [
        {"name": "Kích cỡ", "values": ["M", "S"]},
        {"name": "Màu", "values": ["Đỏ"]},
    ]
    assert body["price_ranges"] == [
        {"min": 100_000, "max": 200_000},
        {"min": 200_000, "max": 500_000},
    ]
    whole_store = await api.ok("/filters")
    assert len(whole_store["brands"]) == 3


async def test_filters_of_unknown_category_is_404(api: Api) -> None:
    assert (await api.get("/filters", category="khong-co")).status_code == 404
