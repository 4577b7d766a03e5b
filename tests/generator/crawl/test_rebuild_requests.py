"""What a rebuild asks the API (the lists, and only what a change can reach), and what it
replays from the crawl cache."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
import httpx
from sqlalchemy import select

from companion.db import schema
from companion.seed.demo import DEMO_KEY
from companion.webhooks.events import Entity
from generator.client import ClientSettings
from generator.client.api import ApiClient
from generator.crawl.products import PACK_READING
from generator.crawl.settings import CrawlSettings
from generator.model import Catalog, ProductCard
from generator.replay.cache import CACHE_FILE, CachedAnswer, CrawlCache
from generator.replay.crawl import crawl
from tests.support.incremental_store import (
    BASE,
    UNLIMITED,
    CrawledStores,
    DemoStore,
    build_asked,
    config_for,
)


def build(store: DemoStore, folder: Path) -> list[str]:
    """One incremental build; what it asked, in order."""
    return build_asked(store, config_for(folder))


def reached_by(store: DemoStore, product_id: int) -> set[str]:
    """What a change of ``product_id`` may ask again: its detail and variants, the product
    lists and filters of its categories and their ancestors, of its collections, and the
    newest."""
    with store.engine.connect() as conn:
        primary = conn.scalar(
            select(schema.products.c.category_id).where(schema.products.c.id == product_id)
        )
        extra = list(
            conn.scalars(
                select(schema.product_categories.c.category_id).where(
                    schema.product_categories.c.product_id == product_id
                )
            )
        )
        table = schema.categories
        parents = {
            row.id: row.parent_id for row in conn.execute(select(table.c.id, table.c.parent_id))
        }
        collections = list(
            conn.scalars(
                select(schema.collection_products.c.collection_id).where(
                    schema.collection_products.c.product_id == product_id
                )
            )
        )
        categories: set[int] = set()
        for category in {primary, *extra}:
            while category is not None and category not in categories:
                categories.add(category)
                category = parents.get(category)
        return {
            f"/products/{product_id}",
            f"/products/{product_id}/variants",
            "/products?sort=newest&limit=12",
            *(f"/products?category={c}&limit=100" for c in categories),
            *(f"/filters?category={c}" for c in categories),
            *(f"/products?collection={c}&limit=100" for c in collections),
        }


def test_one_product_change_asks_the_lists_and_only_what_the_product_reaches(
    tmp_path: Path,
) -> None:
    store = DemoStore(tmp_path, products=60)
    try:
        first = build(store, tmp_path)
        lists = build(store, tmp_path)  # nothing changed: the lists alone
        product = next(p for p in store.ids(Entity.PRODUCT) if store.product_url(p))
        store.set_price(product, 654_000)
        changed = build(store, tmp_path)
        reachable = reached_by(store, product)
    finally:
        store.close()

    assert not any(url.startswith("/routes/resolve") for url in lists)
    beyond_lists = sorted(set(changed) - set(lists))
    assert f"/products/{product}" in beyond_lists
    assert set(beyond_lists) <= reachable, set(beyond_lists) - reachable
    # Nothing a price cannot change is asked again: no route, CMS page or other product.
    assert not any(url.startswith(("/routes/resolve", "/pages/")) for url in changed)
    assert len(changed) <= len(lists) + len(reachable)
    assert len(changed) < len(first) / 3


def test_a_replay_from_stored_readings_equals_a_replay_that_decodes(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=40).close()
    cache_dir = tmp_path / "cache"
    replayed = anyio.run(lambda: crawl(None, cache=CrawlCache.open(cache_dir)))
    db = sqlite3.connect(cache_dir / CACHE_FILE)
    with db:
        stored = db.execute("SELECT count(*) FROM bodies WHERE readings IS NOT NULL").fetchone()
        db.execute("UPDATE meta SET code = 'other code'")  # its readings are ignored now
    db.close()
    decoded = anyio.run(lambda: crawl(None, cache=CrawlCache.open(cache_dir)))
    assert stored[0] > 100
    assert replayed == decoded
    assert len(replayed.products) > 20


def test_a_replay_holds_one_object_per_product_card(
    tmp_path: Path, crawled_stores: CrawledStores
) -> None:
    crawled_stores.copy(tmp_path, products=40).close()
    catalog = anyio.run(lambda: crawl(None, cache=CrawlCache.open(tmp_path / "cache")))
    listed = [card for page in catalog.categories for card in page.products]
    listed += [card for page in catalog.collections for card in page.products]
    listed += [*catalog.featured, *(p.card for p in catalog.products)]
    by_value: dict[ProductCard, set[int]] = {}
    for card in listed:
        by_value.setdefault(card, set()).add(id(card))
    assert len(by_value) > 20 and len(listed) > 2 * len(by_value)
    # Every card listed several times is one object: read once, not once per listing.
    assert all(len(objects) == 1 for objects in by_value.values())
    assert any(card.url is None for card in by_value)  # cards without a product page too


class ReadingsNoted(CrawlCache):
    """The crawl cache, noting in ``events`` each product pack it is asked for."""

    events: list[str]

    def reading(self, key: str, answer: CachedAnswer, name: str) -> object:
        if name == PACK_READING:
            self.events.append(f"pack {key}")
        return super().reading(key, answer, name)


def test_products_are_replayed_while_the_product_list_is_still_walked(tmp_path: Path) -> None:
    store = DemoStore(tmp_path, products=40)
    events: list[str] = []

    class Noted(httpx.AsyncBaseTransport):
        inner = httpx.ASGITransport(app=store.app)

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            events.append(f"ask {request.url.path.removeprefix('/public/v1')}")
            return await self.inner.handle_async_request(request)

    async def crawl_once(cache: CrawlCache) -> Catalog:
        async with httpx.AsyncClient(transport=Noted(), base_url=BASE) as http:
            client = ApiClient(http, key=DEMO_KEY, settings=ClientSettings(windows=UNLIMITED))
            return await crawl(client, settings=CrawlSettings(page_size=10), cache=cache)

    cache_dir = tmp_path / "cache"
    try:
        first_cache = CrawlCache.open(cache_dir)
        first = anyio.run(crawl_once, first_cache)
        first_cache.save()
        events.clear()
        cache = ReadingsNoted.open(cache_dir)
        cache.events = events
        again = anyio.run(crawl_once, cache)
    finally:
        store.close()

    assert again == first
    list_pages = [at for at, event in enumerate(events) if event == "ask /products"]
    packs = [at for at, event in enumerate(events) if event.startswith("pack ")]
    assert len(list_pages) >= 4 and len(packs) >= 30
    # The products of the first pages were replayed before the walk asked for its last page.
    assert sum(at < list_pages[-1] for at in packs) >= 10
    assert not any(event.startswith("ask /products/") for event in events)  # nothing changed
