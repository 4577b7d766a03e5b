"""Facet data: one JSON file per category and collection page, what its filters and sorts read.

    facet_data_path("category", 12) -> "/_data/category-12.json"
    facet_files(catalog, plan) -> [(file under the output, its bytes)]

A file holds the listing's product records in list order (``product_records``) and the
category's /filters configuration: {"f": {"brands": [names], "attributes": [{"name",
"values"}], "price_ranges": [[min, max]]} or null, "r": [records]}. The page's filter island
fetches it when the shopper first uses a filter or a sort (or on load when the url carries
them), never with the page: at 5,000 products it is some 1 MB, about 120 kB gzipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Literal

from generator.model import (
    Catalog,
    CategoryPage,
    CollectionPage,
    FilterConfig,
    PackedProduct,
    Product,
    ProductCard,
)
from generator.plan.product_records import ProductRecords, Record
from generator.plan.site_plan import SitePlan

FACET_FOLDER = "_data"
Listing = Literal["category", "collection"]


def facet_data_path(kind: Listing, ident: int) -> str:
    """The site path of a listing's facet data (the page's island reads it from there)."""
    return f"/{FACET_FOLDER}/{kind}-{int(ident)}.json"


def facet_files(catalog: Catalog, plan: SitePlan) -> list[tuple[str, bytes]]:
    """The facet data of every category and collection the plan has a page of."""
    shown: set[tuple[str, int]] = set()
    paths: dict[int, str] = {}
    for page in plan.pages:
        subject = page.subject
        if page.kind == "product" and isinstance(subject, PackedProduct | Product):
            paths.setdefault(subject.card.id, page.path)
        elif isinstance(subject, CategoryPage):
            shown.add(("category", subject.category.id))
        elif isinstance(subject, CollectionPage):
            shown.add(("collection", subject.collection.id))
    if not shown:
        return []
    return list(_files(catalog, shown, _Texts(ProductRecords(catalog, paths))))


class _Texts:
    """Each product's record as JSON text, written once however many listings show it."""

    def __init__(self, records: ProductRecords) -> None:
        self._records = records
        self._texts: dict[int, str] = {}

    def of(self, cards: Sequence[ProductCard]) -> str:
        texts = self._texts
        for card in cards:
            if card.id not in texts:
                texts[card.id] = _json(self._records.of(card))
        return ",".join(texts[i] for i in dict.fromkeys(card.id for card in cards))


def _files(
    catalog: Catalog, shown: set[tuple[str, int]], texts: _Texts
) -> Iterator[tuple[str, bytes]]:
    for category in catalog.categories:
        if ("category", category.category.id) in shown:
            yield _file(
                "category", category.category.id, category.filters, category.products, texts
            )
    for collection in catalog.collections:
        if ("collection", collection.collection.id) in shown:
            yield _file("collection", collection.collection.id, None, collection.products, texts)


def _file(
    kind: Listing,
    ident: int,
    config: FilterConfig | None,
    cards: Sequence[ProductCard],
    texts: _Texts,
) -> tuple[str, bytes]:
    text = f'{{"f":{_json(_config(config))},"r":[{texts.of(cards)}]}}'
    return facet_data_path(kind, ident).lstrip("/"), text.encode("utf-8")


def _config(config: FilterConfig | None) -> dict[str, object] | None:
    if config is None:
        return None
    return {
        "brands": list(config.brands),
        "attributes": [{"name": n, "values": list(v)} for n, v in config.attributes],
        "price_ranges": [[low, high] for low, high in config.price_ranges],
    }


def _json(value: Record | dict[str, object] | None) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
