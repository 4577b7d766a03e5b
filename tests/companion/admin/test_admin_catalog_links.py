"""The admin API's catalogue links: a menu's items (create, update, delete, order), a
collection's products (add, remove) and a product's extra categories (set). Each write queues
its content-change webhook, and the public API then shows what the storefront reads: ``GET
/menus``, ``/products?collection=``, a product's ``category_ids`` and ``/products?category=``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.companion.admin.test_admin_api import Admin
from tests.companion.admin.test_order_notifications import queued
from tests.companion.commerce.conftest import Store
from tests.companion.commerce.test_webhooks import subscribe

pytestmark = pytest.mark.anyio


def labels(items: list[dict[str, Any]]) -> list[Any]:
    """A menu's items as (label, url, children) trees."""
    return [(i["label"], i["url"], labels(i["children"])) for i in items]


async def public_menu(store: Store, code: str) -> list[Any]:
    menus = (await store.ok("GET", "/menus"))["items"]
    [menu] = [m for m in menus if m["code"] == code]
    return labels(menu["items"])


async def test_menu_items_are_written_ordered_and_served_by_get_menus(store: Store) -> None:
    admin = Admin(store)
    subscribe(store, ["*"])
    menu = await admin.ok("POST", "/catalog/menus", status=201, json={"code": "top", "name": "T"})
    path = f"/catalog/menus/{menu['id']}/items"
    shirts = await admin.ok("POST", path, status=201, json={"label": "Áo", "url": "/ao"})
    trousers = await admin.ok("POST", path, status=201, json={"label": "Quần", "url": "/quan"})
    tees = await admin.ok(
        "POST",
        path,
        status=201,
        json={"label": "Áo thun", "url": "/ao-thun", "parent_id": shirts["id"]},
    )
    assert tees["menu_id"] == menu["id"] and tees["parent_id"] == shirts["id"]
    assert await public_menu(store, "top") == [
        ("Áo", "/ao", [("Áo thun", "/ao-thun", [])]),
        ("Quần", "/quan", []),
    ]
    ordered = await admin.ok(
        "PUT",
        f"/catalog/menus/{menu['id']}/order",
        json={"parent_id": None, "item_ids": [trousers["id"], shirts["id"]]},
    )
    top = [i["id"] for i in ordered["items"] if i["parent_id"] is None]
    assert top == [trousers["id"], shirts["id"]]
    await admin.ok("PATCH", f"{path}/{shirts['id']}", json={"label": "Áo nam"})
    assert await public_menu(store, "top") == [
        ("Quần", "/quan", []),
        ("Áo nam", "/ao", [("Áo thun", "/ao-thun", [])]),
    ]
    await admin.ok("DELETE", f"{path}/{tees['id']}", status=204)
    assert await public_menu(store, "top") == [("Quần", "/quan", []), ("Áo nam", "/ao", [])]
    detail = await admin.ok("GET", f"/catalog/menus/{menu['id']}")
    assert [(i["label"], i["position"]) for i in detail["items"]] == [("Quần", 0), ("Áo nam", 1)]
    events = [(event, data["id"], data["changed"]) for _, event, data in queued(store)]
    assert events == [
        ("menu.created", menu["id"], ["code", "name"]),
        *[("menu.updated", menu["id"], ["items"])] * 6,
    ]

    other = await admin.ok("POST", "/catalog/menus", status=201, json={"code": "f", "name": "F"})
    foreign = await admin.call("POST", path, json={"label": "X", "url": "/x", "parent_id": 10**6})
    assert foreign.status_code == 422 and foreign.json()["code"] == "validation_error"
    wrong_menu = await admin.call(
        "PATCH", f"/catalog/menus/{other['id']}/items/{shirts['id']}", json={"label": "Y"}
    )
    assert wrong_menu.status_code == 404
    loop = await admin.call("PATCH", f"{path}/{shirts['id']}", json={"parent_id": shirts["id"]})
    assert loop.status_code == 422
    not_siblings = await admin.call(
        "PUT", f"/catalog/menus/{menu['id']}/order", json={"item_ids": [shirts["id"]]}
    )
    assert not_siblings.status_code == 422
    unknown_column = await admin.call("POST", path, json={"label": "Z", "colour": "đỏ"})
    assert unknown_column.status_code == 422
    for bad in ({"url": "/z"}, {"label": None}, {"label": 5}, {"label": "Z", "position": 2**40}):
        refused = await admin.call("POST", path, json=bad)
        assert refused.status_code == 422, (bad, refused.text)
        assert refused.headers["content-type"] == "application/problem+json"
    missing = await admin.call("POST", "/catalog/menus/999999/items", json={"label": "Z"})
    assert missing.status_code == 404
    assert await public_menu(store, "top") == [("Quần", "/quan", []), ("Áo nam", "/ao", [])]
    jeans = {"label": "Jean", "url": "/jean", "parent_id": trousers["id"]}
    await admin.ok("POST", path, status=201, json=jeans)
    await admin.ok("DELETE", f"{path}/{trousers['id']}", status=204)  # its items go with it
    assert await public_menu(store, "top") == [("Áo nam", "/ao", [])]


async def test_a_collections_products_are_added_and_removed(store: Store) -> None:
    admin = Admin(store)
    subscribe(store, ["*"])
    made = {"name": "Hè", "slug": "he"}
    collection = await admin.ok("POST", "/catalog/collections", status=201, json=made)
    members = f"/catalog/collections/{collection['id']}/products"

    async def listed() -> list[int]:
        page = await store.ok("GET", "/products", params={"collection": "he", "limit": 100})
        return sorted(p["id"] for p in page["items"])

    assert await listed() == []
    shirt, jeans = store.goods.shirt, store.goods.jeans
    added = await admin.ok("PUT", f"{members}/{shirt}", json={"position": 2})
    assert added == {"collection_id": collection["id"], "product_ids": [shirt]}
    await admin.ok("PUT", f"{members}/{jeans}", json={"position": 1})
    again = await admin.ok("PUT", f"{members}/{jeans}")  # adding twice keeps one
    assert again["product_ids"] == [jeans, shirt]  # by position
    assert await listed() == sorted([shirt, jeans])
    await admin.ok("DELETE", f"{members}/{shirt}", status=204)
    assert await listed() == [jeans]
    detail = await admin.ok("GET", f"/catalog/collections/{collection['id']}")
    assert detail["product_ids"] == [jeans]
    events = [(event, data["changed"]) for _, event, data in queued(store)]
    assert events == [
        ("collection.created", ["name", "slug"]),
        *[("collection.updated", ["products"])] * 4,
    ]
    assert (await admin.call("DELETE", f"{members}/{shirt}")).status_code == 404
    assert (await admin.call("PUT", f"{members}/999999")).status_code == 404
    assert (
        await admin.call("PUT", f"/catalog/collections/999999/products/{shirt}")
    ).status_code == 404


async def test_a_products_extra_categories_are_set(store: Store) -> None:
    admin = Admin(store)
    subscribe(store, ["*"])
    made = {"name": "Đồ nam", "slug": "do-nam"}
    men = await admin.ok("POST", "/catalog/categories", status=201, json=made)
    jeans = store.goods.jeans
    path = f"/catalog/products/{jeans}/categories"

    async def filed() -> tuple[list[int], list[int]]:
        product = await store.ok("GET", f"/products/{jeans}")
        page = await store.ok("GET", "/products", params={"category": "do-nam", "limit": 100})
        return product["category_ids"], [p["id"] for p in page["items"]]

    assert await filed() == ([store.goods.category], [])
    answer = await admin.ok("PUT", path, json={"category_ids": [men["id"], men["id"]]})
    assert answer == {"product_id": jeans, "category_ids": [men["id"]]}
    assert await filed() == ([store.goods.category, men["id"]], [jeans])
    detail = await admin.ok("GET", f"/catalog/products/{jeans}")
    assert detail["category_ids"] == [men["id"]]
    await admin.ok("PUT", path, json={"category_ids": []})
    assert await filed() == ([store.goods.category], [])
    events = [(event, data["changed"]) for _, event, data in queued(store)]
    assert events == [
        ("category.created", ["name", "slug"]),
        *[("product.updated", ["category_ids"])] * 2,
    ]
    unknown = await admin.call("PUT", path, json={"category_ids": [999999]})
    assert unknown.status_code == 422 and unknown.json()["code"] == "validation_error"
    missing = await admin.call(
        "PUT", "/catalog/products/999999/categories", json={"category_ids": []}
    )
    assert missing.status_code == 404
    assert await filed() == ([store.goods.category], [])
