"""The listings' facet data: a file per category and collection page, holding its products'
records in list order, in the shape the filters (and the search index) read."""

from __future__ import annotations

import json

import pytest

from generator.plan.facet_data import facet_data_path, facet_files
from generator.plan.site_plan import plan_site
from tests.support.crawl_helpers import crawl_fake
from tests.support.fakeapi import FakeApi, Quirks, small_store

pytestmark = pytest.mark.anyio

KEYS = {"id", "n", "u", "i", "p", "c", "b", "o", "s", "t", "k", "l"}


async def test_each_listing_page_has_its_products_records_in_list_order() -> None:
    catalog, _ = await crawl_fake(FakeApi(small_store(), Quirks(max_limit=5)))
    plan = plan_site(catalog, "https://shop.test")
    files = {name: json.loads(content) for name, content in facet_files(catalog, plan)}
    wanted = {facet_data_path("category", c.category.id) for c in catalog.categories}
    wanted |= {facet_data_path("collection", c.collection.id) for c in catalog.collections}
    assert set(files) == {path.lstrip("/") for path in wanted}

    detailed = {p.card.id for p in catalog.products}
    cards = {card.id: card for listing in catalog.categories for card in listing.products}
    parents = {1: None, 2: None, 3: 1, 4: 3, 5: 2}
    pages: dict[int, str] = {}  # a product's own page (before any custom path to it)
    for page in plan.pages:
        if page.kind == "product":
            pages.setdefault(page.subject.card.id, page.path)  # type: ignore[union-attr]
    for listing in catalog.categories:
        data = files[facet_data_path("category", listing.category.id).lstrip("/")]
        assert data["f"] is None  # the fake offers no /filters
        assert [r["id"] for r in data["r"]] == [card.id for card in listing.products]
        for record in data["r"]:
            assert set(record) == KEYS
            card = cards[record["id"]]
            assert record["p"] == card.effective_price
            assert record["c"] == (card.price if card.price is not None else None)
            assert record["u"] == pages.get(card.id)
            if card.id in detailed:
                assert record["b"] == "Sài Gòn"
                assert record["o"] == {"Size": ["1", "2"]}
            else:  # listed without a page (a null url): the card is all there is
                assert (record["b"], record["o"], record["u"]) == (None, {}, None)
            assert record["s"] is card.in_stock
            ancestors = []
            current = card.category_id
            while current is not None:
                ancestors.append(current)
                current = parents[current]
            assert record["k"] == ancestors
            assert listing.category.id in record["k"]
    for listing in catalog.collections:
        data = files[facet_data_path("collection", listing.collection.id).lstrip("/")]
        assert all(listing.collection.id in record["l"] for record in data["r"])
    unpriced = next(r for data in files.values() for r in data["r"] if cards[r["id"]].price is None)
    assert unpriced["p"] is None and unpriced["c"] is None
