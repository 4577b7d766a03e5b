"""A rebuild handed the companion's webhook event asks only what the event can move, and writes
the same bytes as a --full build of the same data."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from companion.db import schema
from companion.db.commerce_schema import webhook_deliveries
from companion.webhooks.events import Entity
from companion.webhooks.subscriptions import add_subscription
from generator.errors import ConfigError
from generator.replay.events import scope_of
from tests.support.incremental_store import DemoStore, config_for, folder_bytes
from tests.support.incremental_store import build_asked as build

PRODUCTS = 250  # three pages of the product list (limit=100)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DemoStore]:
    found = DemoStore(tmp_path, products=PRODUCTS)
    with found.engine.begin() as conn:
        add_subscription(
            conn,
            store_id=found.store_id,
            url="https://ci.example/hooks/storefront",
            events=["*"],
            now=found.now,
        )
    yield found
    found.close()


def sent_events(store: DemoStore, folder: Path) -> Path:
    """The payloads the companion queued for its subscriber since the last call, as a CI job
    is handed them (one JSON array in a file)."""
    with store.engine.begin() as conn:
        rows = conn.execute(select(webhook_deliveries.c.payload)).all()
        conn.execute(webhook_deliveries.delete())
    path = folder / "event.json"
    path.write_text(json.dumps([json.loads(row.payload) for row in rows]), encoding="utf-8")
    return path


def rebuilt(store: DemoStore, folder: Path, change: object) -> tuple[list[str], list[object]]:
    """A first build, ``change()``, the rebuild handed its events, and a --full build of the
    same data: what the rebuild asked and the events; the two outputs must be the same."""
    build(store, config_for(folder))
    sent_events(store, folder)  # the seed's own events are not this change's
    assert callable(change)
    change()
    event = sent_events(store, folder)
    asked = build(store, dataclasses.replace(config_for(folder), event=event))
    build(store, config_for(folder, out="full", cache="full-cache", full=True))
    assert folder_bytes(folder / "out") == folder_bytes(folder / "full")
    return asked, json.loads(event.read_text(encoding="utf-8"))


def priced_product(store: DemoStore) -> int:
    with store.engine.connect() as conn:
        return int(
            conn.scalar(
                select(schema.products.c.id)
                .where(schema.products.c.url.is_not(None), schema.products.c.status == "published")
                .order_by(schema.products.c.id.desc())
            )
            or 0
        )


def test_a_price_change_event_asks_the_product_and_what_it_moves(
    store: DemoStore, tmp_path: Path
) -> None:
    product = priced_product(store)
    asked, events = rebuilt(store, tmp_path, lambda: store.set_price(product, 777_000))
    assert scope_of(events) is not None
    assert f"/products/{product}" in asked
    walked = [url for url in asked if url.startswith("/products?limit=")]
    assert len(walked) == 1  # the one page that lists it, not the whole list
    assert len(asked) <= 50, asked


@pytest.mark.slow  # seeds and builds twice; the price-change test keeps events in the inner loop
def test_a_deleted_product_walks_the_lists(store: DemoStore, tmp_path: Path) -> None:
    product = priced_product(store)
    asked, events = rebuilt(store, tmp_path, lambda: store.delete(Entity.PRODUCT, product))
    assert scope_of(events) is None
    assert len([url for url in asked if url.startswith("/products?limit=")]) > 1


@pytest.mark.slow
def test_a_new_product_walks_the_lists(store: DemoStore, tmp_path: Path) -> None:
    category = store.ids(Entity.CATEGORY)[0]

    def create() -> None:
        store.create(
            Entity.PRODUCT,
            {
                "name": "Áo mới",
                "slug": "ao-moi",
                "url": "/san-pham/ao-moi",
                "price": 120_000,
                "category_id": category,
                "status": "published",
                "published_at": store.now,
            },
        )

    asked, events = rebuilt(store, tmp_path, create)
    assert scope_of(events) is None
    assert "/products?limit=100" in asked


def test_a_file_that_is_not_an_event_is_one_line(store: DemoStore, tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text('{"type": "product.updated"}', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a content-change event"):
        build(store, dataclasses.replace(config_for(tmp_path), event=event))
