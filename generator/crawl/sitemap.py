"""The sitemap walk: every path the API lists in GET /sitemap and /sitemap/{section}.

The paths only tell the crawl what exists; the pages themselves come from the lists and
details. A path no list explains is a merchant-chosen one, sent to /routes/resolve later.
The section counts are not trusted (a section may report rows it does not serve).
"""

from __future__ import annotations

from urllib.parse import quote

from generator.crawl import normalize
from generator.crawl.fetch import Fetcher, gather_limited
from generator.crawl.observer import CrawlObserver, SkipLog


async def sitemap_paths(
    fetcher: Fetcher, *, skips: SkipLog, observer: CrawlObserver
) -> list[tuple[str, str | None]]:
    """Every path of every sitemap section, in section order, with what its item says of the
    row's last change (see ``normalize.sitemap_entry``); [] without a sitemap."""
    sections = await fetcher.optional("/sitemap", normalize.sitemap_sections)
    if sections is None:
        skips.add("sitemap (/sitemap)", "the API does not offer it (404)")
        return []
    names = list(dict.fromkeys(name for name, _ in sections))
    observer.phase_started("sitemap", len(names))

    async def walk(name: str) -> list[tuple[str, str | None]]:
        path = f"/sitemap/{quote(name, safe='')}"
        found = await fetcher.optional_all(
            path, normalize.sitemap_entry, {"limit": fetcher.settings.page_size}
        )
        observer.item_done("sitemap")
        if found is None:
            skips.add(f"sitemap section {name}", f"GET {path} answered 404")
            return []
        return [(item, changed) for item, changed in found if item is not None]

    per_section = await gather_limited(names, walk, limit=fetcher.settings.concurrency)
    return [entry for entries in per_section for entry in entries]
