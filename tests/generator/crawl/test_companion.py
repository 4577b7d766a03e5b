"""The crawl against the real companion API (ASGITransport, SQLite file, demo seed).

The companion's clock and the crawl's timer are one virtual clock, so its real rate limiter
(the spec's 600 per minute and 20,000 per hour) applies while no test sleeps for real.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx
import pytest

from companion.app import create_app
from companion.db.engine import make_engine
from companion.seed.collection_rows import COLLECTION_COUNT
from companion.seed.demo import seed_demo
from companion.seed.paths import ABOUT_PATH, PRODUCT_ALIAS_PATH
from companion.settings import CompanionSettings
from generator.client import ManualTimer
from generator.client.api import ApiClient
from generator.crawl.normalize import sitemap_path
from generator.crawl.routes import path_key
from generator.model import Catalog
from generator.replay.crawl import crawl

pytestmark = pytest.mark.anyio

START = datetime(2026, 11, 20, 3, 0, 0)


class TimerClock:
    """The companion's clock, reading the crawl's virtual timer."""

    def __init__(self, timer: ManualTimer, start: datetime) -> None:
        self._timer = timer
        self._start = start

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self._timer.now())


@pytest.fixture(scope="module")
async def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Catalog, ApiClient, list[str]]:
    """One crawl of the demo store, shared by the tests of this module (seeding takes seconds)."""
    database = str(tmp_path_factory.mktemp("companion") / "db.sqlite3")
    timer = ManualTimer()
    app = create_app(CompanionSettings(database=database), clock=TimerClock(timer, START))
    engine = make_engine(database)
    try:
        summary = seed_demo(engine, products=60, now=START, collections=COLLECTION_COUNT)
    finally:
        engine.dispose()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://demo/public/v1") as http:
        client = ApiClient(http, key=summary.key, timer=timer)
        catalog = await crawl(client)
        sitemap: list[str] = []
        for section in ("products", "categories", "collections", "articles", "pages"):
            async for item in client.items(f"/sitemap/{section}", {"limit": 100}):
                path = sitemap_path(item)
                assert path is not None
                sitemap.append(path)
    return catalog, client, sitemap


def rendered_paths(catalog: Catalog) -> set[str]:
    paths = [
        *(p.card.url for p in catalog.products if p.card.url),
        *(c.category.url for c in catalog.categories if c.category.url),
        *(c.path for c in catalog.collections),
        *(a.summary.path for a in catalog.articles),
        *(p.url for p in catalog.pages if p.url),
        *(path for path, _, _ in catalog.custom_paths),
    ]
    return {path_key(path) for path in paths}


async def test_every_sitemap_path_of_the_demo_store_is_crawled(
    demo: tuple[Catalog, ApiClient, list[str]],
) -> None:
    catalog, _, sitemap = demo
    assert sitemap
    missing = {path_key(path) for path in sitemap} - rendered_paths(catalog)
    assert missing == set()
    assert catalog.skipped == () and catalog.dead_paths == frozenset()


async def test_demo_custom_paths_and_collections_past_the_first_200(
    demo: tuple[Catalog, ApiClient, list[str]],
) -> None:
    catalog, client, _ = demo
    kinds = {(path, kind) for path, kind, _ in catalog.custom_paths}
    assert {(ABOUT_PATH, "cms_page"), (PRODUCT_ALIAS_PATH, "product")} <= kinds
    # The demo has more than 200 collections: those past the list are found by slug.
    assert client.stats.by_group["/collections/by-slug/{slug}"] > 0
    assert any(p.card.price is None for p in catalog.products) or any(
        card.price is None for page in catalog.categories for card in page.products
    )


async def test_crawl_stays_inside_the_real_rate_limit_with_few_requests_per_page(
    demo: tuple[Catalog, ApiClient, list[str]],
) -> None:
    catalog, client, _ = demo
    stats = client.stats
    assert stats.rate_limited == 0
    assert stats.requests > 600 and stats.limiter_wait_seconds > 0  # it had to pace
    pages = (
        len(catalog.products)
        + len(catalog.categories)
        + len(catalog.collections)
        + len(catalog.articles)
        + len(catalog.pages)
    )
    assert stats.requests / pages <= 2.2
