"""The store's content beside its catalog: articles, CMS pages and flash sales.

- Articles: GET /articles/by-slug/{slug} for every listed article (one request each). Articles
  have no url column: an article's page is /bai-viet/<slug>. An article reached through a custom
  path but missing from /articles has no get-by-id; the last segment of that path is tried as
  its slug, and kept only when the id matches.
- CMS pages: no list endpoint exists, so they come from paths that resolve to a cms_page
  (sitemap paths, menu and banner links, through /routes/resolve; see ``routes``). Each id
  found is read once with GET /pages/{id}, asked again when its version moves (the sitemap
  entry of its path, which carries the page's updated_at).
- Flash sales: the running ones and their discounted product cards (GET /flash-sales, then
  /flash-sales/{id}/products, first page). Optional: an implementation without flash sales
  leaves the home page without them and a Skip in the summary.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from urllib.parse import quote, unquote

from generator.crawl import normalize
from generator.crawl.ask import Api, absent_as_none, gather_limited
from generator.crawl.observer import CrawlObserver, SkipLog
from generator.crawl.related import articles_by_category, related_articles
from generator.crawl.versions import entity_version
from generator.model import Article, ArticleSummary, CmsPage, FlashSale


def slug_path(slug: str) -> str:
    return f"/articles/by-slug/{quote(slug, safe='')}"


def last_segment(path: str) -> str:
    return unquote(path.rstrip("/").rsplit("/", 1)[-1])


async def article_details(
    api: Api,
    summaries: Sequence[ArticleSummary],
    extra: Sequence[tuple[str, int]],
    *,
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[Article]:
    """Every listed article, plus ``extra`` (path, id) targets of custom paths not listed."""
    listed_ids = {summary.id for summary in summaries}
    lookups: list[tuple[str, int | None]] = [(summary.slug, None) for summary in summaries]
    # A listed article's detail is asked again only when its summary moved.
    versions = {summary.slug: entity_version(summary) for summary in summaries}
    lookups += [
        (last_segment(path), article_id)
        for path, article_id in extra
        if article_id not in listed_ids
    ]
    observer.phase_started("articles", len(lookups))

    async def detail(lookup: tuple[str, int | None]) -> Article | None:
        slug, expected_id = lookup
        endpoint = slug_path(slug)
        version = versions.get(slug) if expected_id is None else None
        found = await absent_as_none(api.one(endpoint, normalize.article, version=version))
        observer.item_done("articles")
        if found is None or (expected_id is not None and found.summary.id != expected_id):
            what = f"article {expected_id}" if expected_id is not None else f"article {slug!r}"
            skips.add(what, f"GET {endpoint} does not find it")
            return None
        return found

    found = await gather_limited(lookups, detail, limit=api.settings.concurrency)
    articles = list({article.summary.id: article for article in found if article}.values())
    everything = [*summaries, *(a.summary for a in articles if a.summary.id not in listed_ids)]
    count = api.settings.related_articles
    by_category = articles_by_category(everything)
    return [
        dataclasses.replace(article, related=related_articles(article.summary, by_category, count))
        for article in articles
    ]


async def cms_pages(
    api: Api,
    page_ids: Sequence[int],
    versions: Mapping[int, str | None],
    *,
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[CmsPage]:
    ids = list(dict.fromkeys(page_ids))
    observer.phase_started("pages", len(ids))

    async def read(page_id: int) -> CmsPage | None:
        page = await absent_as_none(
            api.one(f"/pages/{page_id}", normalize.cms_page, version=versions.get(page_id))
        )
        observer.item_done("pages")
        if page is None:
            skips.add(f"page {page_id}", "GET /pages/{id} answered 404")
        return page

    return [
        page
        for page in await gather_limited(ids, read, limit=api.settings.concurrency)
        if page is not None
    ]


async def flash_sales(api: Api, *, skips: SkipLog, observer: CrawlObserver) -> list[FlashSale]:
    page_size = api.settings.page_size
    first = await absent_as_none(
        api.first_page("/flash-sales", normalize.flash_sale, {"limit": page_size})
    )
    if first is None:
        skips.add("flash sales (/flash-sales)", "the API does not offer it (404)")
        return []
    sales = first[0]
    observer.phase_started("flash sales", len(sales))

    async def with_products(sale: FlashSale) -> FlashSale:
        path = f"/flash-sales/{sale.id}/products"
        found = await absent_as_none(
            api.first_page(path, normalize.product_card, {"limit": page_size})
        )
        observer.item_done("flash sales")
        if found is None:
            skips.add(f"products of flash sale {sale.id}", f"GET {path} answered 404")
            return sale
        return dataclasses.replace(sale, products=tuple(found[0]))

    return await gather_limited(sales, with_products, limit=api.settings.concurrency)
