"""A first crawl continued after a stop asks what is still missing before walking any list
again, so that a second stop loses no list walk, and the crawl that finishes walks the lists
once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest

from companion.seed.demo import DEMO_KEY
from generator.client import ClientSettings
from generator.client.api import ApiClient
from generator.errors import CrawlStopped
from generator.model import Catalog
from generator.replay.cache import CrawlCache
from generator.replay.crawl import crawl
from tests.support.incremental_store import BASE, UNLIMITED, DemoStore, Recording

pytestmark = pytest.mark.anyio

#: Three pages of the product list (limit=100), as a large store has a hundred.
PRODUCTS = 250


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DemoStore]:
    found = DemoStore(tmp_path, products=PRODUCTS)
    yield found
    found.close()


@dataclass(frozen=True)
class Crawled:
    """A store the tests only read, and what one whole crawl of it asked and made."""

    store: DemoStore
    asked: list[str]
    catalog: Catalog


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    folder = tmp_path_factory.mktemp("continued")
    found = DemoStore(folder, products=PRODUCTS)
    asked, catalog = anyio.run(run, found, folder / "one-go", None)
    assert catalog is not None
    yield Crawled(found, asked, catalog)
    found.close()


async def run(
    store: DemoStore, cache_dir: Path, stop: int | None
) -> tuple[list[str], Catalog | None]:
    """One crawl with the cache of ``cache_dir``, stopped after ``stop`` requests (kept as a
    stopped build keeps them); what it asked, and its catalog when it finished."""
    recording = Recording(store)
    async with httpx.AsyncClient(transport=recording, base_url=BASE) as http:
        settings = ClientSettings(windows=UNLIMITED, max_requests=stop)
        client = ApiClient(http, key=DEMO_KEY, settings=settings)
        cache = CrawlCache.open(cache_dir)
        try:
            catalog = await crawl(client, cache=cache)
        except CrawlStopped:
            cache.keep_partial()
            return recording.asked, None
        cache.save()
        return recording.asked, catalog


def is_list(path: str) -> bool:
    return path.startswith(("/products?", "/sitemap", "/categories"))


async def test_the_second_run_asks_only_what_is_missing(crawled: Crawled, tmp_path: Path) -> None:
    store, one_go, whole = crawled.store, crawled.asked, crawled.catalog
    walk = [path for path in one_go if is_list(path)]
    # Stopped once the product list is walked and some details are asked...
    first_stop = one_go.index(next(p for p in one_go if p.startswith("/products/"))) + 60
    first, _ = await run(store, tmp_path / "cache", first_stop)
    # ... then again while the details still missing are asked.
    second, _ = await run(store, tmp_path / "cache", 100)
    assert second, "the continued crawl asked nothing"
    # It asks only what the first run had not received: no list, nothing of the context,
    # besides the answers in flight when the first run stopped.
    again = [path for path in second if path in first]
    assert len(again) <= ClientSettings().concurrency, again
    third, catalog = await run(store, tmp_path / "cache", None)
    assert catalog is not None

    asked = Counter([*first, *second, *third])
    repeated = {path: count for path, count in asked.items() if count > 1}
    # Only the lists and the store's context are asked again, by the run that finished, and
    # the details whose answers were in flight when a run stopped: no list walked by the second.
    details_again = [path for path in repeated if path.startswith("/products/")]
    assert len(details_again) <= 2 * ClientSettings().concurrency, repeated
    # At most one more walk of every list, context included, besides those answers.
    not_details = len(one_go) - len([p for p in one_go if p.startswith("/products/")])
    assert sum(count - 1 for count in repeated.values()) <= not_details + len(details_again)
    assert len(walk) > 3
    assert [p.card.id for p in catalog.products] == [p.card.id for p in whole.products]
    assert [p.blob for p in catalog.products] == [p.blob for p in whole.products]


async def test_a_product_changed_between_runs_is_asked_again(
    store: DemoStore, crawled: Crawled, tmp_path: Path
) -> None:
    """The kept list is only a hint: the walk at the end decides what the catalog holds."""
    one_go = crawled.asked  # a whole crawl of a store as this one was seeded
    first_stop = one_go.index(next(p for p in one_go if p.startswith("/products/"))) + 60
    first, _ = await run(store, tmp_path / "cache", first_stop)
    fetched = [p for p in first if p.startswith("/products/") and "/variants" not in p]
    changed = int(fetched[0].removeprefix("/products/"))
    store.set_price(changed, 999_000)
    _, catalog = await run(store, tmp_path / "cache", None)
    assert catalog is not None
    _, fresh = await run(store, tmp_path / "fresh", None)
    assert fresh is not None
    assert [p.blob for p in catalog.products] == [p.blob for p in fresh.products]


async def test_a_continued_crawl_counts_only_kept_answers_as_reused(
    crawled: Crawled, tmp_path: Path
) -> None:
    store = crawled.store
    first, _ = await run(store, tmp_path / "cache", 80)
    recording = Recording(store)
    async with httpx.AsyncClient(transport=recording, base_url=BASE) as http:
        client = ApiClient(http, key=DEMO_KEY, settings=ClientSettings(windows=UNLIMITED))
        cache = CrawlCache.open(tmp_path / "cache")
        await crawl(client, cache=cache)
    # What the summary calls answers from the crawl cache: those the stopped run kept, at
    # most, each once; not the answers this run asked for itself and then met again.
    assert 0 < cache.reused <= len(first)
