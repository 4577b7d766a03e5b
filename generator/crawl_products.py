"""Product pages: the detail and variants of every product with a url (two requests each).

A product with a null url gets no page and no request; it still shows, as plain text, in the
lists that carry its card. A product reached only through a custom path is fetched as well. A
detail answering 404 (deleted since the list was read) is skipped, not fatal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import anyio.lowlevel

from generator import normalize
from generator.crawl_fetch import MISSING, Fetcher, gather_limited
from generator.crawl_observer import CrawlObserver, SkipLog
from generator.crawl_related import cards_by_category, related_products
from generator.model import Product, ProductCard, Variant

#: Products replayed between two turns of the other crawl jobs.
REPLAY_SLICE = 250


async def product_details(
    fetcher: Fetcher,
    cards: Sequence[ProductCard],
    extra_ids: Sequence[int],
    versions: Mapping[int, str],
    *,
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[Product]:
    listed = [card.id for card in cards if card.url is not None]
    ids = list(dict.fromkeys([*listed, *extra_ids]))
    observer.phase_started("products", len(ids))
    # A listed product's detail and variants are asked again only when its card moved
    # (``versions``: the version of each card, see ``crawl_versions.card_versions``).

    async def detail(product_id: int) -> tuple[Product, tuple[Variant, ...]] | None:
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
        return product, tuple(variants or ())

    # Details the cache replays as they are need no task each: the bulk of a rebuild. The replay
    # is plain CPU work; it gives way now and then, so that the crawl's other jobs send their
    # requests and read their answers meanwhile instead of waiting for all of it.
    replayed: dict[int, tuple[Product, tuple[Variant, ...]]] = {}
    for position, product_id in enumerate(ids):
        if position % REPLAY_SLICE == 0:
            await anyio.lowlevel.checkpoint()
        version = versions.get(product_id)
        cached = fetcher.replayed(f"/products/{product_id}", normalize.product, version=version)
        if cached is MISSING:
            continue
        variants = fetcher.replayed_all(
            f"/products/{product_id}/variants", normalize.variant, version=version
        )
        if variants is MISSING:
            continue
        replayed[product_id] = (cached, tuple(variants))
        observer.item_done("products")
    asked = [product_id for product_id in ids if product_id not in replayed]
    fetched = dict(
        zip(
            asked,
            await gather_limited(asked, detail, limit=fetcher.settings.concurrency),
            strict=True,
        )
    )
    found = [replayed.get(product_id) or fetched[product_id] for product_id in ids]
    count = fetcher.settings.related_products
    by_category = cards_by_category(cards)
    # One copy per product, variants and related products at once.
    return [
        dataclasses.replace(
            product, variants=variants, related=related_products(product, by_category, count)
        )
        for product, variants in (entry for entry in found if entry is not None)
    ]
