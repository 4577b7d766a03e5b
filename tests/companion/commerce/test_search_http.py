"""GET /search and GET /search/content: accent-insensitive, filtered, cursor-paginated."""

from __future__ import annotations

import pytest

from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio


async def names(store: Store, path: str, **params: object) -> list[str]:
    body = await store.ok("GET", path, params=params)
    key = "name" if path == "/search" else "title"
    return [item[key] for item in body["items"]]


async def test_search_ignores_accents_and_case(store: Store) -> None:
    for q in ("ao thun", "ÁO THUN", "áo  thun", "thun ao"):
        assert await names(store, "/search", q=q) == ["Áo thun cổ tròn"]
    assert await names(store, "/search", q="quan jean") == ["Quần jean ống đứng"]


async def test_search_never_shows_drafts_and_escapes_wildcards(store: Store) -> None:
    assert await names(store, "/search", q="nháp") == []
    assert await names(store, "/search", q="%") == []
    assert await names(store, "/search", q="_") == []


async def test_search_filters_by_category_and_brand(store: Store) -> None:
    g = store.goods
    in_category = await names(store, "/search", category_id=g.category)
    assert sorted(in_category) == ["Quần jean ống đứng", "Áo thun cổ tròn"]
    assert await names(store, "/search", brand_id=g.brand) == ["Áo thun cổ tròn"]
    assert await names(store, "/search", category_id=99_999) == []


async def test_search_results_are_product_cards_in_pages(store: Store) -> None:
    first = await store.ok("GET", "/search", params={"limit": 2})
    assert first["has_more"] and len(first["items"]) == 2
    card = first["items"][0]
    assert {"id", "price", "effective_price", "url", "in_stock"} <= set(card)
    rest = await store.ok("GET", "/search", params={"limit": 2, "cursor": first["next_cursor"]})
    seen = [i["id"] for i in first["items"] + rest["items"]]
    assert len(seen) == len(set(seen)) == 4  # the four published products


async def test_search_input_errors_are_422(store: Store) -> None:
    for params, field in (
        ({"q": "x" * 201}, "q"),
        ({"category_id": 0}, "category_id"),
        ({"brand_id": "abc"}, "brand_id"),
        ({"cursor": "nope"}, "cursor"),
        ({"limit": 0}, "limit"),
    ):
        response = await store.call("GET", "/search", params=params)
        assert response.status_code == 422, params
        assert response.json()["errors"][0]["field"] == field


async def test_content_search_finds_articles_by_folded_title(store: Store) -> None:
    body = await store.ok("GET", "/search/content", params={"q": "phoi ao"})
    [hit] = body["items"]
    assert hit["entity_type"] == "article" and hit["url"].startswith("/bai-viet/")
    assert hit["title"] == "Cách phối áo thun mùa hè"


async def test_content_search_finds_pages(store: Store) -> None:
    pages = await names(store, "/search/content", q="chinh sach", entity_type="cms_page")
    assert pages == ["Chính sách đổi trả"]
    assert await names(store, "/search/content", q="phoi", entity_type="cms_page") == []
    bad = await store.call("GET", "/search/content", params={"entity_type": "banner"})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "entity_type"
