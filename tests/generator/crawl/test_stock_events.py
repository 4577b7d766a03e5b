"""A product event whose only change is its stock asks the product again but rewrites a page
only when what the page shows moved: in stock / low stock / out of stock, never the count."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, update

from companion.db import schema
from generator.replay.events import scope_of
from tests.support.incremental_store import (
    DemoStore,
    build_recorded,
    config_for,
    folder_bytes,
)

PRODUCTS = 40


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DemoStore]:
    found = DemoStore(tmp_path, products=PRODUCTS)
    yield found
    found.close()


def stocked_product(store: DemoStore) -> int:
    with store.engine.connect() as conn:
        return int(
            conn.scalar(
                select(schema.products.c.id)
                .where(
                    schema.products.c.url.is_not(None),
                    schema.products.c.status == "published",
                    schema.products.c.price.is_not(None),
                )
                .order_by(schema.products.c.id.desc())
            )
            or 0
        )


def set_stock(store: DemoStore, product: int, stock: int) -> None:
    """Every variant of ``product`` at ``stock``, as an order or the merchant's stock-take
    leaves it (no catalogue event of the companion's: the event is the backend's)."""
    with store.engine.begin() as conn:
        conn.execute(
            update(schema.variants)
            .where(schema.variants.c.product_id == product)
            .values(stock=stock, on_sale=True)
        )


def stock_event(store: DemoStore, folder: Path, product: int, n: int) -> Path:
    path = folder / f"event-{n}.json"
    payload = {
        "id": f"evt_stock{n}",
        "type": "product.updated",
        "created_at": store.now.isoformat(),
        "store_id": store.store_id,
        "data": {"entity": "product", "id": product, "action": "updated", "changed": ["stock"]},
    }
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def test_stock_events_rewrite_only_what_the_page_shows_moving(
    store: DemoStore, tmp_path: Path
) -> None:
    product = stocked_product(store)
    set_stock(store, product, 50)
    build_recorded(store, config_for(tmp_path))
    page = tmp_path / "out" / (store.product_url(product) or "").strip("/")
    page = page.with_suffix(".html") if not page.is_dir() else page / "index.html"
    assert page.is_file(), page

    def rebuild(stock: int, n: int) -> tuple[int, list[str]]:
        set_stock(store, product, stock)
        event = stock_event(store, tmp_path, product, n)
        assert scope_of([json.loads(event.read_text())]) is not None
        config = dataclasses.replace(config_for(tmp_path), event=event)
        summary, _, asked = build_recorded(store, config)
        return summary.rendered, asked

    # 50 -> 49: the product is asked again (its variants hold the truth), no page moves.
    rendered, asked = rebuild(49, 1)
    assert rendered == 0
    assert f"/products/{product}/variants" in asked
    assert len([url for url in asked if url.startswith("/products?limit=")]) <= 1, asked
    assert len(asked) <= 40, asked
    quiet = len(asked)

    # 49 -> 3: the product page alone shows "few left"; no card shows a count.
    rendered, asked = rebuild(3, 2)
    assert rendered == 1
    assert "Sắp hết" in page.read_text(encoding="utf-8")

    # 3 -> 0: out of stock, on its page and on every card of it.
    rendered, asked = rebuild(0, 3)
    assert rendered > 1
    assert "Hết hàng" in page.read_text(encoding="utf-8")
    assert len(asked) <= quiet + 20, asked

    build_recorded(store, config_for(tmp_path, out="full", cache="full-cache", full=True))
    assert folder_bytes(tmp_path / "out") == folder_bytes(tmp_path / "full")
