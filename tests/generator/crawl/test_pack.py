"""Packed products: what the crawl holds between reading a product and rendering its page."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from generator.client import ApiClient
from generator.crawl.cache import CrawlCache
from generator.crawl.cache_values import dump_records
from generator.crawl.catalog import crawl
from generator.crawl.pack import head_of, pack, unpack
from generator.model import Catalog, PackedProduct, Product
from generator.plan.site_plan import plan_site
from tests.support.fakeapi import KEY, FakeApi, Quirks, small_store
from tests.support.fixture_site import rendered_pages
from tests.support.fixture_store import SITE_URL, small_catalog


def _products() -> list[Product]:
    return [p for p in small_catalog().products if isinstance(p, Product)]


def test_a_packed_product_unpacks_to_the_same_product_with_its_related_products() -> None:
    products = _products()
    assert products and any(p.variants for p in products) and any(p.related for p in products)
    for product in products:
        packed = pack(product)
        assert unpack(packed) == product
        assert packed.related == product.related
        assert packed.card == product.card and packed.category_ids == product.category_ids


def test_the_head_is_what_the_plan_reads_of_the_product() -> None:
    for product in _products():
        head = pack(product).head
        assert head == head_of(product)
        assert len(head.summary) <= 160


def test_a_store_of_packed_products_plans_and_renders_as_the_plain_one() -> None:
    catalog = small_catalog()
    packed = dataclasses.replace(
        catalog, products=tuple(pack(p) if isinstance(p, Product) else p for p in catalog.products)
    )
    plain_plan = plan_site(catalog, SITE_URL)
    packed_plan = plan_site(packed, SITE_URL)
    assert [p.path for p in packed_plan.pages] == [p.path for p in plain_plan.pages]
    for plain_page, packed_page in zip(plain_plan.pages, packed_plan.pages, strict=True):
        if isinstance(packed_page.subject, PackedProduct):
            # Everything but the subject's form is the same, and the subject unpacks to it.
            assert unpack(packed_page.subject) == plain_page.subject
            packed_page = dataclasses.replace(packed_page, subject=plain_page.subject)
        assert packed_page == plain_page
    assert any(isinstance(p.subject, PackedProduct) for p in packed_plan.pages)
    plain_html = {path: page.html for path, page in rendered_pages(plain_plan).items()}
    packed_html = {path: page.html for path, page in rendered_pages(packed_plan).items()}
    assert packed_html == plain_html


async def _crawl_with_cache(fake: FakeApi, cache_dir: Path) -> Catalog:
    cache = CrawlCache.open(cache_dir)
    async with fake.client() as http:
        catalog = await crawl(ApiClient(http, key=KEY, timer=fake.timer), cache=cache)
    cache.save()
    return catalog


def _details_asked(fake: FakeApi) -> int:
    details = fake.requests_to("/products/{id}")
    return len(details) + len(fake.requests_to("/products/{id}/variants"))


@pytest.mark.anyio
async def test_a_rebuild_replays_the_packs_with_every_page_of_their_variants(
    tmp_path: Path,
) -> None:
    # One variant a page: every product's variants take a cursor walk of several pages.
    first_api = FakeApi(small_store(), Quirks(max_limit=1))
    first = await _crawl_with_cache(first_api, tmp_path)
    assert _details_asked(first_api) > len(first.products)
    for _ in range(2):  # the second rebuild finds what the first kept
        again_api = FakeApi(small_store(), Quirks(max_limit=1))
        again = await _crawl_with_cache(again_api, tmp_path)
        assert _details_asked(again_api) == 0
        assert [unpack(p) for p in again.products] == [unpack(p) for p in first.products]
        assert any(len(unpack(p).variants) > 1 for p in again.products)


@pytest.mark.anyio
async def test_a_product_without_a_variants_list_is_replayed_with_its_skip(tmp_path: Path) -> None:
    quirks = Quirks(missing={"/products/{id}/variants"})
    first = await _crawl_with_cache(FakeApi(small_store(), quirks), tmp_path)
    again_api = FakeApi(small_store(), quirks)
    again = await _crawl_with_cache(again_api, tmp_path)
    assert _details_asked(again_api) == 0
    assert again.products == first.products
    skipped = [s for s in again.skipped if s.what.startswith("variants of product")]
    assert skipped and skipped == [s for s in first.skipped if s.what.startswith("variants of")]


def test_a_pack_is_compressed() -> None:
    for product in _products():
        pickled = dump_records(dataclasses.replace(product, related=()))
        assert len(pack(product).blob) < len(pickled)
