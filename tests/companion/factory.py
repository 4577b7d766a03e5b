"""Small fixture stores written straight into a real companion database.

``Shop`` inserts one row per call with sensible defaults and returns its id, so a test states
only what it is about: ``shop.product("Áo thun", price=150_000)``.
"""

from __future__ import annotations

from datetime import datetime
from itertools import count
from typing import Any

from sqlalchemy import Engine, Table, insert

from companion.db import schema
from companion.keys.lifecycle import create_key
from companion.text import fold


class Shop:
    """One store in ``engine``; ``now`` is the default for every timestamp."""

    def __init__(self, engine: Engine, now: datetime, name: str = "Cửa hàng Mẫu") -> None:
        self.engine = engine
        self.now = now
        self._seq = count(1)
        self.store_id = self._insert(
            schema.stores,
            name=name,
            logo_url="/logo.png",
            email="shop@example.vn",
            phone="0900000000",
            address="1 Lê Lợi, Quận 1",
            social={"facebook": "https://facebook.com/shop"},
            created_at=now,
        )

    def _insert(self, table: Table, **values: Any) -> int:
        with self.engine.begin() as conn:
            result = conn.execute(insert(table).values(**values))
        key = result.inserted_primary_key
        first = key[0] if key is not None else None
        return first if isinstance(first, int) else 0  # link tables have no integer id

    def _owned(self, table: Table, **values: Any) -> int:
        return self._insert(table, store_id=self.store_id, **values)

    def _slug(self, prefix: str) -> str:
        return f"{prefix}-{next(self._seq)}"

    def key(self, name: str = "") -> str:
        with self.engine.begin() as conn:
            _, key = create_key(conn, self.store_id, now=self.now, name=name)
        return key

    def host(self, host: str) -> None:
        self._owned(schema.store_hosts, host=host)

    def brand(self, name: str) -> int:
        return self._owned(schema.brands, name=name)

    def category(self, name: str = "Áo", **values: Any) -> int:
        slug = values.pop("slug", None) or self._slug("danh-muc")
        defaults = {"url": f"/{slug}", "created_at": self.now, "updated_at": self.now}
        return self._owned(schema.categories, name=name, slug=slug, **{**defaults, **values})

    def product(self, name: str = "Áo thun", **values: Any) -> int:
        slug = values.pop("slug", None) or self._slug("san-pham")
        defaults = {
            "url": f"/{slug}",
            "price": 100_000,
            "created_at": self.now,
            "updated_at": self.now,
            "published_at": self.now,
        }
        return self._owned(
            schema.products,
            name=name,
            search_name=fold(name),
            slug=slug,
            **{**defaults, **values},
        )

    def variant(self, product_id: int, name: str = "M", **values: Any) -> int:
        defaults = {"options": {"Kích cỡ": name}, "updated_at": self.now}
        return self._owned(
            schema.variants, product_id=product_id, name=name, **{**defaults, **values}
        )

    def image(self, product_id: int, url: str, alt: str | None = None, position: int = 0) -> int:
        return self._owned(
            schema.product_images, product_id=product_id, url=url, alt=alt, position=position
        )

    def file_under(self, product_id: int, category_id: int) -> None:
        self._owned(schema.product_categories, product_id=product_id, category_id=category_id)

    def collection(self, name: str = "Bộ sưu tập", **values: Any) -> int:
        slug = values.pop("slug", None) or self._slug("bo-suu-tap")
        defaults = {"created_at": self.now, "updated_at": self.now}
        return self._owned(schema.collections, name=name, slug=slug, **{**defaults, **values})

    def collect(self, collection_id: int, product_id: int, position: int = 0) -> None:
        self._owned(
            schema.collection_products,
            collection_id=collection_id,
            product_id=product_id,
            position=position,
        )

    def article(self, title: str = "Bài viết", **values: Any) -> int:
        slug = values.pop("slug", None) or self._slug("bai")
        defaults = {"published_at": self.now, "created_at": self.now, "updated_at": self.now}
        return self._owned(
            schema.articles,
            title=title,
            search_title=fold(title),
            slug=slug,
            **{**defaults, **values},
        )

    def article_category(self, name: str = "Tin tức", **values: Any) -> int:
        slug = values.pop("slug", None) or self._slug("chuyen-muc")
        return self._owned(schema.article_categories, name=name, slug=slug, **values)

    def tag(self, name: str, slug: str | None = None) -> int:
        return self._owned(schema.article_tags, name=name, slug=slug or self._slug("the"))

    def link_article(
        self, article_id: int, *, category: int | None = None, tag: int | None = None
    ) -> None:
        if category is not None:
            self._owned(schema.article_category_links, article_id=article_id, category_id=category)
        if tag is not None:
            self._owned(schema.article_tag_links, article_id=article_id, tag_id=tag)

    def page(self, title: str = "Giới thiệu", **values: Any) -> int:
        slug = values.pop("slug", None) or self._slug("trang")
        defaults = {"url": f"/{slug}", "created_at": self.now, "updated_at": self.now}
        return self._owned(schema.pages, title=title, slug=slug, **{**defaults, **values})

    def banner(self, title: str = "Khuyến mãi", **values: Any) -> int:
        defaults = {
            "image_url": "/b.jpg",
            "location_code": "home_hero",
            "starts_at": self.now,
            "updated_at": self.now,
        }
        return self._owned(schema.banners, title=title, **{**defaults, **values})

    def menu(self, code: str = "main", name: str = "Menu chính") -> int:
        return self._owned(schema.menus, code=code, name=name, updated_at=self.now)

    def menu_item(self, menu_id: int, label: str, **values: Any) -> int:
        return self._owned(schema.menu_items, menu_id=menu_id, label=label, **values)

    def flash_sale(
        self, starts_at: datetime, ends_at: datetime, discount: int, **values: Any
    ) -> int:
        return self._owned(
            schema.flash_sales,
            name=values.pop("name", "Giờ vàng"),
            starts_at=starts_at,
            ends_at=ends_at,
            discount_percent=discount,
            updated_at=self.now,
            **values,
        )

    def put_on_sale(self, sale_id: int, product_id: int, position: int = 0) -> None:
        self._owned(
            schema.flash_sale_products,
            flash_sale_id=sale_id,
            product_id=product_id,
            position=position,
        )

    def promotion(self, text: str, **values: Any) -> int:
        return self._owned(schema.promotions, text=text, **values)

    def variable(self, key: str, value: str) -> int:
        return self._owned(schema.custom_variables, key=key, value=value)

    def custom_path(self, path: str, target_type: str, target_id: int) -> int:
        return self._owned(
            schema.custom_paths,
            path=path,
            target_type=target_type,
            target_id=target_id,
            created_at=self.now,
            updated_at=self.now,
        )
