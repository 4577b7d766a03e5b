"""Collections: visible ones by position, by slug; up to 200 per call."""

from __future__ import annotations

import pytest

from tests.companion.conftest import Api, MakeApi

pytestmark = pytest.mark.anyio


async def test_visible_collections_by_position(api: Api) -> None:
    second = api.shop.collection("Thu", position=2)
    first = api.shop.collection("Hè", position=1, image_url="/he.jpg")
    api.shop.collection("Ẩn", visible=False)
    body = await api.ok("/collections")
    assert [c["id"] for c in body["items"]] == [first, second]
    assert set(body["items"][0]) == {
        "id", "name", "slug", "description_html", "image_url", "updated_at"
    }  # fmt: skip


async def test_collections_allow_larger_pages_than_other_lists(make_api: MakeApi) -> None:
    api = await make_api(max_limit=2, collections_max_limit=4)
    for i in range(6):
        api.shop.collection(f"BST {i}")
    body = await api.ok("/collections", limit=500)
    assert len(body["items"]) == 4 and body["has_more"] is True


async def test_collection_by_slug_and_hidden_is_404(api: Api) -> None:
    api.shop.collection("Hè", slug="he")
    api.shop.collection("Ẩn", slug="an", visible=False)
    assert (await api.ok("/collections/by-slug/he"))["name"] == "Hè"
    assert (await api.get("/collections/by-slug/an")).status_code == 404
