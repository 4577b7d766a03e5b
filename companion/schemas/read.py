"""Response bodies of the read endpoints (field names from the project's api-fields page).

Timestamps are strings in wire form (UTC, no ``Z``; see ``clock.wire_timestamp``), not
``datetime`` fields: OpenAPI's ``date-time`` format would promise an offset we never send.
Money on these records is integer VND sent as a JSON number, or null when there is no price.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

WireTime = Annotated[
    str, Field(description="UTC timestamp without a Z suffix", examples=["2026-11-20T03:04:05"])
]
Money = Annotated[int | None, Field(description="Integer VND; null when there is no price")]
Path = Annotated[str | None, Field(description="A usable path, or null: plain text, no link")]


class ProductCard(BaseModel):
    id: int
    name: str
    slug: str
    url: Path
    price: Money
    effective_price: Money = Field(description="Price after a running flash sale, else price")
    compare_at_price: Money
    image_url: str | None
    in_stock: bool
    category_id: int | None
    brand_id: int | None
    updated_at: WireTime


class ProductImage(BaseModel):
    url: str
    alt: str | None


class BrandRef(BaseModel):
    id: int
    name: str


class ProductDetail(ProductCard):
    description_html: str | None
    images: list[ProductImage]
    category_ids: list[int] = Field(description="The primary category first, then the others")
    brand: BrandRef | None
    sku: str | None
    meta_title: str | None
    meta_description: str | None
    published_at: WireTime | None


class Variant(BaseModel):
    id: int
    product_id: int
    sku: str | None
    name: str
    options: dict[str, str]
    price: Money
    effective_price: Money
    compare_at_price: Money
    in_stock: bool
    stock: int | None = Field(description="Units in stock; null when stock is not tracked")
    image_url: str | None


class Category(BaseModel):
    id: int
    parent_id: int | None
    name: str
    slug: str
    url: Path
    description_html: str | None
    cover_image_url: str | None = Field(description="Same value as image_url")
    image_url: str | None
    product_count: int = Field(description="Published products here and in subcategories")
    meta_title: str | None
    meta_description: str | None
    updated_at: WireTime


class CategoryTreeNode(Category):
    children: list[Category]


class BreadcrumbItem(BaseModel):
    id: int
    name: str
    url: Path


class Collection(BaseModel):
    id: int
    name: str
    slug: str
    description_html: str | None
    image_url: str | None
    updated_at: WireTime


class ArticleCategory(BaseModel):
    id: int
    name: str
    slug: str


class ArticleTagRef(BaseModel):
    name: str
    slug: str


class ArticleTag(ArticleTagRef):
    article_count: int


class ArticleSummary(BaseModel):
    id: int
    title: str
    slug: str
    excerpt: str | None
    cover_image_url: str | None
    published_at: WireTime
    updated_at: WireTime
    categories: list[ArticleCategory]
    tags: list[ArticleTagRef]


class ArticleDetail(ArticleSummary):
    content_html: str | None
    author_name: str | None
    meta_title: str | None
    meta_description: str | None


class CmsPage(BaseModel):
    id: int
    title: str
    slug: str
    url: Path
    content_html: str | None
    meta_title: str | None
    meta_description: str | None
    updated_at: WireTime


class Banner(BaseModel):
    id: int
    title: str
    image_url: str
    link_url: str | None
    location_code: str
    position: int
    starts_at: WireTime
    ends_at: WireTime | None


class MenuItem(BaseModel):
    label: str
    url: Path
    children: list[MenuItem]


class Menu(BaseModel):
    id: int
    code: str
    name: str
    items: list[MenuItem]


class FlashSale(BaseModel):
    id: int
    name: str
    starts_at: WireTime
    ends_at: WireTime
    status: Literal["running", "scheduled", "ended"]


class Promotion(BaseModel):
    id: int
    text: str
    link_url: str | None


class CustomVariable(BaseModel):
    key: str
    value: str


class Store(BaseModel):
    name: str
    logo_url: str | None
    email: str | None
    phone: str | None
    address: str | None
    social: dict[str, str] = Field(description="Network name to profile url")
    currency_code: str
    locale: str


class FilterBrand(BaseModel):
    id: int
    name: str


class FilterAttribute(BaseModel):
    name: str
    values: list[str]


class PriceRange(BaseModel):
    min: int
    max: int | None = Field(description="Exclusive upper bound; null: no upper bound")


class Filters(BaseModel):
    brands: list[FilterBrand]
    attributes: list[FilterAttribute]
    price_ranges: list[PriceRange]


SectionName = Literal["products", "categories", "collections", "articles", "pages"]


class SitemapSection(BaseModel):
    name: SectionName
    count: int = Field(description="Rows by status; the section may serve fewer (no url)")


class Sitemap(BaseModel):
    sections: list[SitemapSection]


class SitemapEntry(BaseModel):
    path: str
    updated_at: WireTime


class RouteTarget(BaseModel):
    type: Literal["product", "category", "collection", "article", "cms_page"]
    id: int
