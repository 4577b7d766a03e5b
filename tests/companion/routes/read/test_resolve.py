"""GET /routes/resolve: custom paths first, then entity urls and article paths; 404 otherwise."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


async def resolve(api: Api, path: str) -> tuple[int, dict[str, object]]:
    response = await api.get("/routes/resolve", path=path)
    return response.status_code, response.json()


async def test_custom_paths_resolve_to_their_targets(api: Api) -> None:
    shop = api.shop
    about = shop.page("Về chúng tôi", url=None)
    summer = shop.collection("Hè")
    product = shop.product("Áo", url="/ao")
    shop.custom_path("/ve-chung-toi", "cms_page", about)
    shop.custom_path("/bo-suu-tap/he", "collection", summer)
    shop.custom_path("/ao-dep", "product", product)
    assert await resolve(api, "/ve-chung-toi") == (200, {"type": "cms_page", "id": about})
    assert await resolve(api, "/bo-suu-tap/he") == (200, {"type": "collection", "id": summer})
    assert await resolve(api, "/ao-dep") == (200, {"type": "product", "id": product})


async def test_entity_urls_and_article_paths_resolve(api: Api) -> None:
    shop = api.shop
    product = shop.product("Áo", url="/san-pham/ao")
    category = shop.category("Quần", url="/quan")
    page = shop.page("Chính sách", url="/chinh-sach")
    article = shop.article("Mẹo", slug="meo-hay")
    assert await resolve(api, "/san-pham/ao") == (200, {"type": "product", "id": product})
    assert await resolve(api, "/quan/") == (200, {"type": "category", "id": category})
    assert await resolve(api, "/chinh-sach") == (200, {"type": "cms_page", "id": page})
    assert await resolve(api, "/bai-viet/meo-hay") == (200, {"type": "article", "id": article})


async def test_percent_encoded_and_decomposed_forms_match(api: Api) -> None:
    product = api.shop.product("Áo", url="/áo-thun")
    assert (await resolve(api, "/%C3%A1o-thun"))[1] == {"type": "product", "id": product}
    assert (await resolve(api, "/a\u0301o-thun"))[1] == {"type": "product", "id": product}


async def test_hidden_targets_and_unknown_paths_are_404(api: Api) -> None:
    shop = api.shop
    draft = shop.product("Nháp", url="/nhap", status="draft")
    shop.custom_path("/an", "product", draft)
    shop.custom_path("/mat-tich", "product", 424242)
    shop.article("Sắp đăng", slug="sap-dang", published_at=api.clock.now() + timedelta(days=1))
    for path in ("/nhap", "/an", "/mat-tich", "/bai-viet/sap-dang", "/khong-co", "/bai-viet/"):
        status, body = await resolve(api, path)
        assert status == 404, path
        assert body["code"] == "not_found"


async def test_custom_paths_belong_to_their_store(api: Api) -> None:
    from tests.companion.factory import Shop

    other = Shop(api.app.state.services.engine, api.clock.now(), name="Khác")
    other.custom_path("/cua-toi", "cms_page", other.page("Của tôi"))
    assert (await resolve(api, "/cua-toi"))[0] == 404
