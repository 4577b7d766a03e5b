"""Store-wide context: store, custom variables, promotions, banners on schedule, pages, menus."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


async def test_store_information(api: Api) -> None:
    body = await api.ok("/store")
    assert body == {
        "name": "Cửa hàng Mẫu",
        "logo_url": "/logo.png",
        "email": "shop@example.vn",
        "phone": "0900000000",
        "address": "1 Lê Lợi, Quận 1",
        "social": {"facebook": "https://facebook.com/shop"},
        "currency_code": "VND",
        "locale": "vi",
    }


async def test_custom_variables_and_visible_promotions(api: Api) -> None:
    api.shop.variable("hotline", "1900 1234")
    shown = api.shop.promotion("Miễn phí giao hàng", link_url="/giao-hang")
    api.shop.promotion("Ẩn", visible=False)
    variables = await api.ok("/custom-variables")
    assert variables["items"] == [{"key": "hotline", "value": "1900 1234"}]
    promotions = await api.ok("/promotions")
    assert promotions["items"] == [
        {"id": shown, "text": "Miễn phí giao hàng", "link_url": "/giao-hang"}
    ]


async def test_banners_honour_their_schedule(api: Api) -> None:
    now = api.clock.now()
    hour = timedelta(hours=1)
    always = api.shop.banner("Luôn", starts_at=now - hour, ends_at=None)
    ending = api.shop.banner("Sắp hết", starts_at=now - hour, ends_at=now + hour, position=1)
    later = api.shop.banner("Chưa tới", starts_at=now + hour)
    api.shop.banner("Đã hết", starts_at=now - 2 * hour, ends_at=now - hour)
    body = await api.ok("/banners")
    assert [b["id"] for b in body["items"]] == [always, ending]
    assert body["items"][0]["ends_at"] is None
    api.clock.advance(3600)  # ends_at is exclusive, starts_at inclusive
    assert [b["id"] for b in (await api.ok("/banners"))["items"]] == [always, later]


async def test_banners_by_location_and_limit(api: Api) -> None:
    hero = api.shop.banner("Hero", location_code="home_hero")
    api.shop.banner("Giữa", location_code="home_middle")
    api.shop.banner("Hero 2", location_code="home_hero", position=5)
    body = await api.ok("/banners", location_code="home_hero", limit=1)
    assert [b["id"] for b in body["items"]] == [hero]
    assert body["has_more"] is True


async def test_cms_page_by_slug_and_id(api: Api) -> None:
    pid = api.shop.page(
        "Giới thiệu", slug="gioi-thieu", url="/gioi-thieu", content_html="<h2>Xin chào</h2>"
    )
    api.shop.page("Nháp", slug="nhap", status="draft")
    by_slug = await api.ok("/pages/by-slug/gioi-thieu")
    assert by_slug == await api.ok(f"/pages/{pid}")
    assert by_slug["content_html"] == "<h2>Xin chào</h2>"
    assert set(by_slug) == {
        "id", "title", "slug", "url", "content_html", "meta_title", "meta_description",
        "updated_at",
    }  # fmt: skip
    assert (await api.get("/pages/by-slug/nhap")).status_code == 404


async def test_menus_nest_their_items(api: Api) -> None:
    main = api.shop.menu("main", "Menu chính")
    footer = api.shop.menu("footer", "Chân trang")
    shop_item = api.shop.menu_item(main, "Cửa hàng", url="/cua-hang", position=1)
    api.shop.menu_item(main, "Áo", url="/ao", parent_id=shop_item)
    api.shop.menu_item(main, "Trang chủ", url="/", position=0)
    api.shop.menu_item(footer, "Liên hệ", url=None)
    body = await api.ok("/menus")
    by_code = {m["code"]: m for m in body["items"]}
    assert by_code["main"]["items"] == [
        {"label": "Trang chủ", "url": "/", "children": []},
        {
            "label": "Cửa hàng",
            "url": "/cua-hang",
            "children": [{"label": "Áo", "url": "/ao", "children": []}],
        },
    ]
    assert by_code["footer"]["items"] == [{"label": "Liên hệ", "url": None, "children": []}]
