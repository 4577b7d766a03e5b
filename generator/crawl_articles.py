"""Article pages: GET /articles/by-slug/{slug} for every listed article (one request each).

Articles have no url column: an article's page is /bai-viet/<slug>. An article reached through
a custom path but missing from /articles has no get-by-id; the last segment of that path is
tried as its slug, and kept only when the id matches.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from urllib.parse import quote, unquote

from generator import normalize
from generator.crawl_fetch import Fetcher, entity_version, gather_limited
from generator.crawl_observer import CrawlObserver, SkipLog
from generator.crawl_related import articles_by_category, related_articles
from generator.model import Article, ArticleSummary


def slug_path(slug: str) -> str:
    return f"/articles/by-slug/{quote(slug, safe='')}"


def last_segment(path: str) -> str:
    return unquote(path.rstrip("/").rsplit("/", 1)[-1])


async def article_details(
    fetcher: Fetcher,
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
        found = await fetcher.optional(endpoint, normalize.article, version=version)
        observer.item_done("articles")
        if found is None or (expected_id is not None and found.summary.id != expected_id):
            what = f"article {expected_id}" if expected_id is not None else f"article {slug!r}"
            skips.add(what, f"GET {endpoint} does not find it")
            return None
        return found

    found = await gather_limited(lookups, detail, limit=fetcher.settings.concurrency)
    articles = list({article.summary.id: article for article in found if article}.values())
    everything = [*summaries, *(a.summary for a in articles if a.summary.id not in listed_ids)]
    count = fetcher.settings.related_articles
    by_category = articles_by_category(everything)
    return [
        dataclasses.replace(article, related=related_articles(article.summary, by_category, count))
        for article in articles
    ]
