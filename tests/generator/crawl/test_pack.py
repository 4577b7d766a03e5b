"""Packed products: what the crawl holds between reading a product and rendering its page."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from generator.client.api import ApiClient
from generator.crawl import pack_facts
from generator.crawl.pack import facts, pack, unpack
from generator.crawl.pickled import card_digest, dump_records
from generator.model import Catalog, PackedProduct, Product
from generator.plain_text import html_to_text, shorten
from generator.replay.cache import CrawlCache
from generator.replay.crawl import crawl
from tests.support.fakeapi import KEY, FakeApi, Quirks, small_store
from tests.support.fixture_store import small_catalog


def _products() -> list[Product]:
    return [unpack(p) for p in small_catalog().products]


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
        assert (head.card, head.category_ids) == (product.card, product.category_ids)
        assert (head.meta_title, head.meta_description) == (
            product.meta_title,
            product.meta_description,
        )
        assert len(head.summary) <= 160
        assert head.summary == shorten(html_to_text(product.description_html), 160)
        assert head.image_url == (product.images[0].url if product.images else head.image_url)
    assert any(pack(product).head.summary for product in _products())


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


def _kept_digests_hold(products: list[PackedProduct]) -> None:
    for packed in products:
        assert pack_facts.known(packed.blob) is not None  # kept, not worked out now
        assert facts(packed).digest == hashlib.sha1(packed.blob).digest()
        assert facts(packed).card_digest == card_digest(packed.card)


def test_a_pack_keeps_the_digests_of_its_blob_and_its_card() -> None:
    products = [pack(product) for product in _products()]
    _kept_digests_hold(products)
    assert len({facts(p).digest for p in products}) == len(products)
    moved = dataclasses.replace(_products()[0], description_html="<p>khác</p>")
    assert facts(pack(moved)).digest != facts(products[0]).digest
    card = dataclasses.replace(moved.card, price=(moved.card.price or 0) + 1)
    repriced = pack(dataclasses.replace(moved, card=card))
    assert facts(repriced).card_digest != facts(pack(moved)).card_digest


@pytest.mark.anyio
async def test_a_replayed_pack_keeps_digests_that_are_its_own(tmp_path: Path) -> None:
    # The fingerprints take these digests as they are, never digesting the blob or the card
    # again: a pack replayed from the crawl cache must bring the digests of what it holds.
    first = await _crawl_with_cache(FakeApi(small_store()), tmp_path)
    pack_facts.forget()  # what the replay brings back, not what the first crawl kept
    again_api = FakeApi(small_store())
    again = await _crawl_with_cache(again_api, tmp_path)
    assert _details_asked(again_api) == 0
    _kept_digests_hold(list(first.products) + list(again.products))
