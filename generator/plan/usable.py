"""Urls the site cannot use, treated as null: ``set_aside(catalog) -> (catalog, unusable)``.

The spec: a url is a usable path or null. A record's own url (a product's, a category's, a
crumb's, a CMS page's) is usable when a page can be written at it (``paths.public_path``: one
leading "/", no dot or empty segments, no backslash, no control character, no query); an
article's path (``/bai-viet/<slug>``) and a collection's likewise. A link of the page furniture
(menus, banners, promotions, the store's social links) is usable as such a path (a query or
fragment allowed) or as an http(s) link with a host, as ``Links.href`` renders it. Anything else
(``javascript:``, ``data:``, ``//host``, an absolute url as a page's url, ...) is treated as null:
the record shows as plain text and has no page; each is named once in ``unusable``, and the
build tells the summary and the audit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import TypeVar

from generator.errors import UnsafePath
from generator.model import (
    Catalog,
    Category,
    CategoryPage,
    CollectionPage,
    Crumb,
    FlashSale,
    MenuItem,
    PackedProduct,
    ProductCard,
    UnusableUrl,
)
from generator.plan.links import external_link
from generator.plan.paths import public_path

T = TypeVar("T")


def usable_page_path(url: str) -> bool:
    """Whether a page can be written at ``url``."""
    try:
        public_path(url)
    except UnsafePath:
        return False
    return True


def usable_link(url: str) -> bool:
    """Whether ``url`` is a site path (with a query or fragment) or an http(s) link."""
    if url.startswith("/") and not url.startswith("//"):
        return usable_page_path(url.split("#", 1)[0].split("?", 1)[0])
    return external_link(url) is not None


def set_aside(catalog: Catalog) -> tuple[Catalog, tuple[UnusableUrl, ...]]:
    """The catalog with every unusable url of a record made null, unusable collection paths
    and custom paths left out; and every unusable url found (with the crawl's), each once.
    Articles keep theirs (it is made from the slug): the plan writes no page at it."""
    found = _Found()
    cards = _Cards(found)
    categories = _Categories(found)
    site = catalog.site
    site = replace(site, category_tree=categories.all(site.category_tree))
    for menu in site.menus:
        found.links(_menu_links(menu.code, menu.items))
    found.links((f"banner {b.id}", b.link_url) for b in site.banners)
    found.links((f"promotion {p.id}", p.link_url) for p in site.promotions)
    found.links((f"store: social link {network!r}", url) for network, url in site.store.social)
    collections = []
    for collection in catalog.collections:
        if found.page(f"collection {collection.collection.id}", collection.path) is None:
            continue
        collections.append(_listed(collection, cards))
    custom_paths = tuple(
        (path, kind, ident)
        for path, kind, ident in catalog.custom_paths
        if found.page(f"custom path of {kind} {ident}", path) is not None
    )
    for article in catalog.articles:
        found.page(f"article {article.summary.id}", article.summary.path)
    clean = replace(
        catalog,
        site=site,
        products=tuple(_product(p, cards) for p in catalog.products),
        categories=tuple(_category_page(page, categories, cards) for page in catalog.categories),
        collections=tuple(collections),
        pages=tuple(
            p
            if p.url is None or found.page(f"page {p.id}", p.url) is not None
            else replace(p, url=None)
            for p in catalog.pages
        ),
        flash_sales=tuple(_sale(sale, cards) for sale in catalog.flash_sales),
        featured=cards.all(catalog.featured),
        custom_paths=custom_paths,
    )
    # The crawl's: a sitemap path no record explains (its record was never read).
    named = {u.url for u in found.unusable}
    found.unusable.extend(u for u in catalog.unusable_urls if u.url not in named)
    return clean, tuple(dict.fromkeys(found.unusable))


class _Found:
    """The unusable urls met so far, in order; each url decided once."""

    def __init__(self) -> None:
        self.unusable: list[UnusableUrl] = []
        self._pages: dict[str, bool] = {}

    def page(self, what: str, url: str | None) -> str | None:
        """``url`` when a page can be written there (None stays None); else None, noted."""
        if url is None:
            return None
        usable = self._pages.get(url)
        if usable is None:
            usable = self._pages[url] = usable_page_path(url)
        if not usable:
            self.unusable.append(UnusableUrl(what, url))
            return None
        return url

    def links(self, links: Iterable[tuple[str, str | None]]) -> None:
        for what, url in links:
            if url and not usable_link(url):
                self.unusable.append(UnusableUrl(what, url))


def _menu_links(code: str, items: Iterable[MenuItem]) -> Iterator[tuple[str, str | None]]:
    for item in items:
        yield f"menu {code}: item {item.label!r}", item.url
        yield from _menu_links(code, item.children)


class _Cards:
    """Product cards with an unusable url made null: the same objects when nothing changes."""

    def __init__(self, found: _Found) -> None:
        self.found = found

    def one(self, card: ProductCard) -> ProductCard:
        if card.url is None or self.found.page(f"product {card.id}", card.url) is not None:
            return card
        return replace(card, url=None)

    def all(self, cards: tuple[ProductCard, ...]) -> tuple[ProductCard, ...]:
        return _same_or_new(cards, self.one)


class _Categories:
    def __init__(self, found: _Found) -> None:
        self.found = found

    def one(self, category: Category) -> Category:
        url = self.found.page(f"category {category.id}", category.url)
        children = self.all(category.children)
        if url == category.url and children is category.children:
            return category
        return replace(category, url=url, children=children)

    def all(self, categories: tuple[Category, ...]) -> tuple[Category, ...]:
        return _same_or_new(categories, self.one)

    def crumb(self, crumb: Crumb) -> Crumb:
        url = self.found.page(f"category {crumb.id}", crumb.url)
        return crumb if url == crumb.url else replace(crumb, url=url)


def _product(product: PackedProduct, cards: _Cards) -> PackedProduct:
    card = cards.one(product.head.card)
    related = cards.all(product.related)
    if card is product.head.card and related is product.related:
        return product
    return replace(product, head=replace(product.head, card=card), related=related)


def _category_page(page: CategoryPage, categories: _Categories, cards: _Cards) -> CategoryPage:
    category = categories.one(page.category)
    breadcrumb = _same_or_new(page.breadcrumb, categories.crumb)
    subcategories = categories.all(page.subcategories)
    products = cards.all(page.products)
    if (
        category is page.category
        and breadcrumb is page.breadcrumb
        and subcategories is page.subcategories
        and products is page.products
    ):
        return page
    return replace(
        page,
        category=category,
        breadcrumb=breadcrumb,
        subcategories=subcategories,
        products=products,
    )


def _listed(collection: CollectionPage, cards: _Cards) -> CollectionPage:
    products = cards.all(collection.products)
    return collection if products is collection.products else replace(collection, products=products)


def _sale(sale: FlashSale, cards: _Cards) -> FlashSale:
    products = cards.all(sale.products)
    return sale if products is sale.products else replace(sale, products=products)


def _same_or_new(items: tuple[T, ...], fix: Callable[[T], T]) -> tuple[T, ...]:
    """``items`` with ``fix`` applied; the very tuple when it changed none of them (nearly
    always: no new tuple is made for a listing whose urls are all usable)."""
    for index, item in enumerate(items):
        new = fix(item)
        if new is not item:
            return (*items[:index], new, *(fix(rest) for rest in items[index + 1 :]))
    return items
