"""The merchant is told of orders: an e-mail of each new and each paid order (through a real
SMTP server the test starts on loopback), and the order webhooks on the signed, retried queue."""

from __future__ import annotations

import json
from email.header import decode_header, make_header
from email.message import Message
from pathlib import Path

import pytest
from sqlalchemy import select

from companion.clock import ManualClock
from companion.db.commerce_schema import webhook_deliveries
from companion.keys.lifecycle import create_key
from tests.companion.commerce.conftest import ADDRESS, Store, Template, opened_store
from tests.companion.commerce.test_order_mail import Inbox, _mail_settings, smtp
from tests.companion.commerce.test_webhooks import subscribe

pytestmark = pytest.mark.anyio


def subject(message: Message) -> str:
    return str(make_header(decode_header(message["Subject"])))


MERCHANT = "chu.cua.hang@shop.example"
__all__ = ["smtp"]


async def move(store: Store, order_id: int, status: str) -> None:
    with store.engine.begin() as conn:
        _, key = create_key(
            conn, store.store_id, now=store.clock.now(), permissions=["orders:write"]
        )
    moved = await store.client.post(
        f"/admin/api/v1/orders/{order_id}/moves",
        json={"status": status, "reason": "chuyển khoản đã nhận"},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert moved.status_code == 200, moved.text


async def test_the_merchant_gets_an_e_mail_of_each_new_and_each_paid_order(
    template: Template, tmp_path: Path, clock: ManualClock, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    settings = {**_mail_settings(port), "merchant_email": MERCHANT}
    async with opened_store(template, tmp_path, clock, **settings) as store:
        order = await store.place(await store.cart((store.goods.shirt_m, 2)))
        to_merchant = [m for rcpt, m in inbox.messages if rcpt == [MERCHANT]]
        assert len(to_merchant) == 1 and order["code"] in subject(to_merchant[0])
        assert [rcpt for rcpt, _ in inbox.messages].count([ADDRESS["email"]]) == 1
        body = to_merchant[0].get_payload(decode=True).decode()  # type: ignore[union-attr]
        assert ADDRESS["phone"] in body and "Áo thun cổ tròn" in body
        await move(store, order["id"], "paid")
    to_merchant = [m for rcpt, m in inbox.messages if rcpt == [MERCHANT]]
    assert len(to_merchant) == 2
    assert order["code"] in subject(to_merchant[1])
    assert subject(to_merchant[0]).startswith("Đơn hàng mới")
    assert subject(to_merchant[1]).endswith(
        "đã thanh toán: " + f"{int(order['total']):,}".replace(",", ".") + " ₫"
    )


async def test_no_merchant_address_no_merchant_e_mail(
    template: Template, tmp_path: Path, clock: ManualClock, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    async with opened_store(template, tmp_path, clock, **_mail_settings(port)) as store:
        order = await store.place(await store.cart((store.goods.shirt_m, 1)))
        await move(store, order["id"], "paid")
    assert [rcpt for rcpt, _ in inbox.messages] == [[ADDRESS["email"]]]


def queued(store: Store) -> list[tuple[int, str, dict[str, object]]]:
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                webhook_deliveries.c.subscription_id,
                webhook_deliveries.c.event_type,
                webhook_deliveries.c.payload,
            ).order_by(webhook_deliveries.c.id)
        )
        return [(r.subscription_id, r.event_type, json.loads(r.payload)["data"]) for r in rows]


async def test_orders_send_their_webhooks_to_who_asked_for_them(store: Store) -> None:
    subscribe(store, ["*"])  # a site rebuild's subscription: content only
    subscribe(store, ["order.*"])
    order = await store.place(await store.cart((store.goods.jeans_v, 1)))
    await move(store, order["id"], "paid")
    await move(store, order["id"], "fulfilled")
    events = queued(store)
    assert {subscription for subscription, _, _ in events} == {2}
    assert [event for _, event, _ in events] == [
        "order.created",
        "order.status_changed",
        "order.paid",
        "order.status_changed",
    ]
    created, paid_move, paid, shipped = (data for _, _, data in events)
    assert created["id"] == order["id"] and created["code"] == order["code"]
    assert created["status"] == "pending"
    assert (paid_move["from"], paid_move["status"]) == ("pending", "paid")
    assert paid["status"] == "paid" and paid["total"] == int(order["total"])
    assert (shipped["from"], shipped["status"]) == ("paid", "fulfilled")
