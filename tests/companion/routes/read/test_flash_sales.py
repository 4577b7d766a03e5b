"""Flash sales: running ones listed, any one by id, its products at the sale price."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


async def test_only_running_sales_are_listed(api: Api) -> None:
    now, hour = api.clock.now(), timedelta(hours=1)
    running = api.shop.flash_sale(now - hour, now + hour, 20, name="Giờ vàng")
    api.shop.flash_sale(now + hour, now + 2 * hour, 30)
    api.shop.flash_sale(now - 2 * hour, now - hour, 40)
    body = await api.ok("/flash-sales")
    assert body["items"] == [
        {
            "id": running,
            "name": "Giờ vàng",
            "starts_at": "2026-11-20T02:00:10",
            "ends_at": "2026-11-20T04:00:10",
            "status": "running",
        }
    ]


async def test_one_sale_reports_its_status(api: Api) -> None:
    now, hour = api.clock.now(), timedelta(hours=1)
    later = api.shop.flash_sale(now + hour, now + 2 * hour, 30)
    assert (await api.ok(f"/flash-sales/{later}"))["status"] == "scheduled"
    api.clock.advance(3 * 3600)
    assert (await api.ok(f"/flash-sales/{later}"))["status"] == "ended"
    assert (await api.get("/flash-sales/999")).status_code == 404


async def test_sale_products_carry_the_discounted_price(api: Api) -> None:
    now, hour = api.clock.now(), timedelta(hours=1)
    sale = api.shop.flash_sale(now - hour, now + hour, 33)
    second = api.shop.product("Hai", price=100_001)
    first = api.shop.product("Một", price=150_000)
    api.shop.product("Không giảm", price=1_000)
    hidden = api.shop.product("Nháp", status="draft")
    api.shop.put_on_sale(sale, second, position=2)
    api.shop.put_on_sale(sale, first, position=1)
    api.shop.put_on_sale(sale, hidden, position=0)
    body = await api.ok(f"/flash-sales/{sale}/products")
    assert [(p["id"], p["price"], p["effective_price"]) for p in body["items"]] == [
        (first, 150_000, 100_500),
        (second, 100_001, 67_001),  # 67,000.67 rounded
    ]
    assert "in_stock" in body["items"][0]
    assert (await api.get("/flash-sales/999/products")).status_code == 404
