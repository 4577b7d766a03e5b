"""Which key opens which API: publishable keys the public API, secret keys the admin API, each
admin route only with the permission it names. On SQLite and PostgreSQL (the ``db`` marker).

Every refusal is a problem answer and a request-log line with its reason.
"""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from sqlalchemy import insert

from companion.catalog_admin import create_entity
from companion.db.schema import menu_items
from companion.keys.lifecycle import create_key, revoke_key
from companion.keys.permissions import PERMISSIONS
from companion.logging_http import flush_request_log
from companion.routes.admin import router as admin_router
from companion.webhooks.events import Entity
from tests.companion.commerce.conftest import Store
from tests.companion.commerce.test_webhooks import subscribe
from tests.companion.test_logging_http import served_log, server_handler_only

pytestmark = pytest.mark.anyio
ADMIN = "/admin/api/v1"
__all__ = ["served_log"]


def secret_key(store: Store, *permissions: str) -> str:
    with store.engine.begin() as conn:
        _, key = create_key(
            conn, store.store_id, now=store.clock.now(), name="test", permissions=list(permissions)
        )
    return key


async def admin(
    store: Store, method: str, path: str, key: str | None, **kwargs: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return await store.client.request(method, ADMIN + path, headers=headers, **kwargs)


#: Every admin route: (method, path template, path, body, the permission it needs).
def routes(
    store: Store, order_id: int, ids: dict[str, int]
) -> list[tuple[str, str, str, Any, str]]:
    shirt, size_m, size_l = store.goods.shirt, store.goods.shirt_m, store.goods.shirt_l
    menu = ids["menu"]
    image = f"https://img.example/{order_id}.jpg"
    return [
        ("GET", "/orders", "/orders", None, "orders:read"),
        ("GET", "/orders/{order_id}", f"/orders/{order_id}", None, "orders:read"),
        (
            "POST",
            "/orders/{order_id}/moves",
            f"/orders/{order_id}/moves",
            {"status": "cancelled", "reason": "x"},
            "orders:write",
        ),
        (
            "PUT",
            "/orders/{order_id}/note",
            f"/orders/{order_id}/note",
            {"note": "n"},
            "orders:write",
        ),
        ("GET", "/catalog/{kind}", "/catalog/products", None, "catalog:read"),
        ("GET", "/catalog/{kind}/{row_id}", f"/catalog/products/{shirt}", None, "catalog:read"),
        (
            "POST",
            "/catalog/{kind}",
            "/catalog/menus",
            {"code": f"m{order_id}", "name": "M"},
            "catalog:write",
        ),
        (
            "PATCH",
            "/catalog/{kind}/{row_id}",
            f"/catalog/products/{shirt}",
            {"price": 210_000},
            "catalog:write",
        ),
        (
            "DELETE",
            "/catalog/{kind}/{row_id}",
            f"/catalog/banners/{store.goods.banner}",
            None,
            "catalog:write",
        ),
        (
            "POST",
            "/catalog/products/{product_id}/{part}",
            f"/catalog/products/{shirt}/images",
            {"url": image},
            "catalog:write",
        ),
        (
            "PATCH",
            "/catalog/products/{product_id}/{part}/{part_id}",
            f"/catalog/products/{shirt}/variants/{size_m}",
            {"stock": 7},
            "catalog:write",
        ),
        (
            "DELETE",
            "/catalog/products/{product_id}/{part}/{part_id}",
            f"/catalog/products/{shirt}/variants/{size_l}",
            None,
            "catalog:write",
        ),
        (
            "PUT",
            "/catalog/menus/{menu_id}/order",
            f"/catalog/menus/{menu}/order",
            {"item_ids": [ids["item_b"], ids["item_a"]]},
            "catalog:write",
        ),
        (
            "POST",
            "/catalog/menus/{menu_id}/items",
            f"/catalog/menus/{menu}/items",
            {"label": "Mới", "url": "/moi"},
            "catalog:write",
        ),
        (
            "PATCH",
            "/catalog/menus/{menu_id}/items/{item_id}",
            f"/catalog/menus/{menu}/items/{ids['item_a']}",
            {"label": "Áo nam"},
            "catalog:write",
        ),
        (
            "DELETE",
            "/catalog/menus/{menu_id}/items/{item_id}",
            f"/catalog/menus/{menu}/items/{ids['item_b']}",
            None,
            "catalog:write",
        ),
        (
            "PUT",
            "/catalog/collections/{collection_id}/products/{product_id}",
            f"/catalog/collections/{ids['collection']}/products/{shirt}",
            {"position": 1},
            "catalog:write",
        ),
        (
            "DELETE",
            "/catalog/collections/{collection_id}/products/{product_id}",
            f"/catalog/collections/{ids['collection']}/products/{shirt}",
            None,
            "catalog:write",
        ),
        (
            "PUT",
            "/catalog/products/{product_id}/categories",
            f"/catalog/products/{shirt}/categories",
            {"category_ids": [store.goods.category]},
            "catalog:write",
        ),
        ("GET", "/customers", "/customers", None, "customers:read"),
        (
            "GET",
            "/customers/{customer_id}",
            f"/customers/{ids['customer']}",
            None,
            "customers:read",
        ),
        ("GET", "/messages", "/messages", None, "messages:read"),
        (
            "PATCH",
            "/messages/{message_id}",
            f"/messages/{ids['message']}",
            {"status": "read"},
            "messages:write",
        ),
        ("GET", "/reviews", "/reviews", None, "reviews:read"),
        (
            "POST",
            "/reviews/{review_id}/{action}",
            f"/reviews/{ids['review']}/hide",
            None,
            "reviews:write",
        ),
        ("GET", "/webhooks", "/webhooks", None, "webhooks:read"),
        ("POST", "/webhooks", "/webhooks", {"url": "https://ci.example/hook"}, "webhooks:write"),
        (
            "DELETE",
            "/webhooks/{subscription_id}",
            f"/webhooks/{ids['subscription']}",
            None,
            "webhooks:write",
        ),
        ("GET", "/store", "/store", None, "store:read"),
        ("PATCH", "/store", "/store", {"phone": "0281234567"}, "store:write"),
    ]


async def made_ids(store: Store) -> dict[str, int]:
    """A customer, a message, a review, a subscription, a menu with two items and a collection
    for the routes that name one."""
    jwt = await store.customer()
    me = await store.ok("GET", "/customer/me", jwt=jwt)
    contact = {"name": "Lan", "email": "lan@example.vn", "message": "Còn hàng không?"}
    message = await store.ok("POST", "/contacts", status=201, json=contact)
    review = {
        "entity_type": "product",
        "entity_id": store.goods.shirt,
        "rating": 4,
        "content": "Ổn",
    }
    posted = await store.ok("POST", "/customer/reviews/", status=201, json=review, jwt=jwt)
    subscribe(store, ["*"])
    now = store.clock.now()
    with store.engine.begin() as conn:
        menu = create_entity(
            conn, Entity.MENU, {"code": "m", "name": "M"}, store_id=store.store_id, now=now
        )
        collection = create_entity(
            conn, Entity.COLLECTION, {"name": "Hè", "slug": "he"}, store_id=store.store_id, now=now
        )
        item_a, item_b = (
            conn.execute(
                insert(menu_items).values(
                    store_id=store.store_id, menu_id=menu, label=label, position=n
                )
            ).inserted_primary_key[0]
            for n, label in enumerate(("Áo", "Quần"))
        )
    return {
        "menu": menu,
        "item_a": item_a,
        "item_b": item_b,
        "collection": collection,
        "customer": me["id"],
        "message": message["id"],
        "review": posted["id"],
        "subscription": 1,
    }


async def an_order(store: Store) -> int:
    order = await store.place(await store.cart((store.goods.jeans_v, 1)))
    order_id: int = order["id"]
    return order_id


async def test_each_admin_route_needs_its_permission_and_no_other_opens_it(store: Store) -> None:
    order_id = await an_order(store)
    table = routes(store, order_id, await made_ids(store))
    served = {
        (method, route.path.removeprefix(ADMIN))
        for route in admin_router.routes
        if isinstance(route, APIRoute) and route.include_in_schema
        for method in route.methods
    }
    assert {(method, template) for method, template, *_ in table} == served  # none untested
    for method, _, path, body, needed in table:
        others = secret_key(store, *(p for p in PERMISSIONS if p != needed))
        refused = await admin(store, method, path, others, json=body)
        assert refused.status_code == 403, (method, path, refused.text)
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.json()["code"] == "permission_denied"
        allowed = await admin(store, method, path, secret_key(store, needed), json=body)
        assert allowed.status_code in (200, 201, 204), (method, path, allowed.text)


async def test_only_a_secret_key_opens_the_admin_api(
    store: Store, served_log: tuple[logging.Logger, io.StringIO]
) -> None:
    logger, stream = served_log
    server_handler_only(logger)
    jwt = await store.customer()
    revoked = secret_key(store, *PERMISSIONS)
    with store.engine.begin() as conn:
        revoke_key(conn, 2, now=store.clock.now(), store_id=store.store_id)  # the template's is 1
    tried: dict[str, dict[str, str]] = {
        "none": {},
        "publishable": {"X-Service-Key": store.key},
        "publishable-bearer": {"Authorization": f"Bearer {store.key}"},
        "customer": {"Authorization": f"Bearer {jwt}", "X-Service-Key": store.key},
        "unknown": {"Authorization": "Bearer sk_live_" + "u" * 43},
        "revoked": {"Authorization": f"Bearer {revoked}"},
    }
    for name, headers in tried.items():
        answer = await store.client.get(
            ADMIN + "/orders", headers={**headers, "X-Request-Id": f"a-{name}"}
        )
        assert answer.status_code == 401, (name, answer.text)
        assert answer.headers["content-type"] == "application/problem+json"
        expected = "invalid_key" if name in ("unknown", "revoked") else "secret_key_required"
        assert answer.json()["code"] == expected, name
    flush_request_log()
    lines = {line["request_id"]: line for line in map(json.loads, stream.getvalue().splitlines())}
    assert lines["a-customer"]["refused"] == "admin API: a publishable key"
    assert lines["a-none"]["refused"] == "admin API: no key"
    assert lines["a-revoked"]["refused"] == "admin API: revoked_key"
    assert lines["a-unknown"]["refused"] == "admin API: unknown_key"


async def test_a_secret_key_is_refused_on_the_public_api(store: Store) -> None:
    key = secret_key(store, *PERMISSIONS)
    as_key = await store.client.get("/public/v1/products", headers={"X-Service-Key": key})
    assert as_key.status_code == 401 and as_key.json()["code"] == "secret_key_refused"
    beside = await store.call("GET", "/products", jwt=key)
    assert beside.status_code == 401 and beside.json()["code"] == "secret_key_refused"
    cart = await store.call(
        "PUT",
        "/cart/items",
        jwt=key,
        json={"items": [{"variant_id": store.goods.shirt_m, "quantity": 1}]},
    )
    assert cart.status_code == 401 and cart.json()["code"] == "secret_key_refused"
    # The same key opens the admin API.
    assert (await admin(store, "GET", "/store", key)).status_code == 200
