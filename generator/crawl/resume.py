"""A first crawl continued after a stop: the details still missing are asked first.

A crawl that stopped (``--max-requests``, ``--deadline``, an interrupt) kept what it had asked,
the pages of the product list it had walked included (``cache.recover_partial``). Continuing as
any crawl does, it would walk every list again before asking the details still missing, and a
second stop meanwhile would lose that walk. So the details the kept list pages name, and that
the cache does not hold, are asked first, kept as they arrive; the crawl then runs as always,
its lists walked once, at its end, and they decide: a product whose card moved since is asked
again, one the lists no longer show is not rendered.
"""

from __future__ import annotations

from generator.crawl import normalize
from generator.crawl.fetch import Fetcher, gather_limited
from generator.crawl.observer import CrawlObserver, NullCrawlObserver, SkipLog
from generator.crawl.products import ask_product
from generator.crawl.versions import card_version
from generator.model import PackedProduct, ProductCard

#: The progress display's name for this phase.
PHASE = "products (continued)"


async def missing_details_first(fetcher: Fetcher, page_size: int, observer: CrawlObserver) -> int:
    """Ask the details of the products the kept product list names and the cache lacks; how
    many were asked."""
    cards = fetcher.kept_items("/products", normalize.product_card, {"limit": page_size})
    latest = {card.id: card for card in cards}  # the last card of an id counts, as in a walk
    missing = [
        card
        for card in latest.values()
        if card.url is not None
        and not fetcher.has_kept(f"/products/{card.id}", version=card_version(card))
    ]
    if not missing:
        return 0
    observer.phase_started(PHASE, len(missing))
    # What goes wrong here (a product deleted since) is the walk's to report, not this hint's.
    quiet = SkipLog(NullCrawlObserver())

    async def ask(card: ProductCard) -> PackedProduct | None:
        packed = await ask_product(fetcher, card.id, card_version(card), quiet)
        observer.item_done(PHASE)
        return packed

    await gather_limited(missing, ask, limit=fetcher.settings.concurrency)
    return len(missing)
