"""The sitemap walk: every path the API lists in GET /sitemap and /sitemap/{section}.

The paths only tell the crawl what exists; the pages themselves come from the lists and
details. A path no list explains is a merchant-chosen one, sent to /routes/resolve later.
The section counts are not trusted to be exact (a section may count rows it does not serve),
but they bound the lists of those rows: a list that goes on past twice its section's count, plus
a margin, is not a store growing during the crawl but an API that does not stop (``list_bound``).
"""

from __future__ import annotations

from urllib.parse import quote

from generator.client import ListBound
from generator.crawl import normalize
from generator.crawl.ask import Api, absent_as_none, gather_limited, items_unless_absent
from generator.crawl.observer import CrawlObserver, SkipLog

#: (name, the rows it counts or None) of every section of GET /sitemap, in its order.
Sections = tuple[tuple[str, int | None], ...]


async def sitemap_sections(api: Api) -> Sections | None:
    """The sections of GET /sitemap; None when the API does not offer a sitemap. Read before
    the lists are walked, so that their walks know how long each may be."""
    return await absent_as_none(api.one("/sitemap", normalize.sitemap_sections))


def list_bound(sections: Sections | None, name: str, margin: int) -> ListBound | None:
    """The most items a list of section ``name``'s rows may hold; None when the sitemap gives
    no count for it (the client's page cap still ends the walk)."""
    counts = [count for section, count in sections or () if section == name and count is not None]
    if not counts:
        return None
    count = max(counts)
    return ListBound(
        2 * count + margin,
        f"more than twice the {count:,} rows the sitemap counts for {name}, plus {margin:,}",
    )


#: Requests a first crawl asks besides the lists and details: the store context (its payment
#: methods included), the sitemap's index, flash sales and the newest products.
_FIXED_REQUESTS = 13
#: Requests per row of a section beyond its list pages, in a first crawl: a product's detail
#: and variants; an article's or CMS page's detail; a category's level and product list; a
#: collection's path resolution and product list.
_PER_ROW = {"products": 2, "articles": 1, "pages": 1, "categories": 2, "collections": 2}
#: Sections whose rows are also walked as a list (besides their sitemap section).
_LISTED = ("products", "articles")


def expected_requests(sections: Sections | None, page_size: int) -> int | None:
    """About how many requests a crawl with nothing cached asks, from the sitemap's counts
    (within a few per cent on the demo store); None without counts."""
    counted = [(name, count) for name, count in sections or () if count is not None]
    if not counted:
        return None
    total = _FIXED_REQUESTS
    for name, count in counted:
        pages = max(1, -(-count // page_size))
        total += pages * (2 if name in _LISTED else 1) + count * _PER_ROW.get(name, 1)
    return total


async def sitemap_paths(
    api: Api, sections: Sections | None, *, skips: SkipLog, observer: CrawlObserver
) -> list[tuple[str, str | None]]:
    """Every path of every sitemap section, in section order, with what its item says of the
    row's last change (see ``normalize.sitemap_entry``); [] without a sitemap."""
    if sections is None:
        skips.add("sitemap (/sitemap)", "the API does not offer it (404)")
        return []
    names = list(dict.fromkeys(name for name, _ in sections))
    observer.phase_started("sitemap", len(names))

    async def walk(name: str) -> list[tuple[str, str | None]]:
        path = f"/sitemap/{quote(name, safe='')}"
        found = await items_unless_absent(
            api.walk(
                path,
                normalize.sitemap_entry,
                {"limit": api.settings.page_size},
                bound=list_bound(sections, name, api.settings.list_margin),
            )
        )
        observer.item_done("sitemap")
        if found is None:
            skips.add(f"sitemap section {name}", f"GET {path} answered 404")
            return []
        return [(item, changed) for item, changed in found if item is not None]

    per_section = await gather_limited(names, walk, limit=api.settings.concurrency)
    return [entry for entries in per_section for entry in entries]
