"""`storefront watch` rebuilds on the companion's signed content-change webhook, and refuses
anything that is not one.

The end-to-end test registers watch's url as a subscription in the real companion, renames a
product through the companion's catalogue functions and runs the companion's delivery
function, which POSTs over loopback to watch served by uvicorn; the rebuild is the real one.
"""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import pytest
import uvicorn
from rich.console import Console
from sqlalchemy import select
from starlette.types import ASGIApp

from companion.db.commerce_schema import webhook_deliveries
from companion.webhooks.events import Entity
from companion.webhooks.signing import sign
from companion.webhooks.subscriptions import add_subscription
from companion.webhooks.worker import deliver_due
from generator.commands.watch import watch_app
from generator.serve.app import site_app
from generator.watch.loop import Rebuilder, run_rebuilds, trigger_sender
from generator.watch.reload import ReloadBroadcaster
from generator.watch.webhook import WEBHOOK_PATH, WebhookReceiver
from tests.support.incremental_store import DemoStore, config_for

SECRET = "whsec_test-secret-for-watch"
NEW_NAME = "Áo dài đổi tên qua webhook"
BODY = json.dumps(
    {
        "id": "evt_0123456789abcdef01234567",
        "type": "product.updated",
        "created_at": "2026-11-20T03:04:05",
        "store_id": 1,
        "data": {"entity": "product", "id": 12, "action": "updated", "changed": ["price"]},
    },
    separators=(",", ":"),
).encode()


def _free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def test_a_delivered_product_change_rebuilds_the_product_page(
    tmp_path: Path, store: DemoStore
) -> None:
    config = config_for(tmp_path)
    printed = io.StringIO()
    console = Console(file=printed, width=300, highlight=False)
    broadcaster = ReloadBroadcaster()
    rebuilder = Rebuilder(lambda: config, console, broadcaster, store.connect)
    sock = _free_socket()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}{WEBHOOK_PATH}"
    with store.engine.begin() as conn:
        add_subscription(
            conn,
            store_id=store.store_id,
            url=url,
            events=["product.*"],
            now=store.now,
            secret=SECRET,
        )
    product = store.ids(Entity.PRODUCT)[0]
    path = (store.product_url(product) or "").strip("/") + ".html"
    page = config.out / path
    assert anyio.run(rebuilder.rebuild, "first build")
    before = page.read_text(encoding="utf-8")
    assert NEW_NAME not in before

    async def go() -> None:
        send, receive = anyio.create_memory_object_stream[str](1)
        trigger = trigger_sender(send)

        def report(line: str) -> None:
            console.print(line, markup=False)

        receiver = WebhookReceiver(SECRET, trigger, report, collect=rebuilder.received)
        app = watch_app(site_app(config.out), broadcaster, receiver)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        with anyio.fail_after(60), send, receive:
            async with anyio.create_task_group() as tg:
                tg.start_soon(lambda: server.serve(sockets=[sock]))
                tg.start_soon(run_rebuilds, rebuilder, receive)
                while not server.started:
                    await anyio.sleep(0.02)
                async with broadcaster.subscribe() as events:
                    store.update(Entity.PRODUCT, product, {"name": NEW_NAME})
                    with httpx.Client() as client:
                        delivered = await anyio.to_thread.run_sync(
                            deliver_due, store.engine, client, store.clock
                        )
                    assert delivered.delivered == 1
                    assert (await events.receive()).name == "reload"
                server.should_exit = True
                tg.cancel_scope.cancel()

    anyio.run(go)
    sock.close()
    assert NEW_NAME in page.read_text(encoding="utf-8")
    # The rebuild was handed the event: it asked only what a renamed product can move.
    handed = json.loads((config.cache_dir / "events.json").read_text(encoding="utf-8"))
    assert [event["data"]["id"] for event in handed] == [product]
    lines = printed.getvalue().splitlines()
    assert any(line.startswith("webhook product.updated evt_") for line in lines)
    assert "rebuilding: webhook product.updated" in lines
    with store.engine.connect() as conn:
        row = conn.execute(select(webhook_deliveries.c.status, webhook_deliveries.c.last_status))
        assert [tuple(r) for r in row] == [("delivered", 202)]


class Received:
    """A receiver on the real watch app, over ASGITransport; what it triggered and logged."""

    def __init__(self, tmp_path: Path, *, now: float | None = None) -> None:
        self.triggers: list[str] = []
        self.lines: list[str] = []
        clock = (lambda: now) if now is not None else time.time
        receiver = WebhookReceiver(SECRET, self.triggers.append, self.lines.append, clock=clock)
        (tmp_path / "out").mkdir(exist_ok=True)
        self.app = watch_app(site_app(tmp_path / "out"), ReloadBroadcaster(), receiver)

    def post(self, body: bytes, headers: dict[str, str], *, method: str = "POST") -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://watch") as http:
                return await http.request(method, WEBHOOK_PATH, content=body, headers=headers)

        return anyio.run(go)


def signed(body: bytes, *, secret: str = SECRET, at: float | None = None) -> dict[str, str]:
    """The headers the companion's worker sends (its own ``sign``)."""
    timestamp = int(time.time() if at is None else at)
    return {
        "Content-Type": "application/json",
        "Storefront-Signature": sign(secret, body, timestamp=timestamp),
        "Storefront-Event": "product.updated",
        "Storefront-Delivery": "evt_0123456789abcdef01234567",
    }


def test_a_genuine_delivery_is_accepted_once_and_its_retry_is_not_rebuilt(
    tmp_path: Path,
) -> None:
    received = Received(tmp_path)
    first = received.post(BODY, signed(BODY))
    retry = received.post(BODY, signed(BODY))
    assert (first.status_code, retry.status_code) == (202, 200)
    assert received.triggers == ["webhook product.updated"]


@pytest.mark.parametrize(
    ("case", "status", "reason"),
    [
        ("no signature", 400, "missing Storefront-Signature header"),
        ("malformed", 400, "malformed Storefront-Signature header"),
        ("other secret", 401, "signature does not match"),
        ("tampered body", 401, "signature does not match"),
        ("six minutes old", 401, "from this clock"),
        ("six minutes ahead", 401, "from this clock"),
        ("not json", 400, "body is not JSON"),
    ],
)
def test_anything_but_a_genuine_recent_delivery_is_refused(
    tmp_path: Path, case: str, status: int, reason: str
) -> None:
    now = time.time()
    body, headers = BODY, signed(BODY, at=now)
    if case == "no signature":
        del headers["Storefront-Signature"]
    elif case == "malformed":
        headers["Storefront-Signature"] = "v1=abc"
    elif case == "other secret":
        headers = signed(BODY, secret="whsec_someone-else", at=now)
    elif case == "tampered body":
        body = BODY.replace(b'"id":12', b'"id":13')
    elif case == "six minutes old":
        headers = signed(BODY, at=now - 360)
    elif case == "six minutes ahead":
        headers = signed(BODY, at=now + 360)
    elif case == "not json":
        body = b"not json"
        headers = signed(body, at=now)
    received = Received(tmp_path, now=now)
    answer = received.post(body, headers)
    assert answer.status_code == status
    assert reason in answer.json()["error"]
    assert received.triggers == []
    assert len(received.lines) == 1 and received.lines[0].startswith(f"webhook refused ({status})")


def test_just_inside_the_five_minute_window_is_accepted(tmp_path: Path) -> None:
    now = time.time()
    received = Received(tmp_path, now=now)
    assert received.post(BODY, signed(BODY, at=now - 299)).status_code == 202


def test_other_methods_and_oversized_bodies_are_refused(tmp_path: Path) -> None:
    received = Received(tmp_path)
    got = received.post(b"", {}, method="GET")
    assert got.status_code == 405 and got.headers["allow"] == "POST"
    large = b"{" + b" " * (70 * 1024) + b"}"
    assert received.post(large, signed(large)).status_code == 413
    assert received.triggers == []
    assert [line.split(")")[0] for line in received.lines] == [
        "webhook refused (405",
        "webhook refused (413",
    ]


def test_the_companion_records_a_refusal_and_retries(tmp_path: Path, store: DemoStore) -> None:
    """A subscription whose secret watch does not hold: the delivery is refused (401) and the
    companion schedules a retry instead of marking it delivered."""
    triggers: list[str] = []
    receiver = WebhookReceiver(SECRET, triggers.append, lambda line: None)
    (tmp_path / "out").mkdir()
    app = watch_app(site_app(tmp_path / "out"), ReloadBroadcaster(), receiver)
    with serving(app) as origin:
        with store.engine.begin() as conn:
            add_subscription(
                conn,
                store_id=store.store_id,
                url=f"{origin}{WEBHOOK_PATH}",
                events=["*"],
                now=store.now,
                secret="whsec_not-the-one-watch-has",
            )
        store.set_price(store.ids(Entity.PRODUCT)[0], 123_000)
        with httpx.Client() as client:
            report = deliver_due(store.engine, client, store.clock)
    assert (report.delivered, report.retrying) == (0, 1)
    assert triggers == []
    with store.engine.connect() as conn:
        row = conn.execute(select(webhook_deliveries.c.status, webhook_deliveries.c.last_status))
        assert [tuple(r) for r in row] == [("pending", 401)]


@contextmanager
def serving(app: ASGIApp) -> Iterator[str]:
    """``app`` under uvicorn on a thread, on a free loopback port; yields the origin."""
    sock = _free_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
