"""Product detail by id and slug, related products, variants on sale."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.companion.conftest import Api
from tests.companion.factory import Shop

pytestmark = pytest.mark.anyio

DETAIL_EXTRA = {
    "description_html", "images", "category_ids", "brand", "sku", "meta_title",
    "meta_description", "published_at",
}  # fmt: skip


async def test_detail_by_id_and_by_slug_are_the_same_record(api: Api) -> None:
    shop = api.shop
    main, extra = shop.category("Áo"), shop.category("Hè")
    brand = shop.brand("Việt Tiến")
    pid = shop.product(
        "Áo sơ mi",
        slug="ao-so-mi",
        category_id=main,
        brand_id=brand,
        sku="SM-01",
        description_html="<p>Vải <b>cotton</b></p>",
        meta_title="Áo sơ mi đẹp",
    )
    shop.file_under(pid, extra)
    shop.image(pid, "/2.jpg", position=2)
    shop.image(pid, "/1.jpg", "Mặt trước", position=1)
    by_id = await api.ok(f"/products/{pid}")
    assert by_id == await api.ok("/products/by-slug/ao-so-mi")
    assert DETAIL_EXTRA <= set(by_id)
    assert by_id["category_ids"] == [main, extra]
    assert by_id["brand"] == {"id": brand, "name": "Việt Tiến"}
    assert by_id["images"] == [
        {"url": "/1.jpg", "alt": "Mặt trước"},
        {"url": "/2.jpg", "alt": None},
    ]
    assert by_id["description_html"] == "<p>Vải <b>cotton</b></p>"
    assert by_id["published_at"] == "2026-11-20T03:00:10"
    assert by_id["sku"] == "SM-01"


async def test_draft_and_foreign_products_are_404(api: Api) -> None:
    draft = api.shop.product("Nháp", status="draft", slug="nhap")
    other = Shop(api.app.state.services.engine, api.clock.now(), name="Khác")
    foreign = other.product("Của cửa hàng khác")
    for path in (f"/products/{draft}", "/products/by-slug/nhap", f"/products/{foreign}"):
        response = await api.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"


async def test_related_products_share_the_category(api: Api) -> None:
    shop = api.shop
    cat = shop.category("Áo")
    base = api.clock.now()
    me = shop.product("Tôi", category_id=cat)
    older = shop.product("Cũ", category_id=cat, created_at=base - timedelta(days=1))
    newer = shop.product("Mới", category_id=cat, created_at=base + timedelta(days=1))
    shop.product("Khác loại", category_id=shop.category("Quần"))
    body = await api.ok(f"/products/{me}/related")
    assert [p["id"] for p in body["items"]] == [newer, older]
    limited = await api.ok(f"/products/{me}/related", limit=1)
    assert [p["id"] for p in limited["items"]] == [newer]
    assert limited["has_more"] is True and limited["next_cursor"] is None


async def test_related_of_unknown_product_is_404(api: Api) -> None:
    assert (await api.get("/products/12345/related")).status_code == 404


async def test_variants_on_sale_with_options_prices_and_stock(api: Api) -> None:
    shop = api.shop
    now = api.clock.now()
    pid = shop.product("Áo", price=200_000, compare_at_price=250_000)
    own = shop.variant(pid, "L", options={"Kích cỡ": "L", "Màu": "Đỏ"}, price=210_000, stock=3)
    inherits = shop.variant(pid, "M", stock=0, position=-1)
    shop.variant(pid, "XL", on_sale=False)
    sale = shop.flash_sale(now - timedelta(minutes=5), now + timedelta(minutes=5), 10)
    shop.put_on_sale(sale, pid)
    body = await api.ok(f"/products/{pid}/variants")
    assert body["has_more"] is False and body["next_cursor"] is None
    first, second = body["items"]
    assert first["id"] == inherits
    assert first["price"] == 200_000 and first["effective_price"] == 180_000
    assert first["compare_at_price"] == 250_000
    assert first["in_stock"] is False and first["stock"] == 0
    assert second["id"] == own
    assert second["options"] == {"Kích cỡ": "L", "Màu": "Đỏ"}
    assert second["price"] == 210_000 and second["effective_price"] == 189_000
    assert second["in_stock"] is True and second["stock"] == 3


async def test_variants_of_unknown_product_is_404(api: Api) -> None:
    assert (await api.get("/products/777/variants")).status_code == 404
