"""Every liberty the spec allows an implementation changes nothing in the crawled catalog."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from generator.crawl.pack import unpack
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import FakeApi, Quirks, small_store

pytestmark = pytest.mark.anyio


async def test_quirky_implementation_yields_the_same_catalog() -> None:
    plain, _ = await crawl_fake(FakeApi(small_store(), Quirks(max_limit=3)))
    quirks = Quirks(
        tricky_cursors=True,
        money_as_string=True,
        empty_string_urls=True,
        timestamp_style="offset",
        bare_sitemap_items=True,
        max_limit=3,
    )
    quirky_fake = FakeApi(small_store(), quirks)
    quirky, _ = await crawl_fake(quirky_fake)
    assert quirky == plain
    # The quirks were really exercised: pages were walked with tricky cursors, all accepted.
    cursors = [e.params["cursor"] for e in quirky_fake.log if "cursor" in e.params]
    assert cursors and all("|" in c and ":" in c and " " in c and "+" in c for c in cursors)
    assert all(entry.status in (200, 404) for entry in quirky_fake.log)


async def test_timestamps_with_z_or_fractions_are_utc() -> None:
    with_z, _ = await crawl_fake(FakeApi(small_store(), Quirks(timestamp_style="z")))
    fraction, _ = await crawl_fake(FakeApi(small_store(), Quirks(timestamp_style="fraction")))
    expected = datetime(2026, 11, 20, 3, 4, 5, tzinfo=UTC)
    assert with_z.products[0].card.updated_at == expected
    assert fraction.products[0].card.updated_at == expected + timedelta(milliseconds=250)


async def test_missing_optional_fields_fall_back_to_defaults() -> None:
    catalog, _ = await crawl_fake(FakeApi(small_store(), Quirks(drop_optional=True)))
    product = unpack(catalog.products[0])
    assert (product.card.in_stock, product.card.updated_at, product.images) == (True, None, ())
    assert product.card.price is not None  # required-ish fields are still read
    assert catalog.site.store.currency_code == "VND"
    assert catalog.site.banners and all(b.link_url is None for b in catalog.site.banners)
    assert all(a.summary.categories == () for a in catalog.articles)


async def test_null_price_stays_none_and_null_url_product_gets_no_detail_request() -> None:
    fake = FakeApi(small_store(), Quirks(money_as_string=True))
    catalog, _ = await crawl_fake(fake)
    by_id = {product.card.id: product for product in catalog.products}
    assert by_id[3].card.price is None and by_id[1].card.price == 101_000
    assert 2 not in by_id
    assert not fake.requests_to("/products/2") and not fake.requests_to("/products/2/variants")
    listed = [card for page in catalog.categories for card in page.products]
    assert any(card.id == 2 and card.url is None for card in listed)
