"""CMS pages: no list endpoint exists, so they come from paths that resolve to a cms_page.

Sitemap paths, menu and banner links go through /routes/resolve first (see crawl_paths); each
cms_page id found there is read once with GET /pages/{id}, asked again when its version moves
(the crawl versions it by the sitemap entry of its path, which carries the page's updated_at).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from generator import normalize
from generator.crawl_fetch import Fetcher, gather_limited
from generator.crawl_observer import CrawlObserver, SkipLog
from generator.model import CmsPage


async def cms_pages(
    fetcher: Fetcher,
    page_ids: Sequence[int],
    versions: Mapping[int, str | None],
    *,
    skips: SkipLog,
    observer: CrawlObserver,
) -> list[CmsPage]:
    ids = list(dict.fromkeys(page_ids))
    observer.phase_started("pages", len(ids))

    async def read(page_id: int) -> CmsPage | None:
        page = await fetcher.optional(
            f"/pages/{page_id}", normalize.cms_page, version=versions.get(page_id)
        )
        observer.item_done("pages")
        if page is None:
            skips.add(f"page {page_id}", "GET /pages/{id} answered 404")
        return page

    return [
        page
        for page in await gather_limited(ids, read, limit=fetcher.settings.concurrency)
        if page is not None
    ]
