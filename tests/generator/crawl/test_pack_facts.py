"""What later stages derive from a pack (its digests, its page's loads, its traits): kept beside
the model, never in it, and always those of what the pack holds."""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from pathlib import Path

import pytest

from generator.client.api import ApiClient
from generator.crawl import pack_facts
from generator.crawl.pack import Traits, facts, pack, traits, unpack
from generator.crawl.pickled import card_digest, dump_records, load_records
from generator.loads import html_loads, image_loads
from generator.model import Catalog, PackedProduct, Product, ProductHead
from generator.replay.cache import CrawlCache
from generator.replay.crawl import crawl
from tests.support.fakeapi import KEY, FakeApi, small_store
from tests.support.fixture_store import small_catalog


def _products() -> list[Product]:
    return [unpack(p) for p in small_catalog().products]


def _derived(packed: PackedProduct) -> tuple[bytes, bytes, tuple[tuple[str, str], ...]]:
    """Worked out from scratch: the blob's and the card's digests, the loads of its page."""
    product = unpack(packed)
    urls = [image.url for image in product.images] + [product.card.image_url]
    urls += [variant.image_url for variant in product.variants]
    loads = tuple(sorted(image_loads(urls) | html_loads(product.description_html)))
    return hashlib.sha1(packed.blob).digest(), card_digest(product.card), loads


def _traits(packed: PackedProduct) -> Traits:
    """Worked out from scratch: what the filters and the search index read of it."""
    product = unpack(packed)
    options: dict[str, list[str]] = {}
    for variant in product.variants:
        for name, value in variant.options:
            if value not in options.setdefault(name, []):
                options[name].append(value)
    skus = [sku for sku in (product.sku, *(v.sku for v in product.variants)) if sku]
    return Traits(
        product.brand.name if product.brand else None,
        tuple((name, tuple(values)) for name, values in options.items()),
        product.published_at.isoformat() if product.published_at else None,
        tuple(dict.fromkeys(skus)),
    )


def _facts_hold(packs: list[PackedProduct]) -> None:
    for packed in packs:
        found = facts(packed)
        assert (found.digest, found.card_digest, found.loads) == _derived(packed)
        assert traits(packed) == _traits(packed)


def test_the_model_holds_no_value_a_later_stage_derives() -> None:
    names = {field.name for field in dataclasses.fields(ProductHead)}
    assert not names & {"digest", "card_digest", "loads", "traits"}


def test_a_packs_facts_are_those_of_what_it_holds_whether_known_or_worked_out() -> None:
    packs = [pack(product) for product in _products()]
    assert all(pack_facts.known(p.blob) is not None for p in packs)  # worked out when packed
    assert any(_derived(p)[2] for p in packs)  # some page loads something
    assert any(_traits(p).options and _traits(p).skus and _traits(p).brand for p in packs)
    _facts_hold(packs)
    moved = dataclasses.replace(_products()[0], description_html='<img src="https://x.test/a">')
    assert pack(moved).blob != packs[0].blob
    _facts_hold([pack(moved)])
    pack_facts.forget()
    assert all(pack_facts.known(p.blob) is None for p in packs)
    _facts_hold(packs)  # a miss: worked out from the pack


def test_a_pack_read_back_brings_its_facts() -> None:
    packs = [pack(product) for product in _products()]
    pickled = dump_records(packs)
    pack_facts.forget()
    read = load_records(pickled)
    assert isinstance(read, list) and read == packs
    assert all(pack_facts.known(p.blob) is not None for p in read)
    _facts_hold(read)


@pytest.mark.anyio
async def test_a_replayed_pack_brings_the_facts_of_what_it_holds(tmp_path: Path) -> None:
    async def crawled() -> tuple[Catalog, FakeApi]:
        fake = FakeApi(small_store())
        cache = CrawlCache.open(tmp_path)
        async with fake.client() as http:
            catalog = await crawl(ApiClient(http, key=KEY, timer=fake.timer), cache=cache)
        cache.save()
        return catalog, fake

    first, _ = await crawled()
    pack_facts.forget()
    again, fake = await crawled()
    assert not fake.requests_to("/products/{id}")  # replayed, not asked
    assert all(pack_facts.known(p.blob) is not None for p in again.products)
    _facts_hold(list(first.products) + list(again.products))


def test_facts_kept_again_for_an_equal_blob_let_go_of_the_first() -> None:
    # A full crawl reads its catalog back and lets the first go: the first's blobs must not
    # stay held as the keys of their facts.
    packed = pack(_products()[0])
    first = packed.blob
    held = sys.getrefcount(first)
    again = bytes(bytearray(first))  # equal, another object
    assert again is not first
    pack_facts.remember(again, facts(packed))
    assert sys.getrefcount(first) == held - 1
    assert pack_facts.known(first) is facts(packed)
