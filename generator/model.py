"""The normalized store: frozen dataclasses the renderer reads.

``normalize`` turns wire values into these once; nothing downstream ever sees a money string,
a naive timestamp, an empty-string url or a missing optional field. Conventions:

- money is ``int`` VND or ``None`` (no price: show nothing, never 0);
- timestamps are aware UTC ``datetime`` or ``None``;
- ``url`` is a usable path or ``None`` (no link, no page, no sitemap entry): as the API gave
  it from the crawl, and one the site cannot use made ``None`` by the plan (``plan.usable``);
- tuples, not lists, so every value is hashable and immutable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

#: The segment under a listing's path that holds its further pages (``/ao/trang/2``).
PAGE_SEGMENT = "trang"

EntityType = Literal["product", "category", "collection", "article", "cms_page"]


@dataclass(frozen=True, slots=True)
class Image:
    url: str
    alt: str | None = None


@dataclass(frozen=True, slots=True)
class Brand:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class ProductCard:
    id: int
    name: str
    slug: str
    url: str | None
    price: int | None
    effective_price: int | None
    compare_at_price: int | None
    image_url: str | None
    in_stock: bool
    category_id: int | None
    brand_id: int | None
    updated_at: datetime | None


#: At or under this many units left, an item is "few left" (the island uses the same number).
LOW_STOCK = 5


def shown_stock(stock: int | None) -> int | None:
    """A variant's stock as a page may show it: the count up to ``LOW_STOCK``, any more as
    ``LOW_STOCK + 1``. A page says in stock, few left or out of stock, never the count (the
    cart has the truth), so a sale taking one unit of fifty changes no page."""
    return stock if stock is None or stock <= LOW_STOCK else LOW_STOCK + 1


@dataclass(frozen=True, slots=True)
class Variant:
    id: int
    product_id: int
    sku: str | None
    name: str
    options: tuple[tuple[str, str], ...]  # ((option name, value), ...) in wire order
    price: int | None
    effective_price: int | None
    compare_at_price: int | None
    in_stock: bool
    stock: int | None  # ``shown_stock`` of the API's: capped just above LOW_STOCK
    image_url: str | None


@dataclass(frozen=True, slots=True)
class Product:
    card: ProductCard
    description_html: str | None
    images: tuple[Image, ...]
    category_ids: tuple[int, ...]
    brand: Brand | None
    sku: str | None
    meta_title: str | None
    meta_description: str | None
    published_at: datetime | None
    variants: tuple[Variant, ...] = ()
    related: tuple[ProductCard, ...] = ()
    #: The visible text of ``description_html``, worked out once when the answer is read (and
    #: kept with it in the crawl cache); None when not worked out.
    description_text: str | None = None


@dataclass(frozen=True, slots=True)
class ProductHead:
    """What the plan and the crawl read of a product: everything but what only its page shows."""

    card: ProductCard
    category_ids: tuple[int, ...]
    meta_title: str | None
    meta_description: str | None
    summary: str  # the visible text of its description, shortened for a meta description
    image_url: str | None  # its first image: of the gallery, else the card's, else a variant's


@dataclass(frozen=True, slots=True)
class PackedProduct:
    """A product as a build holds it between the crawl and its page's render: the head the plan
    reads, and the rest pickled and compressed (``crawl.pack``), under a KB instead of some
    hundred objects. Unpacked only by the render of a page that shows it. What later stages
    derive from it (digests, loads) is kept beside it, by its blob (``crawl.pack_facts``)."""

    head: ProductHead
    blob: bytes  # the Product with its variants, without ``related`` (crawl.pack)
    related: tuple[ProductCard, ...] = ()

    @property
    def card(self) -> ProductCard:
        return self.head.card

    @property
    def category_ids(self) -> tuple[int, ...]:
        return self.head.category_ids


@dataclass(frozen=True, slots=True)
class Crumb:
    id: int
    name: str
    url: str | None


@dataclass(frozen=True, slots=True)
class Category:
    id: int
    parent_id: int | None
    name: str
    slug: str
    url: str | None
    description_html: str | None
    image_url: str | None  # cover_image_url, else image_url
    product_count: int
    meta_title: str | None
    meta_description: str | None
    updated_at: datetime | None
    children: tuple[Category, ...] = ()


@dataclass(frozen=True, slots=True)
class Collection:
    id: int
    name: str
    slug: str
    description_html: str | None
    image_url: str | None
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class ArticleCategory:
    id: int
    name: str
    slug: str


@dataclass(frozen=True, slots=True)
class Tag:
    name: str
    slug: str
    article_count: int = 0


@dataclass(frozen=True, slots=True)
class ArticleSummary:
    id: int
    title: str
    slug: str
    excerpt: str | None
    cover_image_url: str | None
    published_at: datetime | None
    updated_at: datetime | None
    categories: tuple[ArticleCategory, ...]
    tags: tuple[Tag, ...]

    @property
    def path(self) -> str:
        """Articles have no url column: their path is always /bai-viet/<slug>."""
        return f"/bai-viet/{self.slug}"


@dataclass(frozen=True, slots=True)
class Article:
    summary: ArticleSummary
    content_html: str | None
    author_name: str | None
    meta_title: str | None
    meta_description: str | None
    related: tuple[ArticleSummary, ...] = ()


@dataclass(frozen=True, slots=True)
class CmsPage:
    id: int
    title: str
    slug: str
    url: str | None
    content_html: str | None
    meta_title: str | None
    meta_description: str | None
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class Banner:
    id: int
    title: str
    image_url: str | None
    link_url: str | None
    location_code: str
    position: int
    starts_at: datetime | None
    ends_at: datetime | None


@dataclass(frozen=True, slots=True)
class MenuItem:
    label: str
    url: str | None
    children: tuple[MenuItem, ...] = ()


@dataclass(frozen=True, slots=True)
class Menu:
    id: int
    code: str
    name: str
    items: tuple[MenuItem, ...]


@dataclass(frozen=True, slots=True)
class FlashSale:
    id: int
    name: str
    starts_at: datetime | None
    ends_at: datetime | None
    status: str
    products: tuple[ProductCard, ...] = ()


@dataclass(frozen=True, slots=True)
class Promotion:
    id: int
    text: str
    link_url: str | None


@dataclass(frozen=True, slots=True)
class PaymentMethod:
    """A way to pay the store accepts (GET /checkout/payment-methods): the footer's marks."""

    code: str
    name: str


@dataclass(frozen=True, slots=True)
class Store:
    name: str
    logo_url: str | None
    email: str | None
    phone: str | None
    address: str | None
    social: tuple[tuple[str, str], ...]  # ((network, url), ...)
    currency_code: str
    locale: str


@dataclass(frozen=True, slots=True)
class SiteContext:
    """What every page may show: store, menus, category tree and the home-page blocks."""

    store: Store
    menus: tuple[Menu, ...]
    category_tree: tuple[Category, ...]
    article_categories: tuple[ArticleCategory, ...]
    promotions: tuple[Promotion, ...]
    banners: tuple[Banner, ...]
    custom_variables: tuple[tuple[str, str], ...]
    payment_methods: tuple[PaymentMethod, ...] = ()

    def menu(self, code: str) -> Menu | None:
        return next((m for m in self.menus if m.code == code), None)


def listing_page_path(listing_path: str, number: int) -> str:
    """Page ``number`` (1-based) of the listing at ``listing_path``: page 1 is the listing's own
    path, page n ``<path>/trang/<n>`` (a trailing ``/`` of the path dropped first)."""
    if number == 1:
        return listing_path
    return f"{listing_path.rstrip('/')}/{PAGE_SEGMENT}/{number}"


@dataclass(frozen=True, slots=True)
class Pager:
    """Where one page of a paginated listing sits: its number, the count, the numbers it links
    to. Page 1 is the listing's own ``path``, page n ``<path>/trang/<n>`` (``path_of``)."""

    number: int  # 1-based
    count: int
    path: str  # the listing's own path (its first page)
    numbers: tuple[int, ...]  # the numbered links to show, this page's number too, ascending

    def path_of(self, number: int) -> str:
        return listing_page_path(self.path, number)

    @property
    def previous_path(self) -> str | None:
        return self.path_of(self.number - 1) if self.number > 1 else None

    @property
    def next_path(self) -> str | None:
        return self.path_of(self.number + 1) if self.number < self.count else None


@dataclass(frozen=True, slots=True)
class FilterConfig:
    """What GET /filters configures for a category (display only): brand names, each
    attribute's values, price ranges [min, max) in VND (None: open at that end)."""

    brands: tuple[str, ...]
    attributes: tuple[tuple[str, tuple[str, ...]], ...]
    price_ranges: tuple[tuple[int | None, int | None], ...]


@dataclass(frozen=True, slots=True)
class CategoryPage:
    category: Category
    breadcrumb: tuple[Crumb, ...]  # root first, the category itself last
    subcategories: tuple[Category, ...]
    #: Every product the API lists in it (its subcategories' too); in a plan's page, those of
    #: that page only.
    products: tuple[ProductCard, ...]
    has_more: bool  # in a plan's page: later pages follow
    pager: Pager | None = None  # in a plan's page
    #: Its filters as GET /filters configures them; None: not offered (the facets then come
    #: from its products).
    filters: FilterConfig | None = None


@dataclass(frozen=True, slots=True)
class CollectionPage:
    path: str  # whatever path resolves to it
    collection: Collection
    products: tuple[ProductCard, ...]  # as CategoryPage.products
    has_more: bool
    pager: Pager | None = None


@dataclass(frozen=True, slots=True)
class Skip:
    """Something the crawl could not render, and why; shown in the build summary."""

    what: str  # e.g. "collection 250", "path /khuyen-mai"
    reason: str


@dataclass(frozen=True, slots=True)
class UnusableUrl:
    """A url from the API the site cannot use: for a record's own url, not a path a page can be
    written at; for a link (menus, banners, promotions), neither such a path nor an http(s)
    link. The build treats it as null (plain text, no page), lists it in its summary and
    leaves it in the output for the audit."""

    what: str  # the record: "product 1", "menu main: item 'Áo'", "a path of the sitemap"
    url: str


@dataclass(frozen=True, slots=True)
class Catalog:
    """Everything a build renders, gathered before anything is written.

    ``custom_paths`` maps a merchant-chosen path to the entity rendered there (200, no redirect).
    ``dead_paths`` are paths found in menus, banners or the sitemap that resolve to nothing: links
    to them render as plain text.
    """

    site: SiteContext
    products: tuple[PackedProduct, ...]
    categories: tuple[CategoryPage, ...]
    collections: tuple[CollectionPage, ...]
    articles: tuple[Article, ...]
    pages: tuple[CmsPage, ...]
    flash_sales: tuple[FlashSale, ...]
    featured: tuple[ProductCard, ...]
    tags: tuple[Tag, ...]
    custom_paths: tuple[tuple[str, EntityType, int], ...] = ()
    dead_paths: frozenset[str] = field(default_factory=frozenset)
    skipped: tuple[Skip, ...] = ()
    #: Sitemap paths the crawl could not follow (another scheme or host); the plan adds the
    #: records' own.
    unusable_urls: tuple[UnusableUrl, ...] = ()
