"""A crawl survives what an implementation may do: absent blocks, 404 details, 5xx, 429."""

from __future__ import annotations

import httpx
import pytest

from generator.client import ClientSettings, RateWindow
from generator.crawl.settings import CrawlSettings
from generator.errors import ApiPayloadError, ApiStatusError, RateLimited
from generator.model import Catalog, CategoryPage
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import FakeApi, Quirks, small_store

pytestmark = pytest.mark.anyio


async def test_absent_optional_blocks_are_skipped_not_fatal() -> None:
    missing = {"/flash-sales", "/menus", "/promotions", "/sitemap", "/article-tags"}
    catalog, _ = await crawl_fake(FakeApi(small_store(), Quirks(missing=missing)))
    assert catalog.flash_sales == () and catalog.site.menus == () and catalog.tags == ()
    skipped = {skip.what for skip in catalog.skipped}
    assert {"flash sales (/flash-sales)", "menus (/menus)", "sitemap (/sitemap)"} <= skipped
    assert len(catalog.products) == 11  # the lists still explain every product


async def test_without_a_category_tree_the_levels_are_walked_from_the_top() -> None:
    plain, _ = await crawl_fake(FakeApi(small_store()))
    no_tree, _ = await crawl_fake(FakeApi(small_store(), Quirks(missing={"/categories/tree"})))
    assert no_tree.site.category_tree == plain.site.category_tree

    def by_id(catalog: Catalog) -> list[CategoryPage]:
        return sorted(catalog.categories, key=lambda page: page.category.id)

    assert by_id(no_tree) == by_id(plain)


async def test_a_detail_that_answers_404_is_skipped() -> None:
    fake = FakeApi(small_store(), Quirks(missing={"/products/7", "/articles/by-slug/bai-2"}))
    catalog, _ = await crawl_fake(fake)
    assert 7 not in {p.card.id for p in catalog.products}
    assert 2 not in {a.summary.id for a in catalog.articles}
    skipped = {(skip.what, skip.reason) for skip in catalog.skipped}
    assert ("product 7", "GET /products/{id} answered 404") in skipped
    assert ("article 'bai-2'", "GET /articles/by-slug/bai-2 does not find it") in skipped


async def test_a_500_then_success_is_retried_transparently() -> None:
    fake = FakeApi(small_store(), Quirks(failures={"/products/4": 2, "/store": 1}))
    catalog, client = await crawl_fake(fake)
    assert 4 in {p.card.id for p in catalog.products}
    assert client.stats.retries == 3


async def test_a_500_forever_fails_the_crawl_naming_the_endpoint() -> None:
    fake = FakeApi(small_store(), Quirks(failures={"/products/4": 99}))
    with pytest.raises(ApiStatusError) as caught:
        await crawl_fake(fake)
    assert str(caught.value).startswith("GET /products/4: HTTP 500")
    assert "gave up after 5 attempts" in str(caught.value)
    assert len(fake.requests_to("/products/4")) == 5


async def test_a_429_is_waited_out_and_nothing_is_sent_inside_the_window() -> None:
    fake = FakeApi(small_store(), Quirks(rate_limit_at={5: 30.0, 20: 12.0}))
    catalog, client = await crawl_fake(fake)
    assert len(catalog.products) == 11
    assert client.stats.rate_limited == 2
    assert fake.sent_inside_block == 0
    first_429 = next(i for i, e in enumerate(fake.log) if e.status == 429)
    assert all(e.at >= fake.log[first_429].at + 30.0 for e in fake.log[first_429 + 1 :])
    assert client.stats.retry_after_wait_seconds >= 42.0


async def test_retry_after_in_the_body_only_is_honoured() -> None:
    quirks = Quirks(rate_limit_at={3: 9.0}, retry_after_in_body=True)
    fake = FakeApi(small_store(), quirks)
    await crawl_fake(fake)
    assert fake.sent_inside_block == 0
    assert fake.log[3].at >= fake.log[2].at + 9.0


async def test_endless_429s_give_up_after_the_allowed_waits() -> None:
    fake = FakeApi(small_store(), Quirks(rate_limit_at={n: 5.0 for n in range(1, 50)}))
    with pytest.raises(RateLimited):
        await crawl_fake(fake, settings=CrawlSettings(rate_limit_waits=2, concurrency=1))
    assert fake.sent_inside_block == 0


async def test_a_retry_after_longer_than_a_build_waits_fails_clearly() -> None:
    fake = FakeApi(small_store(), Quirks(rate_limit_at={1: 7200.0}))
    with pytest.raises(ApiStatusError, match=r"^GET /store: HTTP 429: rate limited for 7200 s"):
        await crawl_fake(fake)


async def test_server_rate_limit_is_never_hit_when_the_client_paces() -> None:
    windows = ((12, 6.0), (40, 60.0))
    fake = FakeApi(small_store(), Quirks(windows=windows))
    client_windows = tuple(RateWindow(limit, seconds) for limit, seconds in windows)
    catalog, client = await crawl_fake(fake, client_settings=ClientSettings(windows=client_windows))
    assert len(catalog.products) == 11
    assert client.stats.rate_limited == 0
    assert client.stats.limiter_wait_seconds > 0  # it really had to pace


async def test_a_record_missing_a_required_field_names_the_endpoint() -> None:
    data = small_store()
    del data.products[5]["name"]
    with pytest.raises(ApiPayloadError, match=r"^GET /products\?limit=100: product 6: required"):
        await crawl_fake(FakeApi(data))


async def test_garbage_money_in_a_detail_names_endpoint_and_field() -> None:
    data = small_store()
    data.variants[4][0]["price"] = "call us"
    with pytest.raises(
        ApiPayloadError, match=r"^GET /products/4/variants: variant 41: price: 'call us'"
    ):
        await crawl_fake(FakeApi(data))


async def test_a_detail_answering_html_is_a_payload_error() -> None:
    def html(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html></html>", headers={"Content-Type": "text/html"})

    fake = FakeApi(small_store(), Quirks(overrides={"/pages/2": html}))
    with pytest.raises(ApiPayloadError, match=r"^GET /pages/2: the answer is not JSON"):
        await crawl_fake(fake)


async def test_requests_per_product_page_stay_low() -> None:
    fake = FakeApi(small_store(products=200))
    catalog, client = await crawl_fake(fake)
    product_pages = len(catalog.products)
    detail_requests = len(fake.requests_to("/products/{id}")) + len(
        fake.requests_to("/products/{id}/variants")
    )
    assert detail_requests == 2 * product_pages
    assert client.stats.requests / product_pages <= 2.3
