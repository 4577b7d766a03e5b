"""Product pages: the detail and variants of every product with a url (two requests each).

A product with a null url gets no page and no request; it still shows, as plain text, in the
lists that carry its card. A product reached only through a custom path is fetched as well. A
detail answering 404 (deleted since the list was read) is skipped, not fatal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from generator import normalize
from generator.crawl_fetch import Fetcher, entity_version, gather_limited
from generator.crawl_observer import CrawlObserver, SkipLog
from generator.crawl_related import cards_by_category, related_products
from generator.model import Product, ProductCard


async def product_details(
    fetcher: Fetcher,
    cards: Sequence[ProductCard],
    extra_ids: Sequence[int],
    *,
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[Product]:
    listed = [card.id for card in cards if card.url is not None]
    ids = list(dict.fromkeys([*listed, *extra_ids]))
    observer.phase_started("products", len(ids))
    # A listed product's detail and variants are asked again only when its card moved.
    versions = {card.id: entity_version(card) for card in cards}

    async def detail(product_id: int) -> Product | None:
        version = versions.get(product_id)
        product = await fetcher.optional(
            f"/products/{product_id}", normalize.product, version=version
        )
        if product is None:
            skips.add(f"product {product_id}", "GET /products/{id} answered 404")
            observer.item_done("products")
            return None
        variants = await fetcher.optional_all(
            f"/products/{product_id}/variants", normalize.variant, version=version
        )
        if variants is None:
            skips.add(f"variants of product {product_id}", "GET /products/{id}/variants: 404")
        observer.item_done("products")
        return dataclasses.replace(product, variants=tuple(variants or ()))

    found = await gather_limited(ids, detail, limit=fetcher.settings.concurrency)
    count = fetcher.settings.related_products
    by_category = cards_by_category(cards)
    return [
        dataclasses.replace(product, related=related_products(product, by_category, count))
        for product in found
        if product is not None
    ]
