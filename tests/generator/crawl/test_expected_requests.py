"""A first crawl estimates its requests from the sitemap's counts, close to what it then asks."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from companion.app import create_app
from companion.db.engine import make_engine
from companion.seed.demo import seed_demo
from companion.settings import CompanionSettings
from generator.client import ClientSettings, RateWindow
from generator.client.api import ApiClient
from generator.crawl.sitemap import expected_requests
from generator.model import Skip
from generator.replay.cache import CrawlCache
from generator.replay.crawl import crawl

pytestmark = pytest.mark.anyio

#: The companion's limits are lifted; so are the client's, or it would pace for real.
UNPACED = ClientSettings(windows=(RateWindow(10**7, 60.0),))


class Expected:
    def __init__(self) -> None:
        self.total: int | None = None

    def phase_started(self, phase: str, total: int | None) -> None:
        return None

    def item_done(self, phase: str) -> None:
        return None

    def skipped(self, skip: Skip) -> None:
        return None

    def requests_expected(self, total: int) -> None:
        self.total = total


@pytest.mark.parametrize("products", [40, pytest.param(300, marks=pytest.mark.slow)])
async def test_the_estimate_is_within_a_tenth_of_the_requests(
    tmp_path: Path, products: int
) -> None:
    database = str(tmp_path / "db.sqlite3")
    app = create_app(
        CompanionSettings(database=database, rate_per_minute=10**7, rate_per_hour=10**8)
    )
    engine = make_engine(database)
    try:
        key = seed_demo(engine, products=products).key
    finally:
        engine.dispose()
    expected = Expected()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://shop/public/v1") as http:
        client = ApiClient(http, key=key, settings=UNPACED)
        await crawl(client, observer=expected, cache=CrawlCache.open(tmp_path / "cache"))
        assert expected.total is not None
        assert abs(expected.total - client.stats.requests) <= client.stats.requests / 10

        # A crawl with answers to reuse asks far fewer: it makes no promise.
        again = Expected()
        cache = CrawlCache.empty(tmp_path / "cache")
        await crawl(ApiClient(http, key=key, settings=UNPACED), observer=again, cache=cache)
        cache.save()
        reused = Expected()
        await crawl(
            ApiClient(http, key=key, settings=UNPACED),
            observer=reused,
            cache=CrawlCache.open(tmp_path / "cache"),
        )
        assert again.total is not None and reused.total is None


def test_no_counts_no_estimate() -> None:
    assert expected_requests(None, 100) is None
    assert expected_requests((("products", None),), 100) is None
    # 13 fixed, the products' two list walks (sitemap and /products) and two requests each.
    assert expected_requests((("products", 250),), 100) == 13 + 3 * 2 + 500
