"""POST /checkout/pay sends the shopper back only to the store's own site origins: the listed
site origins, the session origins, the companion's public url and https on the store's host
names. Any other ``return_url`` is a 422 naming the field, written to the request log with its
reason, and starts no payment; the sandbox itself sends no browser elsewhere."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from sqlalchemy import func, insert, select

from companion.clock import ManualClock
from companion.db import schema as t
from companion.db.commerce_schema import payments
from companion.logging_http import ACCESS_LOGGER
from companion.payments import vnpay
from tests.companion.commerce.conftest import HASH_SECRET, Store, Template, opened_store

pytestmark = pytest.mark.anyio

SITE_ORIGINS = ("https://shop.example", "https://www.shop.example", "http://shop.example:8080")
SESSION_ORIGIN = "https://m.shop.example"
PUBLIC_URL = "https://api.shop.example"
STORE_HOST = "cua-hang.example"

ALLOWED = [
    "https://shop.example/thanh-toan/ket-qua",
    "https://www.shop.example/thanh-toan/ket-qua?from=pay",
    "http://shop.example:8080/thanh-toan/ket-qua",
    "https://m.shop.example/thanh-toan/ket-qua",
    "https://api.shop.example/sandbox/vnpay/result",
    "https://cua-hang.example/thanh-toan/ket-qua",
    "HTTPS://Shop.Example:443/thanh-toan/ket-qua",
    "https://shop.example",
]

HOSTILE = [
    "https://evil.test/phish",
    "https://evil.test\\@127.0.0.1/",
    "https://evil.test\\@shop.example/",
    "https://shop.example\\evil.test/",
    "//evil.test/phish",
    "///evil.test/phish",
    "javascript:alert(document.domain)//https://shop.example/",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "https:evil.test/phish",
    "https:/evil.test/phish",
    "https:shop.example/thanh-toan/ket-qua",
    "https://shop.example@evil.test/",
    "https://user:pass@shop.example/",
    "https://shop.example:443@evil.test/",
    "https://shop.example.evil.test/",
    "https://evil.test/https://shop.example/",
    "https://evil.test?https://shop.example/",
    "https://evil.test#@shop.example/",
    "https://shop.example%2eevil.test/",
    "https://%73hop.example/",
    "https://shop.example%40evil.test/",
    "https://shop.example%2f@evil.test/",
    "https://sh\u043ep.example/",  # a Cyrillic o
    "https://xn--shp-mdd.example/",
    "https://shop\u3002example/",  # an ideographic full stop
    "https://\uff53hop.example/",  # a full-width s
    "https://shop.example:444/",
    "https://shop.example:0443/",
    "https://shop.example:99999/",
    "https://shop.example:/",
    "http://shop.example/",
    "https://shop.example./",
    "https://[::1]/",
    "https://127.0.0.1/",
    " https://shop.example/",
    "https://sh\top.example/",
    "https://shop.example/\nSet-Cookie:x=1",
    "https://shop.example/#result",
    "",
    "https://shop.example/" + "a" * 2000,
]


@pytest.fixture
async def shop(template: Template, tmp_path: Path, clock: ManualClock) -> AsyncIterator[Store]:
    async with opened_store(
        template,
        tmp_path,
        clock,
        sandbox_payments=True,
        site_origins=SITE_ORIGINS,
        session_origins=(SESSION_ORIGIN,),
        public_url=PUBLIC_URL,
    ) as store:
        with store.engine.begin() as conn:
            conn.execute(insert(t.store_hosts).values(host=STORE_HOST, store_id=store.store_id))
        yield store


async def vnpay_order(store: Store) -> str:
    token = await store.cart((store.goods.shirt_m, 1))
    await store.place(token, payment_method="vnpay")
    return token


def payment_count(store: Store) -> int:
    with store.engine.connect() as conn:
        count: int = conn.execute(select(func.count()).select_from(payments)).scalar_one()
    return count


def refusals(caplog: pytest.LogCaptureFixture, path: str) -> list[str]:
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    return [str(line.get("refused")) for line in lines if line["path"] == path]


async def test_each_hostile_return_url_is_refused_and_logged(
    shop: Store, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    token = await vnpay_order(shop)
    for url in HOSTILE:
        caplog.clear()
        response = await shop.call(
            "POST", "/checkout/pay", params={"cart_token": token}, json={"return_url": url}
        )
        assert response.status_code == 422, (url, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert [e["field"] for e in response.json()["errors"]] == ["return_url"], url
        [reason] = refusals(caplog, "/public/v1/checkout/pay")
        assert reason.startswith("return_url: "), (url, reason)
    assert payment_count(shop) == 0  # nothing started for a refused address


async def test_each_of_the_store_origins_is_a_return_the_sandbox_sends_back_to(
    shop: Store,
) -> None:
    token = await vnpay_order(shop)
    for url in ALLOWED:
        body = await shop.ok(
            "POST", "/checkout/pay", params={"cart_token": token}, json={"return_url": url}
        )
        request = dict(parse_qsl(urlsplit(body["payment_url"]).query))
        assert request["vnp_ReturnUrl"] == url
        done = await shop.client.post(
            "/sandbox/vnpay/complete", data={**request, "outcome": "cancel"}
        )
        assert done.status_code == 303, (url, done.text)
        location = done.headers["location"]
        assert location.startswith(url + ("&" if "?" in url else "?")), (url, location)
        assert "vnp_SecureHash=" in location


async def test_the_sandbox_sends_no_browser_to_an_address_the_store_does_not_own(
    shop: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """A pay request signed with the store's secret (the demo's secret is published) and
    naming another site: the sandbox neither notifies nor redirects."""
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    token = await vnpay_order(shop)
    body = await shop.ok("POST", "/checkout/pay", params={"cart_token": token})
    request = dict(parse_qsl(urlsplit(body["payment_url"]).query))
    forged = {**request, "vnp_ReturnUrl": "https://evil.test/phish"}
    forged = dict(parse_qsl(vnpay.signed_query(forged, HASH_SECRET)))
    done = await shop.client.post("/sandbox/vnpay/complete", data={**forged, "outcome": "pay"})
    assert done.status_code == 400 and "location" not in done.headers
    assert "evil.test" not in done.text
    [reason] = refusals(caplog, "/sandbox/vnpay/complete")
    assert "vnp_ReturnUrl" in reason
    assert (await shop.place(token, expect=200))["current_status"] == "pending"
