"""Phase 1 of a crawl: the site context every page shows.

GET /store (required), /menus, /categories/tree, /collections (one page of up to 200, the
spec's scan), /article-categories, /article-tags, /promotions, /banners, /custom-variables,
/checkout/payment-methods (the footer's payment marks).
Every block but the store is optional: an implementation that answers 404 for it leaves the
block empty and a Skip in the build summary. The category tree is kept raw here; the category
phase completes it (levels below the second) before it goes into ``SiteContext``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from generator.client import Params
from generator.crawl import normalize
from generator.crawl.ask import Api, absent_as_none, items_unless_absent, run_concurrently
from generator.crawl.observer import CrawlObserver, SkipLog
from generator.model import (
    ArticleCategory,
    Banner,
    Category,
    Collection,
    Menu,
    PaymentMethod,
    Promotion,
    Store,
    Tag,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ContextBlocks:
    store: Store
    menus: tuple[Menu, ...]
    category_tree: tuple[Category, ...] | None  # None: /categories/tree is not offered
    collections: tuple[Collection, ...]
    article_categories: tuple[ArticleCategory, ...]
    tags: tuple[Tag, ...]
    promotions: tuple[Promotion, ...]
    banners: tuple[Banner, ...]
    custom_variables: tuple[tuple[str, str], ...]
    payment_methods: tuple[PaymentMethod, ...] = ()


class _Block(Generic[T]):  # noqa: UP046  (Python 3.11: no PEP 695 syntax)
    """One optional block of the context: fetched once, None when the API does not offer it."""

    def __init__(
        self,
        name: str,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        one_page: bool = False,
    ) -> None:
        self.name = name
        self.path = path
        self.parse = parse
        self.params = params
        self.one_page = one_page
        self.items: tuple[T, ...] | None = None

    async def fetch(self, api: Api, skips: SkipLog) -> None:
        items: list[T] | None
        if self.one_page:
            first = await absent_as_none(api.first_page(self.path, self.parse, self.params))
            items = None if first is None else first[0]
        else:
            items = await items_unless_absent(api.walk(self.path, self.parse, self.params))
        if items is None:
            skips.add(f"{self.name} ({self.path})", "the API does not offer it (404)")
        else:
            self.items = tuple(items)

    @property
    def found(self) -> tuple[T, ...]:
        return self.items or ()


async def gather_context(
    api: Api,
    *,
    skips: SkipLog,
    observer: CrawlObserver,
    alongside: Sequence[Callable[[], Awaitable[None]]] = (),
) -> ContextBlocks:
    """The context blocks; ``alongside``: other jobs the crawl needs done before the lists
    (the sitemap's sections), run with the blocks' and after them in order."""
    settings = api.settings
    menus = _Block("menus", "/menus", normalize.menu)
    tree = _Block("category tree", "/categories/tree", normalize.category)
    collections = _Block(
        "collections",
        "/collections",
        normalize.collection,
        {"limit": settings.collections_limit},
        one_page=True,
    )
    article_categories = _Block(
        "article categories", "/article-categories", normalize.article_category
    )
    tags = _Block("article tags", "/article-tags", normalize.tag)
    promotions = _Block("promotions", "/promotions", normalize.promotion)
    banners = _Block("banners", "/banners", normalize.banner, {"limit": settings.page_size})
    variables = _Block("custom variables", "/custom-variables", normalize.custom_variable)
    payments = _Block("payment methods", "/checkout/payment-methods", normalize.payment_method)
    stores: list[Store] = []
    observer.phase_started("context", 10)

    async def get_store() -> None:
        stores.append(await api.one("/store", normalize.store))
        observer.item_done("context")

    def job(block: _Block[T]) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            await block.fetch(api, skips)
            observer.item_done("context")

        return run

    await run_concurrently(
        [
            get_store,
            job(menus),
            job(tree),
            job(collections),
            job(article_categories),
            job(tags),
            job(promotions),
            job(banners),
            job(variables),
            job(payments),
            *alongside,
        ],
        limit=settings.concurrency,
    )
    return ContextBlocks(
        store=stores[0],
        menus=menus.found,
        category_tree=tree.items,
        collections=collections.found,
        article_categories=article_categories.found,
        tags=tags.found,
        promotions=promotions.found,
        # Stable sort: the wire order breaks ties between banners of one position.
        banners=tuple(sorted(banners.found, key=lambda banner: banner.position)),
        custom_variables=variables.found,
        payment_methods=payments.found,
    )
