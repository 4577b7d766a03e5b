"""The sandbox gateway (its Pay button marks an order paid, no money moves) is off unless the
store is the demo store or the sandbox is asked for by name (``sandbox_payments``). Off, its
pages answer 404 problem JSON, say why in the request log, and checkout offers no online
gateway."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from sqlalchemy import Engine, select

from companion.clock import ManualClock
from companion.db import schema as t
from companion.logging_http import ACCESS_LOGGER
from companion.payments import vnpay
from companion.payments.ipn_sender import HttpIpnSender
from companion.seed.commerce import seed_commerce
from companion.seed.demo import DEMO_KEY
from companion.seed.demo_app import DEMO_NOW, demo_companion
from companion.settings import CompanionSettings
from tests.companion.commerce.conftest import (
    ADDRESS,
    HASH_SECRET,
    MERCHANT_CODE,
    Store,
    Template,
    opened_store,
)
from tests.companion.conftest import PREFIX
from tests.companion.databases import fresh_database
from tests.companion.factory import Shop

pytestmark = pytest.mark.anyio

SANDBOX_PAGES = ("/sandbox/vnpay/pay", "/sandbox/vnpay/complete", "/sandbox/vnpay/result")


class CountingSender:
    """Stands for the sandbox's notification to the merchant: counts what would be sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def __call__(self, url: str) -> str:
        self.sent.append(url)
        return ""


def signed_request(merchant_code: str, secret: str, txn_ref: str, now_text: str) -> dict[str, str]:
    """A pay request as the merchant signs it (what a payment_url carries)."""
    params = {
        "vnp_Version": "2.1.0",
        "vnp_Command": "pay",
        "vnp_TmnCode": merchant_code,
        "vnp_Amount": "23000000",
        "vnp_CurrCode": "VND",
        "vnp_TxnRef": txn_ref,
        "vnp_OrderInfo": "Thanh toan don hang",
        "vnp_OrderType": "other",
        "vnp_Locale": "vn",
        "vnp_ReturnUrl": "https://shop.example/thanh-toan/ket-qua",
        "vnp_IpAddr": "127.0.0.1",
        "vnp_CreateDate": now_text,
        "vnp_ExpireDate": "29991231000000",
    }
    return dict(parse_qsl(vnpay.signed_query(params, secret)))


def access_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]


async def assert_sandbox_off(
    client: httpx.AsyncClient, request: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Every sandbox page, with a genuinely signed request or a malformed one: 404 problem
    JSON, and the request log says it was refused and why; nothing is sent to the merchant."""
    caplog.clear()
    answers = [
        await client.get(SANDBOX_PAGES[0], params=request),
        await client.post(SANDBOX_PAGES[1], data={**request, "outcome": "pay"}),
        await client.get(SANDBOX_PAGES[2], params=request),
        await client.get(SANDBOX_PAGES[0] + "?a=1&a=2"),
    ]
    for answer in answers:
        assert answer.status_code == 404, answer.text
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.json()["code"] == "not_found"
    lines = [line for line in access_lines(caplog) if str(line["path"]).startswith("/sandbox/")]
    assert len(lines) == len(answers)
    assert all(line["status"] == 404 and "sandbox" in str(line["refused"]) for line in lines)


async def test_the_sandbox_is_off_for_a_store_that_is_not_the_demo(
    template: Template, tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    async with opened_store(template, tmp_path, clock) as store:
        sender = CountingSender()
        store.app.state.ipn_sender = sender
        methods = await store.ok("GET", "/checkout/payment-methods")
        assert [m["code"] for m in methods["items"]] == ["cod"]
        settings = await store.ok("GET", "/storefront/settings")
        assert settings["payment_methods"] == ["cod"]

        token = await store.cart((store.goods.shirt_m, 1))
        checkout = await store.ok("POST", "/checkout", params={"cart_token": token})
        chosen = await store.call(
            "POST",
            f"/checkout/{checkout['checkout_id']}/payment",
            json={"payment_method": "vnpay"},
        )
        assert chosen.status_code == 422
        assert chosen.json()["errors"][0]["field"] == "payment_method"

        order = await store.place(token, payment_method="vnpay")
        pay = await store.call("POST", "/checkout/pay", params={"cart_token": token})
        assert pay.status_code == 422 and pay.json()["errors"][0]["field"] == "provider"

        # A request the store signed (as a payment url would carry it) gets no Pay button.
        request = signed_request(
            MERCHANT_CODE, HASH_SECRET, f"{order['code']}AAAA", "20261120100010"
        )
        await assert_sandbox_off(store.client, request, caplog)
        assert sender.sent == []
        assert (await store.place(token, expect=200))["current_status"] == "pending"


async def test_asked_for_by_name_the_sandbox_serves_a_store_that_is_not_the_demo(
    template: Template, tmp_path: Path, clock: ManualClock
) -> None:
    async with opened_store(
        template, tmp_path, clock, sandbox_payments=True, site_origins=("https://shop.example",)
    ) as store:
        methods = await store.ok("GET", "/checkout/payment-methods")
        assert [m["code"] for m in methods["items"]] == ["cod", "vnpay"]
        assert await paid_through_the_sandbox(store.client, store.key, store.goods.shirt_m)


async def paid_through_the_sandbox(
    client: httpx.AsyncClient, key: str, variant: int, return_url: str | None = None
) -> bool:
    """A vnpay order placed, started, paid on the sandbox's page (then sent back to
    ``return_url`` when given); whether it ended paid."""

    async def call(method: str, path: str, **kwargs: Any) -> httpx.Response:
        sent = {"X-Service-Key": key}
        return await client.request(method, PREFIX + path, headers=sent, **kwargs)

    items = {"items": [{"variant_id": variant, "quantity": 1}]}
    token = (await call("PUT", "/cart/items", json=items)).json()["token"]
    body = {"address": ADDRESS, "payment": {"payment_method": "vnpay"}}
    placed = await call("POST", "/checkout/place-order", params={"cart_token": token}, json=body)
    assert placed.status_code == 201, placed.text
    pay = {"return_url": return_url} if return_url else None
    started = await call("POST", "/checkout/pay", params={"cart_token": token}, json=pay)
    assert started.status_code == 200, started.text
    url = urlsplit(started.json()["payment_url"])
    request = dict(parse_qsl(url.query))
    page = await client.get(url.path, params=request)
    assert page.status_code == 200 and "Thanh toán (thành công)" in page.text
    done = await client.post("/sandbox/vnpay/complete", data={**request, "outcome": "pay"})
    assert done.status_code == 303, done.text
    assert done.headers["location"].startswith(return_url or "http://127.0.0.1:8001/sandbox/")
    again = await call("POST", "/checkout/place-order", params={"cart_token": token}, json=body)
    return bool(again.json()["current_status"] == "paid")


def demo_variant(engine: Engine) -> int:
    """A variant of the demo store that can be bought (published, priced, in stock)."""
    with engine.connect() as conn:
        variant: int = conn.execute(
            select(t.variants.c.id)
            .join(t.products, t.products.c.id == t.variants.c.product_id)
            .where(
                t.products.c.status == "published",
                t.products.c.price.is_not(None),
                t.variants.c.stock.is_(None) | (t.variants.c.stock > 0),
            )
            .order_by(t.variants.c.id)
            .limit(1)
        ).scalar_one()
    return variant


async def test_the_sandbox_serves_the_demo_store_and_no_other_store_beside_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    with fresh_database(tmp_path) as database:
        app = demo_companion(CompanionSettings(database=database), products=20)
        engine = app.state.services.engine
        # Another store in the same database, with its own gateway credentials.
        other = Shop(engine, DEMO_NOW, name="Cửa hàng khác")
        with engine.begin() as conn:
            seed_commerce(
                conn,
                store_id=other.store_id,
                now=DEMO_NOW,
                merchant_code=MERCHANT_CODE,
                hash_secret=HASH_SECRET,
            )
        other_key = other.key()
        app.state.ipn_sender = HttpIpnSender(httpx.ASGITransport(app=app))
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
        try:
            demo_methods = await client.get(
                PREFIX + "/checkout/payment-methods", headers={"X-Service-Key": DEMO_KEY}
            )
            assert [m["code"] for m in demo_methods.json()["items"]] == ["cod", "vnpay"]
            # Back to a preview of the demo on this machine, whatever its port.
            back = "http://localhost:8000/thanh-toan/ket-qua"
            assert await paid_through_the_sandbox(client, DEMO_KEY, demo_variant(engine), back)

            other_methods = await client.get(
                PREFIX + "/checkout/payment-methods", headers={"X-Service-Key": other_key}
            )
            assert [m["code"] for m in other_methods.json()["items"]] == ["cod"]
            request = signed_request(MERCHANT_CODE, HASH_SECRET, "DHOTHER0001", "20261120100010")
            await assert_sandbox_off(client, request, caplog)
        finally:
            await client.aclose()
            engine.dispose()


async def test_store_fixture_pays_in_the_sandbox(store: Store) -> None:
    """The fixture's store asks for the sandbox by name: every payment test runs on it."""
    assert await paid_through_the_sandbox(store.client, store.key, store.goods.shirt_m)
