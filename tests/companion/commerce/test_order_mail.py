"""The order e-mail: sent to the shopper through the store's SMTP server (a real one, started
by the test on loopback) once per order placed; none without a server; a server that cannot be
reached loses the e-mail, never the order."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from companion.clock import ManualClock
from tests.companion.commerce.conftest import ADDRESS, Template, opened_store

pytestmark = pytest.mark.anyio


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], Message]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append((list(envelope.rcpt_tos), message_from_bytes(envelope.content)))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def _mail_settings(port: int) -> dict[str, Any]:
    return {
        "smtp_host": "127.0.0.1",
        "smtp_port": port,
        "smtp_from": "Cửa hàng <donhang@shop.example>",
        "smtp_tls": "none",
    }


async def test_the_shopper_gets_one_e_mail_per_order(
    template: Template, tmp_path: Path, clock: ManualClock, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    async with opened_store(template, tmp_path, clock, **_mail_settings(port)) as store:
        token = await store.cart((store.goods.shirt_m, 2))
        order = await store.place(token)
        await store.place(token, expect=200)  # the same order again: no second e-mail
    assert len(inbox.messages) == 1
    recipients, message = inbox.messages[0]
    assert recipients == [ADDRESS["email"]]
    assert order["code"] in message["Subject"]
    body = message.get_payload(decode=True).decode()  # type: ignore[union-attr]
    assert ADDRESS["full_name"] in body
    total = f"{int(order['total']):,}".replace(",", ".") + " ₫"
    assert total in body
    assert "Áo thun cổ tròn" in body and "× 2" in body


async def test_no_server_no_e_mail(
    template: Template, tmp_path: Path, clock: ManualClock, smtp: tuple[Inbox, int]
) -> None:
    inbox, _ = smtp
    async with opened_store(template, tmp_path, clock) as store:
        await store.place(await store.cart((store.goods.shirt_m, 1)))
    assert inbox.messages == []


async def test_an_unreachable_server_loses_the_e_mail_not_the_order(
    template: Template, tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens here once the probe is closed
    async with opened_store(template, tmp_path, clock, **_mail_settings(closed)) as store:
        with caplog.at_level(logging.WARNING, logger="storefront.mail"):
            order = await store.place(await store.cart((store.goods.shirt_m, 1)))
    assert order["code"]
    assert any("not sent" in record.getMessage() for record in caplog.records)
