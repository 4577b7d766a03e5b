"""Which pages a build writes: ``plan_site(catalog, site_url) -> SitePlan``. Pure, no I/O.

Every page gets its url path, kind, template, the model object it shows, canonical url, lastmod
and whether it belongs in the sitemap, so rendering, writing and the sitemap only read the plan.

Pages, in this order:
- ``/`` home;
- each product, category and CMS page at its own ``url`` (null url: no page; so is a url the
  site cannot use, see ``usable``);
- each collection at ``CollectionPage.path`` (collections have no url column);
- each article at ``/bai-viet/<slug>``, and the article list at ``/bai-viet`` with further pages
  at ``/bai-viet/trang/<n>``;
- each ``Catalog.custom_paths`` entry: its target again at the custom path. When the target has
  its own page the custom page's canonical points there and the custom page stays out of the
  sitemap; when it has none (null url), the custom path is the canonical page;
- the island shells of ``shells.SHELLS`` (cart, checkout, payment return, account, search),
  ``noindex`` and out of the sitemap, unless a merchant page already has the path;
- the not-found page (``/404`` -> ``404.html``), never in the sitemap, never linked.

Two pages writing one file raise ``PathCollision``; an unsafe path raises ``UnsafePath``; both
name the entities involved. Urls under ``/_assets/`` and the sitemap/robots file names are taken.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from pathlib import PurePosixPath
from typing import Literal, TypeVar

from generator.errors import PathCollision, UnsafePath
from generator.model import (
    Article,
    ArticleSummary,
    Banner,
    Catalog,
    Category,
    CategoryPage,
    CmsPage,
    CollectionPage,
    EntityType,
    FlashSale,
    PackedProduct,
    Pager,
    Product,
    ProductCard,
    Promotion,
    SiteContext,
    Skip,
    UnusableUrl,
)
from generator.plain_text import META_DESCRIPTION_LENGTH, html_to_text, shorten
from generator.plan.distinct import distinct_texts
from generator.plan.links import Links
from generator.plan.pagination import chunks, page_path, pager
from generator.plan.paths import base_path, output_file, output_name, page_key, public_path
from generator.plan.usable import set_aside, usable_page_path
from generator.plan.words import PageWords, default_words
from generator.shells import SHELLS, Shell

PageKind = Literal[
    "home",
    "product",
    "category",
    "collection",
    "article",
    "article_list",
    "product_list",
    "collection_list",
    "cms_page",
    "not_found",
    "cart",
    "checkout",
    "payment_return",
    "account",
    "search",
]

TEMPLATES: Mapping[PageKind, str] = {
    "home": "home.html",
    "product": "product.html",
    "category": "category.html",
    "collection": "collection.html",
    "article": "article.html",
    "article_list": "article_list.html",
    "product_list": "product_list.html",
    "collection_list": "collection_list.html",
    "cms_page": "page.html",
    "not_found": "404.html",
    **{shell.kind: shell.template for shell in SHELLS},
}

HOME_PATH = "/"
ARTICLES_PATH = "/bai-viet"
NOT_FOUND_PATH = "/404"
ASSETS_PREFIX = "/_assets/"
ARTICLES_PER_PAGE = 12
#: Products on one static page of a category, a collection or the all-products listing.
PRODUCTS_PER_PAGE = 48
COLLECTIONS_PER_PAGE = 48
#: The all-products listing and the collections index: every product and collection is linked
#: from a listing, whatever its category. A merchant page at one of these paths wins.
ALL_PRODUCTS_PATH = "/san-pham"
COLLECTIONS_PATH = "/bo-suu-tap"
LATEST_ARTICLES_ON_HOME = 4
# Files the write phase puts at the root besides pages; a page there would be unreachable.
_RESERVED = re.compile(r"^/(?:robots\.txt|sitemap\.xml|sitemap-\d+\.xml)$")


@dataclass(frozen=True, slots=True)
class BreadcrumbItem:
    name: str
    url: str | None  # as the API gave it; the Links rule decides whether it is a link


@dataclass(frozen=True, slots=True)
class Home:
    """The home page's blocks, already chosen and ordered."""

    hero_banners: tuple[Banner, ...]
    middle_banners: tuple[Banner, ...]
    promotions: tuple[Promotion, ...]
    flash_sales: tuple[FlashSale, ...]  # running ones only
    featured: tuple[ProductCard, ...]
    latest_articles: tuple[ArticleSummary, ...]
    categories: tuple[Category, ...]  # top level of the tree


@dataclass(frozen=True, slots=True)
class ArticleListing:
    number: int  # 1-based
    count: int  # how many list pages there are
    articles: tuple[ArticleSummary, ...]
    previous_path: str | None
    next_path: str | None
    pager: Pager | None = None


@dataclass(frozen=True, slots=True)
class ProductListing:
    """One page of the all-products listing."""

    products: tuple[ProductCard, ...]
    pager: Pager


@dataclass(frozen=True, slots=True)
class CollectionLink:
    name: str
    path: str
    image_url: str | None


@dataclass(frozen=True, slots=True)
class CollectionIndex:
    """One page of the collections index."""

    collections: tuple[CollectionLink, ...]
    pager: Pager


#: What a page shows. A product page's is its packed product in the plan; the render unpacks it
#: (a ``Product``) for the templates of that one page.
Subject = (
    Home
    | PackedProduct
    | Product
    | CategoryPage
    | CollectionPage
    | Article
    | ArticleListing
    | ProductListing
    | CollectionIndex
    | CmsPage
    | None
)
#: One page's subject of a listing cut into pages; a category's or a collection's.
S = TypeVar("S", bound=Subject)
Listed = TypeVar("Listed", CategoryPage, CollectionPage)


@dataclass(frozen=True, slots=True)
class Page:
    path: str  # public spelling (paths.public_path); "/404" for the not-found page
    kind: PageKind
    subject: Subject
    name: str  # the h1
    title: str  # the document <title>
    description: str  # meta description, never empty
    canonical_path: str | None  # None only for the not-found page
    lastmod: datetime | None
    in_sitemap: bool
    breadcrumb: tuple[BreadcrumbItem, ...]  # home first, this page last; () on home and 404
    image_url: str | None  # for Open Graph

    @property
    def template(self) -> str:
        return TEMPLATES[self.kind]

    @property
    def file(self) -> PurePosixPath:
        return output_file(self.path)


@dataclass(frozen=True, slots=True)
class SitePlan:
    site_url: str  # origin without a trailing slash
    site: SiteContext
    pages: tuple[Page, ...]
    links: Links = field(repr=False, compare=False)
    skipped: tuple[Skip, ...] = ()
    #: Urls of the API the site cannot use, treated as null (``usable``).
    unusable_urls: tuple[UnusableUrl, ...] = ()

    @property
    def base_path(self) -> str:
        """The path prefix the site lives under ("" or e.g. "/shop"); see ``paths.base_path``."""
        return base_path(self.site_url)

    def absolute(self, path: str) -> str:
        """The absolute url of a site path (already in its public spelling)."""
        return self.site_url + path

    def absolute_url(self, url: str | None) -> str | None:
        """Absolute urls stay; a site path gains the origin (Open Graph wants absolute)."""
        if not url:
            return None
        if url.startswith("/") and not url.startswith("//"):
            return self.site_url + url
        return url

    def page_at(self, url_path: str) -> Page | None:
        key = page_key(url_path)
        return next((p for p in self.pages if page_key(p.path) == key), None)


def plan_site(
    catalog: Catalog,
    site_url: str,
    *,
    articles_per_page: int = ARTICLES_PER_PAGE,
    products_per_page: int = PRODUCTS_PER_PAGE,
    words: PageWords | None = None,
) -> SitePlan:
    """Every page of the site, complete, checked for unsafe paths and collisions. A url the
    site cannot use is null from here on (``usable.set_aside``). ``words``: the theme's
    (``words.toml`` ``[pages]``), else the default theme's."""
    origin = site_url.rstrip("/")
    catalog, unusable = set_aside(catalog)
    words = words or default_words()
    drafts = _Drafts(catalog, products_per_page, words)
    pages: list[Page] = [drafts.home()]
    pages += [drafts.product(p, p.card.url) for p in catalog.products if p.card.url]
    for category in catalog.categories:
        if category.category.url:
            pages += drafts.category_pages(category, category.category.url)
    for collection in catalog.collections:
        pages += drafts.collection_pages(collection, collection.path)
    pages += [
        drafts.article(a, a.summary.path)
        for a in catalog.articles
        if usable_page_path(a.summary.path)
    ]
    pages += drafts.article_lists(articles_per_page)
    pages += [drafts.cms_page(p, p.url) for p in catalog.pages if p.url]
    taken = {page_key(p.path) for p in pages}  # each page's key, worked out once
    custom, skipped = _custom_pages(catalog, drafts, taken)
    pages += custom
    taken.update(page_key(p.path) for p in custom)
    # The listings that link every product and collection, unless a merchant page is there.
    for listing, what in (
        (drafts.all_products(), "the all-products listing"),
        (drafts.collection_index(), "the collections index"),
    ):
        if not listing:
            continue
        if page_key(listing[0].path) in taken:
            skipped.append(Skip(what, f"{listing[0].path} is a page of the store's own"))
            continue
        pages += listing
        taken.update(page_key(p.path) for p in listing)
    shells = [drafts.shell(s) for s in SHELLS if page_key(s.path) not in taken]
    pages += shells
    taken.update(page_key(p.path) for p in shells)
    pages.append(drafts.not_found())
    for index, (title, description) in distinct_texts(
        pages, catalog.site.store.name, words
    ).items():
        pages[index] = _retitled(pages[index], title, description)
    _refuse_collisions(pages)
    return SitePlan(
        site_url=origin,
        site=catalog.site,
        pages=tuple(pages),
        # Every page but the not-found one, which is never linked.
        links=Links.of_keys(taken, _aliases(pages)),
        skipped=catalog.skipped + tuple(skipped),
        unusable_urls=unusable,
    )


class _Drafts:
    """Builds one Page per entity at a given path, canonical to itself and in the sitemap."""

    def __init__(self, catalog: Catalog, products_per_page: int, words: PageWords) -> None:
        self.catalog = catalog
        self.words = words
        #: The first crumb of every trail (one object: a crumb is immutable).
        self.home_crumb = BreadcrumbItem(words["home"], HOME_PATH)
        self.per_page = products_per_page
        self.store_name = catalog.site.store.name
        self.categories = _categories_by_id(catalog)
        self.category_pages_by_id = {c.category.id: c for c in catalog.categories}
        self._trails: dict[int, tuple[BreadcrumbItem, ...]] = {}

    def _page(
        self,
        what: str,
        path: str,
        kind: PageKind,
        subject: Subject,
        *,
        name: str,
        meta_title: str | None,
        descriptions: Iterable[str | None],
        lastmod: datetime | None,
        breadcrumb: tuple[BreadcrumbItem, ...],
        image_url: str | None,
        description: str | None = None,
    ) -> Page:
        """``description``: the one ``descriptions`` give, when the caller knows it already."""
        public = _public(what, path)
        return Page(
            path=public,
            kind=kind,
            subject=subject,
            name=name,
            title=meta_title or f"{name} | {self.store_name}",
            description=description
            or _description(descriptions, fallback=f"{name} - {self.store_name}"),
            canonical_path=public,
            lastmod=lastmod,
            in_sitemap=True,
            breadcrumb=breadcrumb,
            image_url=image_url,
        )

    def home(self) -> Page:
        site = self.catalog.site
        articles = sorted(
            (a.summary for a in self.catalog.articles),
            key=lambda a: a.published_at.timestamp() if a.published_at else float("-inf"),
            reverse=True,
        )
        home = Home(
            hero_banners=_banners(site.banners, "home_hero"),
            middle_banners=_banners(site.banners, "home_middle"),
            promotions=site.promotions,
            flash_sales=tuple(s for s in self.catalog.flash_sales if s.status == "running"),
            featured=self.catalog.featured,
            latest_articles=tuple(articles[:LATEST_ARTICLES_ON_HOME]),
            categories=site.category_tree,
        )
        return self._page(
            "the home page",
            HOME_PATH,
            "home",
            home,
            name=self.store_name,
            meta_title=self.store_name,
            descriptions=[
                dict(site.custom_variables).get("meta_description"),
                self.words.say("home_description", store=self.store_name),
            ],
            lastmod=None,
            breadcrumb=(),
            image_url=site.store.logo_url,
        )

    def product(self, product: PackedProduct, path: str) -> Page:
        """What ``_page`` makes of a product, written out: a store has a page per product, and
        the generic call (its keywords, its description candidates, the label of an error
        made whether or not one is raised) cost a third of each."""
        head = product.head
        card = head.card
        category_id = card.category_id or next(iter(head.category_ids), None)
        trail = self._category_trail(category_id) if category_id is not None else ()
        try:
            public = _public_spelling(path)
        except (UnsafePath, PathCollision) as exc:
            raise type(exc)(f"product {card.id}: {exc}") from None
        name = card.name
        # The head's summary is shortened to a meta description already (``crawl.pack``), and
        # shortening is idempotent: most products have no description of their own.
        meta = head.meta_description
        if meta and meta.strip():
            description = shorten(meta, META_DESCRIPTION_LENGTH)
        elif head.summary and (not meta or head.summary.strip()):
            description = head.summary
        else:
            description = shorten(f"{name} - {self.store_name}", META_DESCRIPTION_LENGTH)
        return Page(
            public,
            "product",
            product,
            name,
            head.meta_title or f"{name} | {self.store_name}",
            description,
            public,
            card.updated_at,
            True,
            (self.home_crumb, *trail, BreadcrumbItem(name, path)),
            head.image_url,
        )

    def category(self, page: CategoryPage, path: str) -> Page:
        category = page.category
        # The API's breadcrumb ends with the category itself; this page adds its own last crumb.
        trail = page.breadcrumb
        if trail and trail[-1].id == category.id:
            trail = trail[:-1]
        crumbs = tuple(BreadcrumbItem(c.name, c.url) for c in trail)
        return self._page(
            f"category {category.id}",
            path,
            "category",
            page,
            name=category.name,
            meta_title=category.meta_title,
            descriptions=[category.meta_description, html_to_text(category.description_html)],
            lastmod=_listed_lastmod(page),
            breadcrumb=(self.home_crumb, *crumbs, BreadcrumbItem(category.name, path)),
            image_url=category.image_url,
        )

    def category_pages(
        self, page: CategoryPage, path: str, pager_path: str | None = None
    ) -> list[Page]:
        """The category's listing page by page, at ``path``; ``pager_path``: where the pager
        links to (the category's own page, for a custom path that is not canonical)."""
        listing_path = pager_path or _public(f"category {page.category.id}", path)
        subjects = _split(page, self.per_page, listing_path)
        return self._paged(subjects, lambda first: self.category(first, path))

    def collection_pages(
        self, page: CollectionPage, path: str, pager_path: str | None = None
    ) -> list[Page]:
        """As ``category_pages``, for a collection."""
        listing_path = pager_path or _public(f"collection {page.collection.id}", path)
        subjects = _split(page, self.per_page, listing_path)
        return self._paged(subjects, lambda first: self.collection(first, path))

    def all_products(self) -> list[Page]:
        """Every product the store lists, page by page, at ``ALL_PRODUCTS_PATH``."""
        parts = chunks([p.card for p in self.catalog.products], self.per_page)
        subjects = [
            ProductListing(tuple(part), pager(ALL_PRODUCTS_PATH, number, len(parts)))
            for number, part in enumerate(parts, start=1)
        ]
        if not self.catalog.products:
            return []
        label = self.words["all_products"]
        return self._listing(
            "the all-products listing", ALL_PRODUCTS_PATH, "product_list", label, subjects
        )

    def collection_index(self) -> list[Page]:
        """Every collection with a page, page by page, at ``COLLECTIONS_PATH``."""
        links = [
            CollectionLink(c.collection.name, c.path, c.collection.image_url)
            for c in self.catalog.collections
        ]
        parts = chunks(links, COLLECTIONS_PER_PAGE)
        subjects = [
            CollectionIndex(tuple(part), pager(COLLECTIONS_PATH, number, len(parts)))
            for number, part in enumerate(parts, start=1)
        ]
        if not links:
            return []
        label = self.words["collections"]
        return self._listing(
            "the collections index", COLLECTIONS_PATH, "collection_list", label, subjects
        )

    def _listing(
        self, what: str, path: str, kind: PageKind, label: str, subjects: Sequence[Subject]
    ) -> list[Page]:
        """The pages of a listing of the site's own, one per subject (none without any)."""
        return self._paged(
            subjects,
            lambda first: self._page(
                what,
                path,
                kind,
                first,
                name=label,
                meta_title=None,
                descriptions=[
                    self.words.say("listing_description", label=label, store=self.store_name)
                ],
                lastmod=None,
                breadcrumb=(self.home_crumb, BreadcrumbItem(label, path)),
                image_url=None,
            ),
        )

    def _paged(self, subjects: Sequence[S], first: Callable[[S], Page]) -> list[Page]:
        """One page per subject: the first made by ``first``, the others after it (``_later``)."""
        pages: list[Page] = []
        for number, subject in enumerate(subjects, start=1):
            if number == 1:
                pages.append(first(subject))
            else:
                pages.append(_later(pages[0], subject, number, self.store_name, self.words))
        return pages

    def collection(self, page: CollectionPage, path: str) -> Page:
        collection = page.collection
        return self._page(
            f"collection {collection.id}",
            path,
            "collection",
            page,
            name=collection.name,
            meta_title=None,
            descriptions=[html_to_text(collection.description_html)],
            lastmod=_listed_lastmod(page),
            breadcrumb=(self.home_crumb, BreadcrumbItem(collection.name, path)),
            image_url=collection.image_url,
        )

    def article(self, article: Article, path: str) -> Page:
        summary = article.summary
        return self._page(
            f"article {summary.id}",
            path,
            "article",
            article,
            name=summary.title,
            meta_title=article.meta_title,
            descriptions=[
                article.meta_description,
                summary.excerpt,
                html_to_text(article.content_html),
            ],
            lastmod=summary.updated_at or summary.published_at,
            breadcrumb=(
                self.home_crumb,
                BreadcrumbItem(self.words["articles"], ARTICLES_PATH),
                BreadcrumbItem(summary.title, path),
            ),
            image_url=summary.cover_image_url,
        )

    def article_lists(self, per_page: int) -> list[Page]:
        summaries = [a.summary for a in self.catalog.articles]
        if not summaries:
            return []
        chunks = [summaries[i : i + per_page] for i in range(0, len(summaries), per_page)]
        pages = []
        for number, chunk in enumerate(chunks, start=1):
            path = _article_list_path(number)
            listing = ArticleListing(
                number=number,
                count=len(chunks),
                articles=tuple(chunk),
                previous_path=_article_list_path(number - 1) if number > 1 else None,
                next_path=_article_list_path(number + 1) if number < len(chunks) else None,
                pager=pager(ARTICLES_PATH, number, len(chunks)),
            )
            label = self.words["articles"]
            name = (
                label if number == 1 else self.words.say("articles_page", name=label, number=number)
            )
            crumbs = [self.home_crumb, BreadcrumbItem(label, ARTICLES_PATH)]
            if number > 1:
                crumbs.append(BreadcrumbItem(self.words.say("page_number", number=number), path))
            stamps = [a.updated_at or a.published_at for a in chunk]
            pages.append(
                self._page(
                    f"article list page {number}",
                    path,
                    "article_list",
                    listing,
                    name=name,
                    meta_title=None,
                    descriptions=[
                        self.words.say("articles_description", name=name, store=self.store_name)
                    ],
                    lastmod=max((s for s in stamps if s), default=None),
                    breadcrumb=tuple(crumbs),
                    image_url=None,
                )
            )
        return pages

    def cms_page(self, page: CmsPage, path: str) -> Page:
        return self._page(
            f"page {page.id}",
            path,
            "cms_page",
            page,
            name=page.title,
            meta_title=page.meta_title,
            descriptions=[page.meta_description, html_to_text(page.content_html)],
            lastmod=page.updated_at,
            breadcrumb=(self.home_crumb, BreadcrumbItem(page.title, path)),
            image_url=None,
        )

    def not_found(self) -> Page:
        page = self._page(
            "the not-found page",
            NOT_FOUND_PATH,
            "not_found",
            None,
            name=self.words["not_found"],
            meta_title=None,
            descriptions=[self.words.say("not_found_description", store=self.store_name)],
            lastmod=None,
            breadcrumb=(),
            image_url=None,
        )
        return replace(page, canonical_path=None, in_sitemap=False)

    def shell(self, shell: Shell) -> Page:
        """An island's page: the site's frame and a placeholder; noindex, not in the sitemap."""
        page = self._page(
            f"the {shell.kind.replace('_', '-')} page",
            shell.path,
            shell.kind,
            None,
            name=self.words[shell.kind],
            meta_title=None,
            descriptions=[f"{self.words[shell.kind]} - {self.store_name}"],
            lastmod=None,
            breadcrumb=(self.home_crumb, BreadcrumbItem(self.words[shell.kind], shell.path)),
            image_url=None,
        )
        return replace(page, canonical_path=None, in_sitemap=False)

    def _category_trail(self, category_id: int | None) -> tuple[BreadcrumbItem, ...]:
        """Root first, down to the category itself; prefers the API's own breadcrumb. Worked
        out once per category: a category's products all share it."""
        if category_id is None:
            return ()
        trail = self._trails.get(category_id)
        if trail is None:
            trail = self._trails[category_id] = self._trail_of(category_id)
        return trail

    def _trail_of(self, category_id: int) -> tuple[BreadcrumbItem, ...]:
        known = self.category_pages_by_id.get(category_id)
        if known is not None and known.breadcrumb:
            return tuple(BreadcrumbItem(c.name, c.url) for c in known.breadcrumb)
        trail: list[BreadcrumbItem] = []
        seen: set[int] = set()
        current = self.categories.get(category_id)
        while current is not None and current.id not in seen:
            seen.add(current.id)
            trail.insert(0, BreadcrumbItem(current.name, current.url))
            current = self.categories.get(current.parent_id) if current.parent_id else None
        return tuple(trail)


def _custom_pages(
    catalog: Catalog, drafts: _Drafts, own_keys: set[str]
) -> tuple[list[Page], list[Skip]]:
    """The targets of custom paths, rendered again at those paths (``own_keys``: the page keys
    of the pages planned so far)."""
    custom: list[Page] = []
    skipped: list[Skip] = []
    seen: set[tuple[str, str, int]] = set()
    for path, entity_type, entity_id in catalog.custom_paths:
        try:
            key = page_key(path)
        except UnsafePath as exc:
            raise UnsafePath(f"custom path for {entity_type} {entity_id}: {exc}") from None
        if (key, entity_type, entity_id) in seen:
            continue  # the same custom path listed twice (sitemap and a menu, say)
        seen.add((key, entity_type, entity_id))
        own_path = _own_path(catalog, drafts, entity_type, entity_id)
        if own_path is not None and page_key(own_path) == key:
            continue  # the entity's own page is already there
        canonical = own_path is not None and page_key(own_path) in own_keys
        # A listing shown again at a custom path: only its first page, its pager leading to
        # the listing's own pages; where the custom path is canonical, every page under it.
        drafted = _draft_for(
            catalog, drafts, path, entity_type, entity_id,
            public_path(own_path) if canonical and own_path is not None else None,
        )  # fmt: skip
        if not drafted:
            skipped.append(Skip(f"path {path}", f"{entity_type} {entity_id} is not in the catalog"))
            continue
        if canonical and own_path is not None:
            first = replace(drafted[0], canonical_path=public_path(own_path), in_sitemap=False)
            custom.append(first)
        else:
            custom += drafted
    return custom, skipped


def _draft_for(
    catalog: Catalog,
    drafts: _Drafts,
    path: str,
    entity_type: EntityType,
    entity_id: int,
    pager_path: str | None,
) -> list[Page]:
    """The target drafted at ``path`` (a listing: its pages, the pager linking under
    ``pager_path`` when given); [] when the target is not in the catalog."""
    if entity_type == "product":
        product = next((p for p in catalog.products if p.card.id == entity_id), None)
        if product:
            return [drafts.product(product, path)]
    elif entity_type == "category":
        category = drafts.category_pages_by_id.get(entity_id)
        if category:
            return drafts.category_pages(category, path, pager_path)
    elif entity_type == "collection":
        collection = next((c for c in catalog.collections if c.collection.id == entity_id), None)
        if collection:
            return drafts.collection_pages(collection, path, pager_path)
    elif entity_type == "article":
        article = next((a for a in catalog.articles if a.summary.id == entity_id), None)
        if article:
            return [drafts.article(article, path)]
    elif entity_type == "cms_page":
        cms = next((p for p in catalog.pages if p.id == entity_id), None)
        if cms:
            return [drafts.cms_page(cms, path)]
    return []


def _own_path(
    catalog: Catalog, drafts: _Drafts, entity_type: EntityType, entity_id: int
) -> str | None:
    """The path of the entity's own page (None when it has none or is not in the catalog)."""
    if entity_type == "product":
        product = next((p for p in catalog.products if p.card.id == entity_id), None)
        return product.card.url if product else None
    if entity_type == "category":
        category = drafts.category_pages_by_id.get(entity_id)
        return category.category.url if category else None
    if entity_type == "collection":
        collection = next((c for c in catalog.collections if c.collection.id == entity_id), None)
        return collection.path if collection else None
    if entity_type == "article":
        article = next((a for a in catalog.articles if a.summary.id == entity_id), None)
        # An article whose slug makes no usable path has no page of its own.
        return article.summary.path if article and usable_page_path(article.summary.path) else None
    cms = next((p for p in catalog.pages if p.id == entity_id), None)
    return cms.url if cms else None


def _aliases(pages: Iterable[Page]) -> tuple[tuple[str, str], ...]:
    """(path, canonical path) of the pages that name another page as their canonical."""
    return tuple(
        (page.path, page.canonical_path)
        for page in pages
        if page.canonical_path is not None and page.canonical_path != page.path
    )


def _refuse_collisions(pages: Iterable[Page]) -> None:
    by_file: dict[str, Page] = {}
    for page in pages:
        file = output_name(page.path)
        earlier = by_file.get(file)
        if earlier is not None:
            raise PathCollision(
                f"{_describe(earlier)} at {earlier.path} and {_describe(page)} at {page.path} "
                f"would both be written to {file}; give one of them another url"
            )
        by_file[file] = page


def _describe(page: Page) -> str:
    subject = page.subject
    if isinstance(subject, PackedProduct):
        return f"product {subject.card.id}"
    if isinstance(subject, CategoryPage):
        return f"category {subject.category.id}"
    if isinstance(subject, CollectionPage):
        return f"collection {subject.collection.id}"
    if isinstance(subject, Article):
        return f"article {subject.summary.id}"
    if isinstance(subject, CmsPage):
        return f"page {subject.id}"
    if page.kind == "article_list":
        return "the article list"
    return f"the {page.kind.replace('_', '-')} page"


def _split(page: Listed, per_page: int, listing_path: str) -> list[Listed]:
    """A category's or collection's listing page by page: its products cut, each its pager."""
    parts = chunks(page.products, per_page)
    return [
        replace(
            page,
            products=tuple(part),
            has_more=number < len(parts),
            pager=pager(listing_path, number, len(parts)),
        )
        for number, part in enumerate(parts, start=1)
    ]


_PAGE_FIELDS = [f.name for f in fields(Page)]
_page_values = operator.attrgetter(*_PAGE_FIELDS)
_TITLE = _PAGE_FIELDS.index("title")
_DESCRIPTION = _PAGE_FIELDS.index("description")
_SUBJECT = _PAGE_FIELDS.index("subject")


_PLAN_FIELDS = [f.name for f in fields(SitePlan)]
_plan_values = operator.attrgetter(*_PLAN_FIELDS)
_LINKS = _PLAN_FIELDS.index("links")


def with_links(plan: SitePlan, links: Links) -> SitePlan:
    """``plan`` answering links with ``links`` (a page's recorder), made as ``with_subject``
    makes a page: once per page rendered."""
    values = list(_plan_values(plan))
    values[_LINKS] = links
    return SitePlan(*values)


def with_subject(page: Page, subject: Subject) -> Page:
    """``page`` showing ``subject`` (its product unpacked, for the render), as ``_retitled``
    makes a page: by the constructor, without ``replace``'s look-ups, once per product page."""
    values = list(_page_values(page))
    values[_SUBJECT] = subject
    return Page(*values)


def _retitled(page: Page, title: str, description: str) -> Page:
    """``page`` with another title and description. As ``replace`` does, by the constructor,
    without looking the fields up again for each of the thousands of pages a store's shared
    names give (a third of the time)."""
    values = list(_page_values(page))
    values[_TITLE] = title
    values[_DESCRIPTION] = description
    return Page(*values)


def _later(first: Page, subject: Subject, number: int, store_name: str, words: PageWords) -> Page:
    """Page ``number`` (2 or more) of the listing whose first page is ``first``: under its
    path, canonical to itself, its title and description told apart by the number (in the
    title before the store's name)."""
    numbered = words.say("page_number", number=number)
    suffix = f" – {numbered}"
    path = page_path(first.path, number)
    tail = f" | {store_name}"
    title = first.title + suffix
    if first.title.endswith(tail):
        title = first.title[: -len(tail)] + suffix + tail
    return replace(
        first,
        path=path,
        subject=subject,
        title=title,
        description=shorten(first.description, META_DESCRIPTION_LENGTH - len(suffix)) + suffix,
        canonical_path=path if first.canonical_path == first.path else first.canonical_path,
        breadcrumb=(*first.breadcrumb, BreadcrumbItem(numbered, path)),
        lastmod=(
            _listed_lastmod(subject)
            if isinstance(subject, CategoryPage | CollectionPage)
            else first.lastmod
        ),
    )


def _listed_lastmod(page: CategoryPage | CollectionPage) -> datetime | None:
    """A category's or a collection's page changes with it and with the cards it lists: the
    later of its own change and its newest card's (a search engine trusts a lastmod that
    moves when the page does)."""
    own = page.category.updated_at if isinstance(page, CategoryPage) else page.collection.updated_at
    stamps = [own, *(card.updated_at for card in page.products)]
    return max((stamp for stamp in stamps if stamp is not None), default=None)


def _article_list_path(number: int) -> str:
    return ARTICLES_PATH if number == 1 else f"{ARTICLES_PATH}/trang/{number}"


def _banners(banners: Iterable[Banner], location: str) -> tuple[Banner, ...]:
    return tuple(sorted((b for b in banners if b.location_code == location), key=_position))


def _position(banner: Banner) -> tuple[int, int]:
    return (banner.position, banner.id)


def _public(what: str, path: str) -> str:
    """The public spelling of a page's path, once it is safe and not taken by the build."""
    try:
        return _public_spelling(path)
    except (UnsafePath, PathCollision) as exc:
        raise type(exc)(f"{what}: {exc}") from None


def _public_spelling(path: str) -> str:
    """``_public`` without naming the page in its errors (the caller does)."""
    public = public_path(path)
    if public.startswith(ASSETS_PREFIX) or public == ASSETS_PREFIX.rstrip("/"):
        raise PathCollision(f"{path!r} is under {ASSETS_PREFIX}, kept for theme assets")
    if _RESERVED.match(public):
        raise PathCollision(f"{path!r} is the name of a file the build writes itself")
    return public


def _description(candidates: Iterable[str | None], *, fallback: str) -> str:
    for text in candidates:
        if text and text.strip():
            return shorten(text, META_DESCRIPTION_LENGTH)
    return shorten(fallback, META_DESCRIPTION_LENGTH)


def _categories_by_id(catalog: Catalog) -> dict[int, Category]:
    found: dict[int, Category] = {}

    def walk(categories: Iterable[Category]) -> None:
        for category in categories:
            found.setdefault(category.id, category)
            walk(category.children)

    walk(catalog.site.category_tree)
    for page in catalog.categories:
        found[page.category.id] = page.category
        walk(page.subcategories)
    return found
