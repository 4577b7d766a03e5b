"""Tracking calls, storefront-error batches and GET /storefront/settings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from companion.clock import wire_timestamp
from companion.db.commerce_schema import banner_clicks, entity_views, storefront_errors
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio


async def test_entity_view_is_recorded(store: Store) -> None:
    response = await store.call(
        "POST",
        "/analytics/entity-view",
        json={"entity_type": "cms_page", "entity_id": store.goods.page, "session_token": "s1"},
    )
    assert response.status_code == 204 and response.content == b""
    with store.engine.connect() as conn:
        assert conn.execute(select(entity_views.c.entity_type)).scalars().all() == ["cms_page"]
    bad = await store.call(
        "POST", "/analytics/entity-view", json={"entity_type": "coupon", "entity_id": 1}
    )
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "entity_type"


async def test_banner_click(store: Store) -> None:
    path = f"/banners/{store.goods.banner}/click"
    assert (await store.call("POST", path)).status_code == 204
    assert (await store.call("POST", path, json={"session_token": "s1"})).status_code == 204
    with store.engine.connect() as conn:
        assert len(conn.execute(select(banner_clicks.c.id)).all()) == 2
    assert (await store.call("POST", "/banners/99999/click")).status_code == 404


async def test_storefront_errors_keep_only_recent_times(store: Store) -> None:
    now = store.clock.now()
    events = [
        {
            "status": 404,
            "path": "/khong-co",
            "occurred_at": wire_timestamp(now - timedelta(hours=1)),
        },
        {"status": 500, "path": "/loi", "occurred_at": wire_timestamp(now - timedelta(days=2))},
        {
            "status": 502,
            "path": "/tuong-lai",
            "occurred_at": wire_timestamp(now + timedelta(hours=1)),
        },
        {"status": 429, "path": "/cham", "method": "get"},
    ]
    body = await store.ok("POST", "/storefront-errors", status=202, json={"events": events})
    assert body == {"accepted": 4, "adjusted": 2}
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                storefront_errors.c.path,
                storefront_errors.c.occurred_at,
                storefront_errors.c.method,
            ).order_by(storefront_errors.c.id)
        ).all()
    assert [(r.path, r.occurred_at) for r in rows] == [
        ("/khong-co", now - timedelta(hours=1)),
        ("/loi", now),
        ("/tuong-lai", now),
        ("/cham", now),
    ]
    assert rows[3].method == "GET"


@pytest.mark.parametrize(
    ("events", "field"),
    [
        ([{"status": 404, "path": "/x"}] * 51, "events"),
        ([], "events"),
        ([{"status": 200, "path": "/x"}], "events.0.status"),
        ([{"status": 404, "path": "/x", "occurred_at": "hôm qua"}], "events.0.occurred_at"),
    ],
)
async def test_bad_error_batches_are_422(
    store: Store, events: list[dict[str, object]], field: str
) -> None:
    response = await store.call("POST", "/storefront-errors", json={"events": events})
    assert response.status_code == 422 and response.json()["errors"][0]["field"] == field


async def test_storefront_settings_ignore_the_legacy_tenant_id(store: Store) -> None:
    body = await store.ok("GET", "/storefront/settings")
    assert body["store_id"] == store.store_id and body["currency_code"] == "VND"
    assert (body["cart_cookie"], body["customer_cookie"]) == ("service_cart", "service_customer")
    assert body["payment_methods"] == ["cod", "vnpay"]
    legacy = await store.ok("GET", "/storefront/settings", params={"tenant_id": "legacy-123"})
    assert legacy == body
    alias = await store.call("GET", "/storefront/settings", prefix="/public")
    assert alias.status_code == 200 and alias.json() == body
