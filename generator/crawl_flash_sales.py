"""Running flash sales and their discounted product cards (GET /flash-sales, then
/flash-sales/{id}/products, first page). Optional: an implementation without flash sales
leaves the home page without them and a Skip in the summary."""

from __future__ import annotations

import dataclasses

from generator import normalize
from generator.crawl_fetch import Fetcher, gather_limited
from generator.crawl_observer import CrawlObserver, SkipLog
from generator.model import FlashSale


async def flash_sales(
    fetcher: Fetcher, *, skips: SkipLog, observer: CrawlObserver
) -> list[FlashSale]:
    page_size = fetcher.settings.page_size
    first = await fetcher.optional_first_page(
        "/flash-sales", normalize.flash_sale, {"limit": page_size}
    )
    if first is None:
        skips.add("flash sales (/flash-sales)", "the API does not offer it (404)")
        return []
    sales = first[0]
    observer.phase_started("flash sales", len(sales))

    async def with_products(sale: FlashSale) -> FlashSale:
        path = f"/flash-sales/{sale.id}/products"
        found = await fetcher.optional_first_page(
            path, normalize.product_card, {"limit": page_size}
        )
        observer.item_done("flash sales")
        if found is None:
            skips.add(f"products of flash sale {sale.id}", f"GET {path} answered 404")
            return sale
        return dataclasses.replace(sale, products=tuple(found[0]))

    return await gather_limited(sales, with_products, limit=fetcher.settings.concurrency)
