"""Categories: top level and children, the tree, detail, breadcrumb, subcategories."""

from __future__ import annotations

import pytest

from companion.db.schema import categories
from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio

CATEGORY_FIELDS = {
    "id", "parent_id", "name", "slug", "url", "description_html", "cover_image_url",
    "image_url", "product_count", "meta_title", "meta_description", "updated_at",
}  # fmt: skip


@pytest.fixture
def tree(api: Api) -> dict[str, int]:
    shop = api.shop
    men = shop.category("Nam", slug="nam", position=2, image_url="/nam.jpg")
    women = shop.category("Nữ", slug="nu", position=1)
    shirts = shop.category("Áo nam", slug="ao-nam", parent_id=men)
    tees = shop.category("Áo thun nam", slug="ao-thun-nam", parent_id=shirts, url=None)
    shop.category("Nháp", parent_id=men, status="draft")
    shop.product("Áo 1", category_id=tees)
    shop.product("Áo 2", category_id=shirts)
    shop.product("Quần", category_id=men)
    shop.product("Váy", category_id=women, status="draft")
    return {"men": men, "women": women, "shirts": shirts, "tees": tees}


async def test_top_level_categories_by_position(api: Api, tree: dict[str, int]) -> None:
    body = await api.ok("/categories")
    assert [c["id"] for c in body["items"]] == [tree["women"], tree["men"]]
    men = body["items"][1]
    assert set(men) == CATEGORY_FIELDS
    assert men["cover_image_url"] == men["image_url"] == "/nam.jpg"
    assert men["product_count"] == 3  # its own and its subcategories' products


async def test_children_of_parent_by_id_or_slug(api: Api, tree: dict[str, int]) -> None:
    for parent in (str(tree["men"]), "nam"):
        body = await api.ok("/categories", parent=parent)
        assert [c["id"] for c in body["items"]] == [tree["shirts"]]


async def test_tree_has_two_levels(api: Api, tree: dict[str, int]) -> None:
    body = await api.ok("/categories/tree")
    assert [c["id"] for c in body["items"]] == [tree["women"], tree["men"]]
    men = body["items"][1]
    assert [c["id"] for c in men["children"]] == [tree["shirts"]]
    assert "children" not in men["children"][0]
    assert men["children"][0]["product_count"] == 2


async def test_detail_by_id_and_slug(api: Api, tree: dict[str, int]) -> None:
    by_id = await api.ok(f"/categories/{tree['tees']}")
    assert by_id == await api.ok("/categories/by-slug/ao-thun-nam")
    assert by_id["url"] is None
    assert by_id["parent_id"] == tree["shirts"]


async def test_breadcrumb_is_root_first(api: Api, tree: dict[str, int]) -> None:
    body = await api.ok(f"/categories/{tree['tees']}/breadcrumb")
    assert [c["id"] for c in body["items"]] == [tree["men"], tree["shirts"], tree["tees"]]
    assert set(body["items"][0]) == {"id", "name", "url"}


async def test_subcategories_are_direct_published_children(api: Api, tree: dict[str, int]) -> None:
    body = await api.ok(f"/categories/{tree['men']}/subcategories")
    assert [c["id"] for c in body["items"]] == [tree["shirts"]]


async def test_unknown_or_draft_category_is_404(api: Api) -> None:
    draft = api.shop.category("Ẩn", slug="an", status="draft")
    for path in (f"/categories/{draft}", "/categories/by-slug/an", "/categories/999/breadcrumb"):
        assert (await api.get(path)).status_code == 404, path
    assert (await api.get("/categories/999/subcategories")).status_code == 404


async def test_a_product_filed_under_two_subcategories_counts_once(api: Api) -> None:
    shop = api.shop
    top = shop.category("Nam", slug="nam")
    shirts = shop.category("Áo nam", slug="ao-nam", parent_id=top)
    tees = shop.category("Áo thun nam", slug="ao-thun-nam", parent_id=top)
    both = shop.product("Áo 1", category_id=shirts)
    shop.file_under(both, tees)
    shop.product("Áo 2", category_id=tees)
    counts = {c["id"]: c["product_count"] for c in (await api.ok("/categories/tree"))["items"]}
    assert counts[top] == 2
    children = await api.ok(f"/categories/{top}/subcategories")
    assert {c["id"]: c["product_count"] for c in children["items"]} == {shirts: 1, tees: 2}


async def test_counts_end_on_a_cycle_in_the_tree(api: Api) -> None:
    shop = api.shop
    first = shop.category("A", slug="a")
    second = shop.category("B", slug="b", parent_id=first)
    with shop.engine.begin() as conn:  # bad data: A under B under A
        conn.execute(categories.update().where(categories.c.id == first).values(parent_id=second))
    shop.product("Áo", category_id=second)
    body = await api.ok(f"/categories/{first}")
    assert body["product_count"] == 1
