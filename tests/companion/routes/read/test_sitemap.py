"""Sitemap: counts by status, pages of paths that exist, walks stable under writes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


@pytest.fixture
def catalogue(api: Api) -> None:
    shop, now = api.shop, api.clock.now()
    shop.product("Có trang", url="/ao-thun")
    shop.product("Url rỗng", url="")
    shop.product("Url null", url=None)
    shop.product("Nháp", url="/nhap", status="draft")
    shop.category("Áo", url="/ao")
    shop.category("Ẩn", url=None)
    shop.page("Giới thiệu", url="/gioi-thieu")
    shop.page("Nháp", url="/trang-nhap", status="draft")
    shop.article("Bài", slug="cach-phoi-do")
    shop.article("Hẹn giờ", slug="sap-dang", published_at=now + timedelta(days=1))
    summer = shop.collection("Hè")
    shop.custom_path("/bo-suu-tap/he", "collection", summer)
    shop.custom_path("/he-2026", "collection", summer)  # a second path: served once
    shop.collection("Không đường dẫn")
    hidden = shop.collection("Ẩn", visible=False)
    shop.custom_path("/an", "collection", hidden)


async def test_counts_are_by_status_and_pages_serve_only_rows_with_a_path(
    api: Api, catalogue: None
) -> None:
    counts = {s["name"]: s["count"] for s in (await api.ok("/sitemap"))["sections"]}
    assert counts == {"products": 3, "categories": 2, "collections": 2, "articles": 2, "pages": 1}
    served = {name: [e["path"] for e in await api.walk(f"/sitemap/{name}")] for name in counts}
    assert served == {
        "products": ["/ao-thun"],
        "categories": ["/ao"],
        "collections": ["/bo-suu-tap/he"],
        "articles": ["/bai-viet/cach-phoi-do"],
        "pages": ["/gioi-thieu"],
    }
    for name, paths in served.items():
        assert len(paths) <= counts[name]


async def test_entries_carry_updated_at(api: Api) -> None:
    api.shop.product("A", url="/a", updated_at=api.clock.now() + timedelta(days=1))
    (entry,) = (await api.ok("/sitemap/products"))["items"]
    assert entry == {"path": "/a", "updated_at": "2026-11-21T03:00:10"}


async def test_section_walk_returns_each_row_once_under_writes(api: Api) -> None:
    now = api.clock.now()
    expected = {f"/sp-{i}" for i in range(7)}
    for i in range(7):
        api.shop.product(f"SP {i}", url=f"/sp-{i}", created_at=now - timedelta(hours=i % 3))
    added = iter(range(10))

    def add_product() -> None:
        n = next(added)
        api.shop.product(f"Mới {n}", url=f"/moi-{n}", created_at=now + timedelta(minutes=n))

    items = await api.walk("/sitemap/products", between=add_product, limit=3)
    paths = [e["path"] for e in items]
    assert len(paths) == len(set(paths))
    assert expected <= set(paths)  # rows added after the walk began may also appear, once
