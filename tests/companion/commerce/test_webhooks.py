"""Content-change webhooks: catalogue writes queue signed events, the worker delivers them to an
outside subscriber (httpx.MockTransport), retries with backoff, and gives up at last."""

from __future__ import annotations

import argparse
import json
import time

import httpx
import pytest
from sqlalchemy import Connection, select

from companion.catalog_admin import CatalogError, delete_entity, set_product_price, update_entity
from companion.clock import epoch_seconds
from companion.db.commerce_schema import webhook_deliveries
from companion.db.schema import products
from companion.server import delivering_webhooks
from companion.webhooks.cli import add_webhook_parser
from companion.webhooks.events import Entity
from companion.webhooks.signing import SIGNATURE_HEADER, verify
from companion.webhooks.subscriptions import SubscriptionError, add_subscription
from companion.webhooks.worker import DeliveryReport, deliver_due
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio

SECRET = "whsec_subscriber"
HOOK = "https://ci.example/hooks/storefront"


class Subscriber:
    """The outside world: records what arrives and answers with the next status in line."""

    def __init__(self, *statuses: int) -> None:
        self.statuses = list(statuses)
        self.received: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.received.append(request)
        return httpx.Response(self.statuses.pop(0) if self.statuses else 200)

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))


def subscribe(store: Store, events: list[str] | None = None) -> None:
    with store.engine.begin() as conn:
        add_subscription(
            conn,
            store_id=store.store_id,
            url=HOOK,
            events=events or [],
            now=store.clock.now(),
            secret=SECRET,
        )


def change_price(store: Store, price: int = 250_000) -> None:
    with store.engine.begin() as conn:
        set_product_price(
            conn,
            store_id=store.store_id,
            product_id=store.goods.shirt,
            price=price,
            now=store.clock.now(),
        )


def deliver(store: Store, subscriber: Subscriber, **options: int) -> DeliveryReport:
    with subscriber.client() as client:
        return deliver_due(store.engine, client, store.clock, **options)


async def test_price_change_is_delivered_signed(store: Store) -> None:
    subscribe(store)
    change_price(store)
    subscriber = Subscriber()
    assert deliver(store, subscriber) == DeliveryReport(delivered=1)
    [request] = subscriber.received
    assert str(request.url) == HOOK
    now = int(epoch_seconds(store.clock.now()))
    assert verify(SECRET, request.content, request.headers[SIGNATURE_HEADER], now=now)
    assert request.headers["Storefront-Event"] == "product.updated"
    event = json.loads(request.content)
    assert event["type"] == "product.updated" and event["store_id"] == store.store_id
    assert event["data"] == {
        "entity": "product",
        "id": store.goods.shirt,
        "action": "updated",
        "changed": ["price"],
    }
    assert request.headers["Storefront-Delivery"] == event["id"]
    assert deliver(store, subscriber) == DeliveryReport()  # nothing left


async def test_the_change_itself_is_written(store: Store) -> None:
    change_price(store, 123_000)
    with store.engine.connect() as conn:
        price = conn.execute(
            select(products.c.price).where(products.c.id == store.goods.shirt)
        ).scalar_one()
    assert price == 123_000
    card = await store.ok("GET", f"/products/{store.goods.shirt}")
    assert card["price"] == 123_000


async def test_failed_delivery_is_retried_with_backoff(store: Store) -> None:
    subscribe(store)
    change_price(store)
    subscriber = Subscriber(500, 503)
    assert deliver(store, subscriber) == DeliveryReport(retrying=1)
    assert deliver(store, subscriber) == DeliveryReport()  # not due yet
    store.clock.advance(30)
    assert deliver(store, subscriber) == DeliveryReport(retrying=1)
    store.clock.advance(59)
    assert deliver(store, subscriber) == DeliveryReport()  # second wait is a minute
    store.clock.advance(1)
    assert deliver(store, subscriber) == DeliveryReport(delivered=1)
    bodies = {r.content for r in subscriber.received}
    assert len(subscriber.received) == 3 and len(bodies) == 1  # the same event each time


async def test_delivery_gives_up_after_the_last_attempt(store: Store) -> None:
    subscribe(store)
    change_price(store)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with httpx.Client(transport=httpx.MockTransport(refuse)) as client:
        reports = []
        for _ in range(3):
            reports.append(deliver_due(store.engine, client, store.clock, max_attempts=3))
            store.clock.advance(3600)
    assert reports == [
        DeliveryReport(retrying=1),
        DeliveryReport(retrying=1),
        DeliveryReport(failed=1),
    ]
    with store.engine.connect() as conn:
        row = conn.execute(select(webhook_deliveries)).one()
    assert (row.status, row.attempts) == ("failed", 3)
    assert "ConnectError" in row.last_error


async def test_subscriptions_choose_their_events(store: Store) -> None:
    subscribe(store, ["category.*"])
    change_price(store)
    with store.engine.begin() as conn:
        update_entity(
            conn,
            Entity.CATEGORY,
            store.goods.category,
            {"name": "Áo nam"},
            store_id=store.store_id,
            now=store.clock.now(),
        )
    subscriber = Subscriber()
    deliver(store, subscriber)
    assert [r.headers["Storefront-Event"] for r in subscriber.received] == ["category.updated"]


async def test_delete_emits_and_rolled_back_writes_emit_nothing(store: Store) -> None:
    subscribe(store)
    with pytest.raises(RuntimeError), store.engine.begin() as conn:
        change_price_in(conn, store)
        raise RuntimeError("the merchant's transaction failed")
    with store.engine.begin() as conn:
        delete_entity(
            conn, Entity.PRODUCT, store.goods.jeans, store_id=store.store_id, now=store.clock.now()
        )
    subscriber = Subscriber()
    deliver(store, subscriber)
    [request] = subscriber.received
    assert json.loads(request.content)["type"] == "product.deleted"
    assert (await store.call("GET", f"/products/{store.goods.jeans}")).status_code == 404


def change_price_in(conn: Connection, store: Store) -> None:
    set_product_price(
        conn,
        store_id=store.store_id,
        product_id=store.goods.shirt,
        price=1,
        now=store.clock.now(),
    )


async def test_catalog_admin_refuses_unknown_rows_and_columns(store: Store) -> None:
    with store.engine.begin() as conn:
        with pytest.raises(CatalogError, match="no product 99999"):
            set_product_price(
                conn, store_id=store.store_id, product_id=99999, price=1, now=store.clock.now()
            )
        with pytest.raises(CatalogError, match="search_name"):
            update_entity(
                conn,
                Entity.PRODUCT,
                store.goods.shirt,
                {"search_name": "x"},
                store_id=store.store_id,
                now=store.clock.now(),
            )


async def test_subscription_input_is_checked(store: Store) -> None:
    with store.engine.begin() as conn:
        with pytest.raises(SubscriptionError, match="not an http"):
            add_subscription(
                conn, store_id=store.store_id, url="ftp://x", events=[], now=store.clock.now()
            )
        with pytest.raises(SubscriptionError, match="unknown event"):
            add_subscription(
                conn,
                store_id=store.store_id,
                url=HOOK,
                events=["order.shipped"],
                now=store.clock.now(),
            )


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="storefront api")
    add_webhook_parser(parser.add_subparsers(dest="api_action"))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


async def test_cli_adds_lists_and_removes(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    database = store.app.state.services.settings.database
    store.engine.dispose()
    assert run_cli(["webhooks", "add", HOOK, "--event", "product.*", "--db", database]) == 0
    added = capsys.readouterr().out
    assert "added webhook 1" in added and "signing secret (shown only now): whsec_" in added
    assert run_cli(["webhooks", "list", "--db", database]) == 0
    assert f"1\tstore {store.store_id}\t{HOOK}\tproduct.*" in capsys.readouterr().out
    assert run_cli(["webhooks", "add", "not-a-url", "--db", database]) == 2
    assert "error: 'not-a-url' is not an http(s) URL" in capsys.readouterr().err
    assert run_cli(["webhooks", "remove", "1", "--db", database]) == 0
    assert run_cli(["webhooks", "remove", "1", "--db", database]) == 2
    assert "no webhook 1" in capsys.readouterr().err
    assert run_cli(["webhooks", "deliver", "--db", database]) == 0
    assert "delivered 0, retrying 0, failed 0" in capsys.readouterr().err


async def test_the_server_delivers_due_webhooks_in_the_background(store: Store) -> None:
    subscribe(store)
    change_price(store)
    subscriber = Subscriber()
    with delivering_webhooks(store.engine, store.clock, interval=0.02, client=subscriber.client()):
        for _ in range(250):
            if subscriber.received:
                break
            time.sleep(0.02)
    assert [r.headers["Storefront-Event"] for r in subscriber.received] == ["product.updated"]
