"""Product pages: the detail and variants of every product with a url (two requests each).

A product with a null url gets no page and no request; it still shows, as plain text, in the
lists that carry its card. A product reached only through a custom path is fetched as well. A
detail answering 404 (deleted since the list was read) is skipped, not fatal.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Mapping, Sequence

import anyio
import anyio.lowlevel

from generator.crawl import normalize
from generator.crawl.ask import Api, absent_as_none, gather_limited
from generator.crawl.observer import CrawlObserver, SkipLog
from generator.crawl.pack import pack
from generator.crawl.related import RelatedProducts, cards_by_category
from generator.crawl.versions import ListedPaths, card_version
from generator.errors import StorefrontError
from generator.model import PackedProduct, ProductCard, Variant

#: Products whose packs are read from the crawl cache in one query.
REPLAY_BATCH = 25
#: Products replayed between two turns of the other crawl jobs (a fraction of a millisecond:
#: the list walk, waiting its turn to send its next request, would wait for the replay).
REPLAY_SLICE = 5
#: Products taken as replayed, or given their related products, between two turns of the other
#: crawl jobs (each a few microseconds).
QUICK_SLICE = 200
#: The name of the pack kept with a product's detail answer in the crawl cache.
PACK_READING = "packed product"

#: A pack replayed from the crawl cache, with the keys of its variants' pages.
Replayed = tuple[PackedProduct, tuple[str, ...]]
#: What the walk made of a listed product: its version and its replay (None: ask the API).
Tried = tuple[str, Replayed | None]


class ListedReplay:
    """Products replayed from the crawl cache while the product list is still being walked.

    Replaying a product is plain CPU work (its pack read from the cache), and a rebuild has one
    per product. Done as the list's pages arrive - while the walk waits for its next page - it
    takes no time of its own. ``offer`` is given each page's cards, ``run`` is the task that
    replays them, ``close`` says the walk is over; ``product_details`` then takes what was
    replayed under the version it would use itself. Each card's version is worked out on the
    way (``versions``: by id, the last card of an id counting), and what the cards give the
    version of route resolutions (``paths``).
    """

    def __init__(self, api: Api) -> None:
        self._api = api
        self._pending: deque[ProductCard] = deque()
        self._more = anyio.Event()
        self._closed = False
        self._tried: dict[int, Tried] = {}
        self.versions: dict[int, str] = {}
        self.paths = ListedPaths()  # what the cards give the version of route resolutions

    def offer(self, cards: Sequence[ProductCard]) -> None:
        self._pending.extend(cards)
        self._more.set()

    def close(self) -> None:
        self._closed = True
        self._more.set()

    async def run(self) -> None:
        while True:
            while self._pending:
                # A batch at a time, its packs read from the cache in one query; the other
                # crawl jobs have their turn after every slice of it.
                count = min(REPLAY_BATCH, len(self._pending))
                cards = [self._pending.popleft() for _ in range(count)]
                self._api.expect(f"/products/{card.id}" for card in cards if card.url is not None)
                for position, card in enumerate(cards, start=1):
                    version = self.versions[card.id] = card_version(card)
                    self.paths.add(card)
                    if card.url is not None and card.id not in self._tried:
                        found = _replayed_pack(self._api, f"/products/{card.id}", version)
                        self._tried[card.id] = (version, found)
                    if position % REPLAY_SLICE == 0 or position == count:
                        await anyio.lowlevel.checkpoint()
            if self._closed:
                return
            self._more = anyio.Event()
            await self._more.wait()

    def result(self, product_id: int, version: str | None) -> tuple[bool, Replayed | None]:
        """(whether the product was tried under ``version``, what its replay gave)."""
        tried = self._tried.get(product_id)
        if tried is None or tried[0] != version:
            return False, None
        return True, tried[1]


async def product_details(
    api: Api,
    cards: Sequence[ProductCard],
    extra_ids: Sequence[int],
    versions: Mapping[int, str],
    *,
    skips: SkipLog,
    observer: CrawlObserver,
    listed: ListedReplay | None = None,
) -> list[PackedProduct]:
    with_pages = [card.id for card in cards if card.url is not None]
    ids = list(dict.fromkeys([*with_pages, *extra_ids]))
    observer.phase_started("products", len(ids))
    # A listed product's detail and variants are asked again only when its card moved
    # (``versions``: the version of each card, see ``versions.card_version``).

    async def detail(product_id: int) -> PackedProduct | None:
        packed = await ask_product(api, product_id, versions.get(product_id), skips)
        observer.item_done("products")
        return packed

    # Details the cache replays as they are need no task each: the bulk of a rebuild, mostly
    # replayed already while the list was walked (``listed``). The replay is plain CPU work; it
    # gives way now and then, so that the crawl's other jobs send their requests and read their
    # answers meanwhile instead of waiting for all of it.
    with_related: dict[int, PackedProduct] = {}
    replayed: dict[int, PackedProduct] = {}
    for position, product_id in enumerate(ids):
        if position % QUICK_SLICE == 0:
            await anyio.lowlevel.checkpoint()
        version = versions.get(product_id)
        tried, kept = listed.result(product_id, version) if listed else (False, None)
        if not tried:
            if position % REPLAY_SLICE == 0:
                await anyio.lowlevel.checkpoint()
            kept = _replayed_pack(api, f"/products/{product_id}", version)
        if kept is None:
            continue
        packed, keys = kept
        if not keys:
            _absent_variants(skips, product_id)
        replayed[product_id] = packed
        observer.item_done("products")
    asked = [pid for pid in ids if pid not in replayed]
    fetched: dict[int, PackedProduct | None] = {}
    failed: list[StorefrontError] = []

    async def fetch_asked() -> None:
        try:
            found = await gather_limited(asked, detail, limit=api.settings.concurrency)
        except StorefrontError as exc:  # raised as itself below, not in an exception group
            failed.append(exc)
        else:
            fetched.update(zip(asked, found, strict=True))

    related = RelatedProducts(cards_by_category(cards), api.settings.related_products)
    async with anyio.create_task_group() as group:
        # The details asked go out first; the replayed products get their related products
        # while those requests are in flight, giving way now and then for their answers.
        group.start_soon(fetch_asked)
        for position, (product_id, packed) in enumerate(replayed.items()):
            if position % QUICK_SLICE == 0:
                await anyio.lowlevel.checkpoint()
            with_related[product_id] = _with_related(packed, related.of(packed.head))
    if failed:
        raise failed[0]
    for product_id, answered in fetched.items():
        if answered is not None:
            with_related[product_id] = _with_related(answered, related.of(answered.head))
    return [with_related[product_id] for product_id in ids if product_id in with_related]


async def ask_product(
    api: Api, product_id: int, version: str | None, skips: SkipLog
) -> PackedProduct | None:
    """A product's detail and variants, asked (or replayed when their answers' ``version`` has
    not moved), packed and kept with the detail's answer; None when the detail answers 404."""
    path = f"/products/{product_id}"
    product = await absent_as_none(
        api.one(path, normalize.product, version=version, keep_reading=False)
    )
    if product is None:
        skips.add(f"product {product_id}", "GET /products/{id} answered 404")
        return None
    walked = await absent_as_none(
        api.walk(f"{path}/variants", normalize.variant, version=version, keep_reading=False)
    )
    variants: tuple[Variant, ...] = ()
    keys: tuple[str, ...] = ()
    if walked is None:
        _absent_variants(skips, product_id)
    else:
        variants, keys = tuple(walked.items), walked.pages
    packed = pack(dataclasses.replace(product, variants=variants))
    # Kept with the detail's answer: the next build replays the pack as it is, keeping the
    # variants' answers (``keys``; none when the API had no variants list) alongside.
    api.keep(path, PACK_READING, packed, alongside=keys)
    return packed


def _replayed_pack(api: Api, path: str, version: str | None) -> Replayed | None:
    """The pack the last crawl kept with the detail of ``path``, when the detail and every page
    of its variants can be replayed as they are."""
    found = api.kept(path, PACK_READING, version=version)
    if found is None or not isinstance(found[0], PackedProduct):
        return None
    return found[0], found[1]


def _absent_variants(skips: SkipLog, product_id: int) -> None:
    skips.add(f"variants of product {product_id}", "GET /products/{id}/variants: 404")


def _with_related(packed: PackedProduct, related: tuple[ProductCard, ...]) -> PackedProduct:
    """``packed`` with ``related``: the pack itself when they are its related products already
    (none, the default), not a copy for every product of the store."""
    if related == packed.related:
        return packed
    return PackedProduct(packed.head, packed.blob, related)
