"""The crawl: everything a build renders, gathered from any implementation of the spec.

    gather(api) -> Catalog

1. context   /store, /menus, /categories/tree, /collections, ... (context), and the
             sitemap's sections, whose counts bound the walks of the lists
2. enumerate the sitemap (sitemap), every product card and article summary (cursor
             walks), every category level (categories)
3. resolve   paths no list explains - from the sitemap, menus, banners, promotions - through
             /routes/resolve (routes); 404 makes a dead path
4. details   products + variants, articles, CMS pages, collection pages, flash sales, the
             newest products for the home page - with bounded concurrency; then category
             pages, whose versions need the products' categories, and each category's
             /filters configuration (filters)
5. assemble  the Catalog, with custom paths (an entity rendered at a merchant path, 200, no
             redirect), dead paths and everything skipped

Every phase asks through ``api`` (``ask.Api``), each request declaring the version it depends
on, built from exactly what can change it (``versions``): the replay layer (``generator.replay``)
replays what has not moved, so a rebuild asks the lists and only what their changes reach.

It relies only on the spec and the documented field names: cursors are opaque, optional blocks
may be missing (a Skip, not a crash), a detail that 404s is skipped, and a 429 is waited out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from generator.client import ListBound
from generator.crawl import normalize
from generator.crawl.ask import Api, Later, items_unless_absent, run_concurrently
from generator.crawl.categories import CategoryIndex, category_pages, index_categories
from generator.crawl.collections import CollectionResult, collection_pages
from generator.crawl.content import article_details, cms_pages, flash_sales
from generator.crawl.context import ContextBlocks, gather_context
from generator.crawl.filters import category_filters
from generator.crawl.observer import CrawlObserver, NullCrawlObserver, SkipLog
from generator.crawl.products import ListedReplay, product_details
from generator.crawl.routes import (
    Resolution,
    context_links,
    internal_path,
    path_key,
    resolve_paths,
    unexplained_paths,
)
from generator.crawl.sitemap import (
    Sections,
    expected_requests,
    list_bound,
    sitemap_paths,
    sitemap_sections,
)
from generator.crawl.versions import (
    CategoryClaims,
    digest,
    listed_set_version,
    listed_version,
    paths_version,
)
from generator.model import (
    Article,
    ArticleSummary,
    Catalog,
    CategoryPage,
    CmsPage,
    CollectionPage,
    EntityType,
    FlashSale,
    PackedProduct,
    ProductCard,
    SiteContext,
    UnusableUrl,
)

Listed = TypeVar("Listed", CategoryPage, CollectionPage)


async def gather(
    api: Api,
    observer: CrawlObserver | None = None,
    *,
    on_walk_started: Callable[[], None] | None = None,
    asks_everything: bool = False,
) -> Catalog:
    """One pass of the crawl through ``api``. ``on_walk_started`` is called as the list walk
    starts: from then on the crawl mostly waits for the API, which leaves time for other work
    (not before: the first requests go out first). ``asks_everything``: nothing will be
    replayed, so the count of requests the sitemap foretells is reported."""
    settings = api.settings
    observer = observer or NullCrawlObserver()
    skips = SkipLog(observer)
    sections = Later[Sections | None]()
    context = await gather_context(
        api,
        skips=skips,
        observer=observer,
        alongside=[sections.job(lambda: sitemap_sections(api))],
    )

    if asks_everything:
        expected = expected_requests(sections.value, settings.page_size)
        if expected is not None:
            observer.requests_expected(expected)

    def bound(section: str) -> ListBound | None:
        return list_bound(sections.value, section, settings.list_margin)

    index = Later[CategoryIndex]()
    sitemap = Later[list[tuple[str, str | None]]]()
    cards = Later[list[ProductCard]]()
    summaries = Later[list[ArticleSummary]]()

    async def list_articles() -> list[ArticleSummary]:
        found = await items_unless_absent(
            api.walk(
                "/articles",
                normalize.article_summary,
                {"limit": settings.page_size},
                bound=bound("articles"),
            )
        )
        if found is None:
            skips.add("articles (/articles)", "the API does not offer it (404)")
        return found or []

    listed = ListedReplay(api)

    async def list_products() -> list[ProductCard]:
        try:
            return (
                await api.walk(
                    "/products",
                    normalize.product_card,
                    {"limit": settings.page_size},
                    on_items=listed.offer,
                    bound=bound("products"),
                )
            ).items
        finally:
            listed.close()

    observer.phase_started("lists", None)
    if on_walk_started is not None:
        on_walk_started()
    await run_concurrently(
        [
            index.job(lambda: index_categories(api, context.category_tree, observer=observer)),
            sitemap.job(lambda: sitemap_paths(api, sections.value, skips=skips, observer=observer)),
            cards.job(list_products),
            summaries.job(list_articles),
            listed.run,
        ],
        limit=5,
    )
    site = _site(context, index.value)
    # The version of what derives from the context and the lists as a whole.
    lists = api.read_so_far()
    versions = listed.versions  # each card's version, worked out during the walk
    sitemap_paths_found = [path for path, _ in sitemap.value]

    known = [  # besides the listed products' urls (``listed.paths.keys``, taken on the way)
        *(category.url for category in index.value.by_id.values() if category.url),
        *(summary.path for summary in summaries.value),
        *settings.builtin_paths,
    ]
    links = [*sitemap_paths_found, *context_links(site)]
    paths_stamp = paths_version(
        sitemap=sitemap_paths_found,
        links=context_links(site),
        categories=index.value.by_id.values(),
        collections=context.collections,
        cards=listed.paths,
        summaries=summaries.value,
    )
    resolutions = await resolve_paths(
        api,
        unexplained_paths(links, known, listed.paths.keys),
        version=paths_stamp,
        observer=observer,
    )
    for resolution in resolutions:
        if resolution.target is None:
            skips.add(f"path {resolution.path}", resolution.reason)
    targets = _targets(resolutions)
    listed_set = listed_set_version(versions)

    products = Later[list[PackedProduct]]()
    articles = Later[list[Article]]()
    pages = Later[list[CmsPage]]()
    collections = Later[CollectionResult]()
    sales = Later[list[FlashSale]]()
    featured = Later[tuple[list[ProductCard], bool]]()

    async def newest() -> tuple[list[ProductCard], bool]:
        return await api.first_page(
            "/products",
            normalize.product_card,
            {"sort": "newest", "limit": settings.featured_limit},
            version=lambda listed: listed_version(listed_set, listed, versions),
        )

    # The jobs that always ask the API first, the products last: replaying from the cache is
    # CPU work, done while the requests of the jobs started before are in flight.
    await run_concurrently(
        [
            sales.job(lambda: flash_sales(api, skips=skips, observer=observer)),
            featured.job(newest),
            articles.job(
                lambda: article_details(
                    api, summaries.value, targets["article"], skips=skips, observer=observer
                )
            ),
            pages.job(
                lambda: cms_pages(
                    api,
                    [target_id for _, target_id in targets["cms_page"]],
                    _sitemap_versions(targets["cms_page"], sitemap.value, paths_stamp),
                    skips=skips,
                    observer=observer,
                )
            ),
            collections.job(
                lambda: collection_pages(
                    api,
                    context.collections,
                    targets["collection"],
                    _sitemap_versions(targets["collection"], sitemap.value, paths_stamp),
                    cards=versions,
                    listed_set=listed_set,
                    skips=skips,
                    observer=observer,
                )
            ),
            products.job(
                lambda: product_details(
                    api,
                    cards.value,
                    [target_id for _, target_id in targets["product"]],
                    versions,
                    skips=skips,
                    observer=observer,
                    listed=listed,
                )
            ),
        ],
        limit=6,
    )
    claims = CategoryClaims(cards.value, products.value, index.value.parent_of, versions)
    category_list = await category_pages(
        api,
        index.value,
        [target_id for _, target_id in targets["category"]],
        claims=claims,
        cards=versions,
        lists=lists,
        skips=skips,
        observer=observer,
    )
    category_list = await category_filters(
        api, category_list, cards=versions, skips=skips, observer=observer
    )

    own_paths: dict[EntityType, dict[int, str | None]] = {
        "product": {p.card.id: p.card.url for p in products.value},
        "category": {c.category.id: c.category.url for c in category_list},
        "article": {a.summary.id: a.summary.path for a in articles.value},
        "cms_page": {p.id: p.url for p in pages.value},
    }
    custom: list[tuple[str, EntityType, int]] = []
    dead = [resolution.path for resolution in resolutions if resolution.target is None]
    for kind, found in own_paths.items():
        for path, target_id in targets[kind]:
            if target_id not in found:
                dead.append(path)  # its phase has logged why
            elif (own := found[target_id]) is None or path_key(own) != path_key(path):
                custom.append((path, kind, target_id))
    custom.extend((path, "collection", ident) for path, ident in collections.value.custom_paths)
    dead.extend(collections.value.dead_paths)

    shared = _SharedCards(products.value)
    return Catalog(
        site=site,
        products=tuple(products.value),
        categories=tuple(shared.listed(page) for page in category_list),
        collections=tuple(shared.listed(page) for page in collections.value.pages),
        articles=tuple(articles.value),
        pages=tuple(pages.value),
        flash_sales=tuple(sales.value),
        featured=shared.cards(featured.value[0]),
        tags=context.tags,
        custom_paths=tuple(custom),
        dead_paths=_dead_links(dead, links),
        skipped=skips.all(),
        # A sitemap path that is not one of the site's (a CMS page's javascript: url, say)
        # leads the crawl nowhere: its record is never read, so it is named here.
        unusable_urls=tuple(
            UnusableUrl("a path of the sitemap", path)
            for path in dict.fromkeys(sitemap_paths_found)
            if internal_path(path) is None
        ),
    )


class _SharedCards:
    """A listing's cards as the very objects of their products' own cards, where equal.

    Each list answer decodes cards of its own: a product listed in two categories and a
    collection would be held four times over, and every build's fingerprints would digest each
    copy (a card is digested once per object). One object per product instead."""

    def __init__(self, products: Iterable[PackedProduct]) -> None:
        self._by_id = {product.card.id: product.card for product in products}

    def cards(self, cards: Sequence[ProductCard]) -> tuple[ProductCard, ...]:
        by_id = self._by_id
        # Mostly the very object already (the crawl cache hands out one card per value).
        return tuple(
            own
            if (own := by_id.get(card.id)) is card or (own is not None and own == card)
            else card
            for card in cards
        )

    def listed(self, page: Listed) -> Listed:
        return replace(page, products=self.cards(page.products))


def _site(context: ContextBlocks, index: CategoryIndex) -> SiteContext:
    return SiteContext(
        store=context.store,
        menus=context.menus,
        category_tree=index.roots,
        article_categories=context.article_categories,
        promotions=context.promotions,
        banners=context.banners,
        custom_variables=context.custom_variables,
        payment_methods=context.payment_methods,
    )


def _sitemap_versions(
    targets: Iterable[tuple[str, int]],
    sitemap: Iterable[tuple[str, str | None]],
    paths_stamp: str,
) -> dict[int, str | None]:
    """The version of each target (a CMS page, a collection) reached by paths: the sitemap
    entries of its paths (they carry its updated_at) with what can change a path's meaning;
    None (ask again) for a target no sitemap entry describes."""
    changed = {path_key(path): stamp for path, stamp in sitemap}
    found: dict[int, list[str]] = {}
    for path, target_id in targets:
        stamp = changed.get(path_key(path))
        stamps = found.setdefault(target_id, [])
        if stamp:
            stamps.append(f"{path}\0{stamp}")
    return {
        target_id: digest(paths_stamp, *stamps) if stamps else None
        for target_id, stamps in found.items()
    }


def _targets(resolutions: Iterable[Resolution]) -> dict[EntityType, list[tuple[str, int]]]:
    """(path, id) of every resolved path, by entity type."""
    targets: dict[EntityType, list[tuple[str, int]]] = {
        "product": [],
        "category": [],
        "collection": [],
        "article": [],
        "cms_page": [],
    }
    for resolution in resolutions:
        if resolution.target is not None:
            kind, target_id = resolution.target
            targets[kind].append((resolution.path, target_id))
    return targets


def _dead_links(dead_paths: Iterable[str], links: Iterable[str]) -> frozenset[str]:
    """The dead paths, plus every link spelling that leads to one ("/x?y=1" as well as "/x"),
    so the renderer can look a link up as it is written."""
    dead = set(dead_paths)
    if not dead:
        return frozenset()  # the common case: no link to look at
    keys = {path_key(path) for path in dead}
    for link in links:
        path = internal_path(link)
        if path is not None and path_key(path) in keys:
            dead.add(link)
    return frozenset(dead)
