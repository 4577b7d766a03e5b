"""Product records: what the browser filters, sorts and searches, one small dict a product.

    records = ProductRecords(catalog, page_paths)
    records.of(card)   # the record of a listed product

The shape is shared by the listings' facet data and the search index (keep it):
{"id": int, "n": name, "u": its page's path or null, "i": image url or null,
 "p": effective price in VND (int, null without a price), "c": the higher earlier price or
 null, "b": brand name or null, "o": {option name: [values]} of the variants on sale,
 "s": in stock, "t": published_at as ISO text or null, "k": [category ids, with their
 ancestors], "l": [collection ids]}.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from generator.crawl.pack import Traits, traits
from generator.model import Catalog, Category, ProductCard, ProductHead

Record = dict[str, Any]


class ProductRecords:
    """The records of one catalog's products, each worked out once when first asked for."""

    def __init__(self, catalog: Catalog, page_paths: Mapping[int, str]) -> None:
        """``page_paths``: each product's page path (a product without one is plain text)."""
        self._paths = page_paths
        self._parents = _parents(catalog.site.category_tree)
        self._collections: dict[int, list[int]] = {}
        for listing in catalog.collections:
            for card in listing.products:
                self._collections.setdefault(card.id, []).append(listing.collection.id)
        self._products = {packed.card.id: packed for packed in catalog.products}
        self._done: dict[int, Record] = {}

    def of(self, card: ProductCard) -> Record:
        """The record of a listed card: with its product's traits when the crawl has them
        (brand, options, published), else from the card alone."""
        found = self._done.get(card.id)
        if found is None:
            packed = self._products.get(card.id)
            found = self._done[card.id] = (
                self._record(packed.card, traits(packed), packed.head)
                if packed is not None
                else self._record(card, None, None)
            )
        return found

    def _record(self, card: ProductCard, sells: Traits | None, head: ProductHead | None) -> Record:
        now = card.effective_price if card.effective_price is not None else card.price
        was = max((p for p in (card.compare_at_price, card.price) if p is not None), default=None)
        categories = head.category_ids if head is not None else ()
        options = sells.options if sells is not None else ()
        return {
            "id": card.id,
            "n": card.name,
            "u": self._paths.get(card.id),
            "i": card.image_url or (head.image_url if head is not None else None),
            "p": now,
            "c": was if was is not None and now is not None and was > now else None,
            "b": sells.brand if sells is not None else None,
            "o": {name: list(values) for name, values in options},
            "s": card.in_stock,
            "t": sells.published if sells is not None else None,
            "k": _with_ancestors((card.category_id, *categories), self._parents),
            "l": self._collections.get(card.id, []),
        }


def _parents(tree: Iterable[Category]) -> dict[int, int]:
    found: dict[int, int] = {}

    def walk(categories: Iterable[Category]) -> None:
        for category in categories:
            for child in category.children:
                found.setdefault(child.id, category.id)
            walk(category.children)

    walk(tree)
    return found


def _with_ancestors(ids: Iterable[int | None], parents: Mapping[int, int]) -> list[int]:
    found: dict[int, None] = {}
    for start in ids:
        current = start
        while current is not None and current not in found:
            found[current] = None
            current = parents.get(current)
    return list(found)
