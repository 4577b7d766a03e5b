"""Collection pages: found by every means the spec allows, never fatal when they fail.

Collections have no url column and no get-by-id, and /collections serves one page (the first
200). A collection's page lives at each path that /routes/resolve maps to it. To know the
collection itself the crawl looks in that list, then asks /collections/by-slug/{segment} with
the last segment of the path (kept only if the id matches). Its products are every page of
/products?collection=<id> (walked by cursor), each asked again when its version moves
(``versions``).
What cannot be found is reported, and its paths become dead links.

A collection reached by several paths gets one ``CollectionPage``, at the first path (sitemap
order); the others are custom paths to it, so the renderer writes them with a canonical link to
the first instead of publishing the same page twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from generator.crawl import normalize
from generator.crawl.ask import Api, absent_as_none, gather_limited
from generator.crawl.content import last_segment
from generator.crawl.observer import CrawlObserver, SkipLog
from generator.crawl.versions import collection_version, listed_version, listing_bound
from generator.model import Collection, CollectionPage


@dataclass(frozen=True, slots=True)
class CollectionResult:
    pages: tuple[CollectionPage, ...]
    custom_paths: tuple[tuple[str, int], ...]  # further (path, id) of a collection with a page
    dead_paths: tuple[str, ...]  # paths whose collection could not be found


async def collection_pages(
    api: Api,
    listed: Sequence[Collection],
    targets: Sequence[tuple[str, int]],
    found_versions: Mapping[int, str | None],
    *,
    cards: Mapping[int, str],
    listed_set: str,
    skips: SkipLog,
    observer: CrawlObserver,
) -> CollectionResult:
    """A page for each (path, collection id) that /routes/resolve produced.

    ``found_versions``: the version of a collection looked up by slug (from the sitemap entries
    of its paths); ``cards``: the version of every listed product's card; ``listed_set``: a
    digest of which products are listed."""
    by_id = {collection.id: collection for collection in listed}
    paths_of: dict[int, list[str]] = {}
    for path, collection_id in targets:
        paths_of.setdefault(collection_id, []).append(path)
    observer.phase_started("collections", len(paths_of))

    async def find(collection_id: int) -> Collection | None:
        if collection_id in by_id:
            return by_id[collection_id]
        for slug in dict.fromkeys(last_segment(path) for path in paths_of[collection_id]):
            if not slug:
                continue
            found = await absent_as_none(
                api.one(
                    f"/collections/by-slug/{quote(slug, safe='')}",
                    normalize.collection,
                    version=found_versions.get(collection_id),
                )
            )
            if found is not None and found.id == collection_id:
                return found
        return None

    async def build(collection_id: int) -> CollectionPage | None:
        collection = await find(collection_id)
        if collection is None:
            observer.item_done("collections")
            skips.add(
                f"collection {collection_id}",
                f"{', '.join(paths_of[collection_id])} resolves to it, but it is neither among "
                "the first collections /collections lists nor found by slug",
            )
            return None
        base = collection_version(collection, listed_set)
        products = (
            await api.walk(
                "/products",
                normalize.product_card,
                {"collection": collection_id, "limit": api.settings.page_size},
                version=lambda listed: listed_version(base, listed, cards),
                bound=bound,
            )
        ).items
        observer.item_done("collections")
        return CollectionPage(
            path=paths_of[collection_id][0],
            collection=collection,
            products=tuple(products),
            has_more=False,
        )

    bound = listing_bound(len(cards), api.settings.list_margin)
    ids = list(paths_of)
    built = await gather_limited(ids, build, limit=api.settings.concurrency)
    found = [page for page in built if page is not None]
    return CollectionResult(
        pages=tuple(found),
        custom_paths=tuple(
            (path, page.collection.id)
            for page in found
            for path in paths_of[page.collection.id][1:]
        ),
        dead_paths=tuple(
            path
            for collection_id, page in zip(ids, built, strict=True)
            if page is None
            for path in paths_of[collection_id]
        ),
    )
