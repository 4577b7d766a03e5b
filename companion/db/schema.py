"""The companion's catalogue tables (the read side of the public API).

Every row belongs to a store (``store_id``): the data model is multi-tenant. Timestamps are
stored as naive UTC datetimes, which is also their wire form (UTC, no ``Z``). Money is integer
VND. Only portable SQL types are used, so the same tables run on SQLite and PostgreSQL.

The commerce tables (carts, orders, customers, ...) live in ``commerce_schema`` on the same
``metadata``.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)


def store_fk() -> Column[int]:
    """The ``store_id`` column every tenant-owned table starts with."""
    return Column("store_id", Integer, ForeignKey("stores.id", ondelete="CASCADE"), nullable=False)


def _timestamps() -> list[Column[object]]:
    return [
        Column("created_at", DateTime, nullable=False),
        Column("updated_at", DateTime, nullable=False),
    ]


stores = Table(
    "stores",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("logo_url", Text),
    Column("email", String(200)),
    Column("phone", String(50)),
    Column("address", Text),
    Column("social", JSON, nullable=False, default=dict),
    Column("currency_code", String(3), nullable=False, default="VND"),
    Column("locale", String(10), nullable=False, default="vi"),
    Column("created_at", DateTime, nullable=False),
)

# Host names that select a store when a request carries no key (port stripped, lower case).
store_hosts = Table(
    "store_hosts",
    metadata,
    Column("host", String(255), primary_key=True),
    store_fk(),
)

# Publishable keys. Only a SHA-256 digest is stored; the full key is shown once at creation.
api_keys = Table(
    "api_keys",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(200), nullable=False, default=""),
    Column("prefix", String(32), nullable=False),  # first characters, for `keys list`
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime, nullable=False),
    Column("revoked_at", DateTime),
    # publishable (the public API) | secret (the admin API, with the permissions ticked)
    Column("kind", String(20), nullable=False, default="publishable", server_default="publishable"),
    Column("permissions", JSON),  # a secret key's permission names; NULL for publishable keys
)

brands = Table(
    "brands",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(200), nullable=False),
)

categories = Table(
    "categories",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("parent_id", Integer, ForeignKey("categories.id", ondelete="SET NULL")),
    Column("name", String(300), nullable=False),
    Column("slug", String(300), nullable=False),
    Column("url", Text),  # a usable path, or NULL / '' (no page)
    Column("description_html", Text),
    Column("image_url", Text),  # served as cover_image_url and image_url
    Column("meta_title", Text),
    Column("meta_description", Text),
    Column("status", String(20), nullable=False, default="published"),  # published | draft
    Column("position", Integer, nullable=False, default=0),
    *_timestamps(),
    UniqueConstraint("store_id", "slug"),
)

products = Table(
    "products",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(300), nullable=False),
    Column("search_name", String(300), nullable=False),  # accent-folded lower-case name
    Column("slug", String(300), nullable=False),
    Column("url", Text),
    Column("price", BigInteger),  # NULL: no price yet
    Column("compare_at_price", BigInteger),
    Column("category_id", Integer, ForeignKey("categories.id", ondelete="SET NULL")),
    Column("brand_id", Integer, ForeignKey("brands.id", ondelete="SET NULL")),
    Column("image_url", Text),
    Column("description_html", Text),
    Column("sku", String(100)),
    Column("meta_title", Text),
    Column("meta_description", Text),
    Column("status", String(20), nullable=False, default="published"),
    Column("published_at", DateTime),
    *_timestamps(),
    UniqueConstraint("store_id", "slug"),
    Index("ix_products_store_created", "store_id", "created_at", "id"),
    Index("ix_products_store_price", "store_id", "price", "id"),
    Index("ix_products_store_category", "store_id", "category_id"),
)

product_images = Table(
    "product_images",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="CASCADE"), nullable=False),
    Column("url", Text, nullable=False),
    Column("alt", Text),
    Column("position", Integer, nullable=False, default=0),
    Index("ix_product_images_product", "product_id"),
)

# Extra categories of a product (category_ids); the primary one is products.category_id.
product_categories = Table(
    "product_categories",
    metadata,
    store_fk(),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "category_id", Integer, ForeignKey("categories.id", ondelete="CASCADE"), primary_key=True
    ),
    Index("ix_product_categories_category", "category_id"),
)

variants = Table(
    "variants",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="CASCADE"), nullable=False),
    Column("sku", String(100)),
    Column("name", String(300), nullable=False),
    Column("options", JSON, nullable=False, default=dict),  # {"Kích cỡ": "M", "Màu": "Đỏ"}
    Column("price", BigInteger),
    Column("compare_at_price", BigInteger),
    Column("stock", Integer),  # NULL: not tracked (always in stock)
    Column("image_url", Text),
    Column("position", Integer, nullable=False, default=0),
    Column("on_sale", Boolean, nullable=False, default=True),
    Column("updated_at", DateTime, nullable=False),
    Index("ix_variants_product", "product_id"),
)

collections = Table(
    "collections",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(300), nullable=False),
    Column("slug", String(300), nullable=False),
    Column("description_html", Text),
    Column("image_url", Text),
    Column("visible", Boolean, nullable=False, default=True),
    Column("position", Integer, nullable=False, default=0),
    *_timestamps(),
    UniqueConstraint("store_id", "slug"),
)

collection_products = Table(
    "collection_products",
    metadata,
    store_fk(),
    Column(
        "collection_id", Integer, ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column("position", Integer, nullable=False, default=0),
    Index("ix_collection_products_product", "product_id"),
)

article_categories = Table(
    "article_categories",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(300), nullable=False),
    Column("slug", String(300), nullable=False),
    Column("position", Integer, nullable=False, default=0),
    UniqueConstraint("store_id", "slug"),
)

article_tags = Table(
    "article_tags",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(200), nullable=False),
    Column("slug", String(200), nullable=False),
    UniqueConstraint("store_id", "slug"),
)

articles = Table(
    "articles",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("title", String(300), nullable=False),
    Column("search_title", String(300), nullable=False),  # accent-folded lower-case title
    Column("slug", String(300), nullable=False),
    Column("excerpt", Text),
    Column("cover_image_url", Text),
    Column("content_html", Text),
    Column("author_name", String(200)),
    Column("meta_title", Text),
    Column("meta_description", Text),
    Column("status", String(20), nullable=False, default="published"),
    Column("published_at", DateTime),
    *_timestamps(),
    UniqueConstraint("store_id", "slug"),
    Index("ix_articles_store_published", "store_id", "published_at", "id"),
)

article_category_links = Table(
    "article_category_links",
    metadata,
    store_fk(),
    Column("article_id", Integer, ForeignKey("articles.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "category_id",
        Integer,
        ForeignKey("article_categories.id", ondelete="CASCADE"),
        primary_key=True,
    ),
)

article_tag_links = Table(
    "article_tag_links",
    metadata,
    store_fk(),
    Column("article_id", Integer, ForeignKey("articles.id", ondelete="CASCADE"), primary_key=True),
    Column("tag_id", Integer, ForeignKey("article_tags.id", ondelete="CASCADE"), primary_key=True),
)

pages = Table(
    "pages",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("title", String(300), nullable=False),
    Column("slug", String(300), nullable=False),
    Column("url", Text),
    Column("content_html", Text),
    Column("meta_title", Text),
    Column("meta_description", Text),
    Column("status", String(20), nullable=False, default="published"),
    *_timestamps(),
    UniqueConstraint("store_id", "slug"),
)

banners = Table(
    "banners",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("title", String(300), nullable=False),
    Column("image_url", Text, nullable=False),
    Column("link_url", Text),
    Column("location_code", String(50), nullable=False),  # home_hero, home_middle, sidebar, ...
    Column("position", Integer, nullable=False, default=0),
    Column("starts_at", DateTime, nullable=False),
    Column("ends_at", DateTime),  # NULL: no end
    Column("updated_at", DateTime, nullable=False),
)

menus = Table(
    "menus",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("code", String(50), nullable=False),  # main, footer, ...
    Column("name", String(200), nullable=False),
    Column("updated_at", DateTime, nullable=False),
    UniqueConstraint("store_id", "code"),
)

menu_items = Table(
    "menu_items",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("menu_id", Integer, ForeignKey("menus.id", ondelete="CASCADE"), nullable=False),
    Column("parent_id", Integer, ForeignKey("menu_items.id", ondelete="CASCADE")),
    Column("label", String(200), nullable=False),
    Column("url", Text),
    Column("position", Integer, nullable=False, default=0),
)

flash_sales = Table(
    "flash_sales",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("name", String(300), nullable=False),
    Column("starts_at", DateTime, nullable=False),
    Column("ends_at", DateTime, nullable=False),
    Column("discount_percent", Integer, nullable=False),  # 1..90, applied to the product price
    Column("updated_at", DateTime, nullable=False),
)

flash_sale_products = Table(
    "flash_sale_products",
    metadata,
    store_fk(),
    Column(
        "flash_sale_id", Integer, ForeignKey("flash_sales.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("product_id", Integer, ForeignKey("products.id", ondelete="CASCADE"), primary_key=True),
    Column("position", Integer, nullable=False, default=0),
    Index("ix_flash_sale_products_product", "product_id"),
)

promotions = Table(
    "promotions",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("text", Text, nullable=False),
    Column("link_url", Text),
    Column("visible", Boolean, nullable=False, default=True),
    Column("position", Integer, nullable=False, default=0),
)

custom_variables = Table(
    "custom_variables",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("key", String(200), nullable=False),
    Column("value", Text, nullable=False),
    UniqueConstraint("store_id", "key"),
)

# Merchant-chosen paths: path -> (target_type, target_id). target_type is one of
# product, category, collection, article, cms_page. A collection's page lives only here.
custom_paths = Table(
    "custom_paths",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("path", Text, nullable=False),
    Column("target_type", String(20), nullable=False),
    Column("target_id", Integer, nullable=False),
    *_timestamps(),
    UniqueConstraint("store_id", "path"),
)
