"""The admin API does what the merchant asks: orders found by filter and cursor, moved through
the state machine with a reason (refusals as problems), noted; catalogue writes queue their
webhook; contact messages and reviews moderated; bad input a 422 problem, never a 500."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from companion.keys.lifecycle import create_key
from companion.keys.permissions import PERMISSIONS
from tests.companion.admin.test_order_notifications import queued
from tests.companion.commerce.conftest import ADDRESS, Store
from tests.companion.commerce.test_webhooks import subscribe

pytestmark = pytest.mark.anyio


class Admin:
    def __init__(self, store: Store) -> None:
        self.store = store
        with store.engine.begin() as conn:
            _, key = create_key(
                conn, store.store_id, now=store.clock.now(), permissions=list(PERMISSIONS)
            )
        self.headers = {"Authorization": f"Bearer {key}"}

    async def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await self.store.client.request(
            method, "/admin/api/v1" + path, headers=self.headers, **kwargs
        )

    async def ok(self, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
        answer = await self.call(method, path, **kwargs)
        assert answer.status_code == status, answer.text
        return answer.json() if answer.content else None


async def test_orders_are_found_by_status_date_and_search_page_by_page(store: Store) -> None:
    admin = Admin(store)
    placed = []
    for _ in range(3):
        placed.append(await store.place(await store.cart((store.goods.jeans_v, 1))))
        store.clock.advance(60)
    first = await admin.ok("GET", "/orders", params={"limit": 2})
    assert [o["id"] for o in first["items"]] == [placed[2]["id"], placed[1]["id"]]
    assert first["has_more"]
    rest = await admin.ok("GET", "/orders", params={"limit": 2, "cursor": first["next_cursor"]})
    assert [o["id"] for o in rest["items"]] == [placed[0]["id"]] and not rest["has_more"]
    by_code = await admin.ok("GET", "/orders", params={"q": placed[1]["code"].lower()})
    assert [o["id"] for o in by_code["items"]] == [placed[1]["id"]]
    by_phone = await admin.ok("GET", "/orders", params={"q": ADDRESS["phone"]})
    assert len(by_phone["items"]) == 3
    assert (await admin.ok("GET", "/orders", params={"q": "0999999999"}))["items"] == []
    since = placed[1]["placed_at"]
    later = await admin.ok("GET", "/orders", params={"placed_from": since})
    assert {o["id"] for o in later["items"]} == {placed[1]["id"], placed[2]["id"]}
    await admin.ok(
        "POST",
        f"/orders/{placed[0]['id']}/moves",
        json={"status": "cancelled", "reason": "khách hủy"},
    )
    cancelled = await admin.ok("GET", "/orders", params={"status": "cancelled"})
    assert [o["id"] for o in cancelled["items"]] == [placed[0]["id"]]
    bad = await admin.call("GET", "/orders", params={"status": "lost"})
    assert bad.status_code == 422 and bad.headers["content-type"] == "application/problem+json"
    assert (await admin.call("GET", "/orders", params={"cursor": "nope"})).status_code == 422


async def test_an_order_moves_through_the_state_machine_with_its_reason(store: Store) -> None:
    admin = Admin(store)
    jwt = await store.customer()
    order = await store.place(await store.cart((store.goods.shirt_m, 2), jwt=jwt), jwt=jwt)
    stock = store.stock(store.goods.shirt_m)
    noted = await admin.ok("PUT", f"/orders/{order['id']}/note", json={"note": "gọi trước 17h"})
    assert noted["order"]["merchant_note"] == "gọi trước 17h"
    moved = await admin.ok(
        "POST", f"/orders/{order['id']}/moves", json={"status": "fulfilled", "reason": "giao GHN"}
    )
    assert moved["order"]["current_status"] == "fulfilled"
    assert [(h["to_status"], h["reason"]) for h in moved["history"]][-1] == (
        "fulfilled",
        "giao GHN",
    )
    assert moved["items"][0]["quantity"] == 2 and moved["order"]["address"]["phone"]
    refused = await admin.call(
        "POST", f"/orders/{order['id']}/moves", json={"status": "cancelled", "reason": "x"}
    )
    assert refused.status_code == 409 and refused.json()["code"] == "refused"
    assert store.stock(store.goods.shirt_m) == stock  # a refused move released nothing
    missing = await admin.call("GET", "/orders/999999")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    unreasoned = await admin.call(
        "POST", f"/orders/{order['id']}/moves", json={"status": "delivered", "reason": ""}
    )
    assert unreasoned.status_code == 422
    # The shopper's account shows the merchant's move.
    mine = await store.ok("GET", f"/customer/orders/{order['id']}", jwt=jwt)
    assert mine["current_status"] == "fulfilled"


async def test_catalogue_writes_queue_their_webhooks(store: Store) -> None:
    admin = Admin(store)
    subscribe(store, ["*"])
    made = await admin.ok(
        "POST",
        "/catalog/coupons",
        status=201,
        json={"code": "tet10", "kind": "percent", "value": 10},
    )
    assert made["code"] == "TET10"
    await admin.ok("PATCH", f"/catalog/categories/{store.goods.category}", json={"name": "Áo nam"})
    await admin.ok(
        "PATCH",
        f"/catalog/products/{store.goods.shirt}/variants/{store.goods.shirt_m}",
        json={"stock": 3},
    )
    await admin.ok("DELETE", f"/catalog/banners/{store.goods.banner}", status=204)
    sale = await admin.ok(
        "POST",
        "/catalog/flash-sales",
        status=201,
        json={
            "name": "Giờ vàng",
            "starts_at": "2026-11-21T01:00:00+07:00",
            "ends_at": "2026-11-21T03:00:00Z",
            "discount_percent": 30,
        },
    )
    assert sale["starts_at"] == "2026-11-20T18:00:00"
    assert [event for _, event, _ in queued(store)] == [
        "coupon.created",
        "category.updated",
        "product.updated",
        "banner.deleted",
        "flash_sale.created",
    ]
    assert store.stock(store.goods.shirt_m) == 3
    unknown = await admin.call("PATCH", f"/catalog/pages/{store.goods.page}", json={"colour": "đỏ"})
    assert unknown.status_code == 422 and unknown.json()["code"] == "validation_error"
    twice = await admin.call(
        "POST", "/catalog/coupons", json={"code": "TET10", "kind": "percent", "value": 5}
    )
    assert twice.status_code == 409
    bad_time = await admin.call(
        "PATCH", f"/catalog/flash-sales/{sale['id']}", json={"ends_at": "mai"}
    )
    assert bad_time.status_code == 422
    assert (await admin.call("GET", "/catalog/widgets")).status_code == 422


async def test_messages_and_reviews_are_moderated(store: Store) -> None:
    admin = Admin(store)
    contact = {"name": "Lan", "email": "lan@example.vn", "message": "Còn size L không?"}
    await store.ok("POST", "/contacts", status=201, json=contact)
    inbox = await admin.ok("GET", "/messages", params={"status": "new"})
    [message] = inbox["items"]
    assert message["message"] == contact["message"]
    await admin.ok("PATCH", f"/messages/{message['id']}", status=204, json={"status": "read"})
    assert (await admin.ok("GET", "/messages", params={"status": "new"}))["items"] == []
    jwt = await store.customer()
    review = {
        "entity_type": "product",
        "entity_id": store.goods.shirt,
        "rating": 5,
        "content": "Đẹp",
    }
    posted = await store.ok("POST", "/customer/reviews/", status=201, json=review, jwt=jwt)
    public = {"entity_type": "product", "entity_id": store.goods.shirt}
    assert len((await store.ok("GET", "/reviews/", params=public))["items"]) == 1
    assert (await admin.ok("POST", f"/reviews/{posted['id']}/hide"))["status"] == "hidden"
    assert (await store.ok("GET", "/reviews/", params=public))["items"] == []
    await admin.ok("POST", f"/reviews/{posted['id']}/approve")
    assert len((await store.ok("GET", "/reviews/", params=public))["items"]) == 1
    customers = await admin.ok("GET", "/customers", params={"q": "lan@"})
    assert [c["email"] for c in customers["items"]] == ["lan@example.vn"]
    assert "password_hash" not in customers["items"][0]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/catalog/coupons", {"code": "SAI", "kind": "percent", "value": "mười"}),
        ("/catalog/banners", {"title": "Tết", "position": "đầu"}),
    ],
)
async def test_a_wrongly_typed_catalogue_value_is_a_422_problem(
    store: Store, path: str, body: dict[str, object]
) -> None:
    answer = await Admin(store).call("POST", path, json=body)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
