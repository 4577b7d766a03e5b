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
from generator.crawl_fetch import Fetcher, gather_limited
from generator.crawl_observer import CrawlObserver, SkipLog
from generator.crawl_related import cards_by_category, related_products
from generator.model import PackedProduct, ProductCard, Variant
from generator.product_pack import pack

#: Products replayed between two turns of the other crawl jobs.
REPLAY_SLICE = 250
#: The name of the pack kept with a product's detail answer in the crawl cache.
PACK_READING = "packed product"


async def product_details(
    fetcher: Fetcher,
    cards: Sequence[ProductCard],
    extra_ids: Sequence[int],
    versions: Mapping[int, str],
    *,
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[PackedProduct]:
    listed = [card.id for card in cards if card.url is not None]
    ids = list(dict.fromkeys([*listed, *extra_ids]))
    observer.phase_started("products", len(ids))
    # A listed product's detail and variants are asked again only when its card moved
    # (``versions``: the version of each card, see ``crawl_versions.card_versions``).

    async def detail(product_id: int) -> PackedProduct | None:
        version = versions.get(product_id)
        path = f"/products/{product_id}"
        product = await fetcher.optional(
            path, normalize.product, version=version, keep_reading=False
        )
        if product is None:
            skips.add(f"product {product_id}", "GET /products/{id} answered 404")
            observer.item_done("products")
            return None
        walked = await fetcher.optional_walk(
            f"{path}/variants", normalize.variant, version=version, keep_reading=False
        )
        variants: tuple[Variant, ...] = ()
        keys: tuple[str, ...] = ()
        if walked is None:
            _absent_variants(skips, product_id)
        else:
            variants, keys = tuple(walked[0]), walked[1]
        packed = pack(dataclasses.replace(product, variants=variants))
        # Kept with the detail's answer: the next build replays the pack as it is, keeping the
        # variants' answers (``keys``; none when the API had no variants list) alongside.
        fetcher.add_reading(path, PACK_READING, (packed, keys))
        observer.item_done("products")
        return packed

    # Details the cache replays as they are need no task each: the bulk of a rebuild. The replay
    # is plain CPU work; it gives way now and then, so that the crawl's other jobs send their
    # requests and read their answers meanwhile instead of waiting for all of it.
    replayed: dict[int, PackedProduct] = {}
    for position, product_id in enumerate(ids):
        if position % REPLAY_SLICE == 0:
            await anyio.lowlevel.checkpoint()
        version = versions.get(product_id)
        kept = _replayed_pack(fetcher, f"/products/{product_id}", version)
        if kept is None:
            continue
        packed, keys = kept
        if not keys:
            _absent_variants(skips, product_id)
        replayed[product_id] = packed
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
    return [
        dataclasses.replace(packed, related=related_products(packed.head, by_category, count))
        for packed in found
        if packed is not None
    ]


def _replayed_pack(
    fetcher: Fetcher, path: str, version: str | None
) -> tuple[PackedProduct, tuple[str, ...]] | None:
    """The pack the last crawl kept with the detail of ``path``, when the detail and every page
    of its variants can be replayed as they are."""
    found = fetcher.replayed_reading(path, PACK_READING, version=version)
    if not isinstance(found, tuple) or len(found) != 2:
        return None
    packed, keys = found
    if not isinstance(packed, PackedProduct) or not isinstance(keys, tuple):
        return None
    if not all(fetcher.keep_replayable(key, version) for key in keys):
        return None
    return packed, keys


def _absent_variants(skips: SkipLog, product_id: int) -> None:
    skips.add(f"variants of product {product_id}", "GET /products/{id}/variants: 404")
