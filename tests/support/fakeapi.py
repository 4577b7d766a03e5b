"""A small, data-driven implementation of the storefront public API for httpx.MockTransport.

It serves ``FakeData`` (canonical wire records: integer prices, naive UTC timestamps) through
the spec's endpoints, and ``Quirks`` switch on every liberty another implementation of the spec
may take: opaque cursors full of ``|``, ``:``, ``+`` and spaces; money as strings; optional
fields missing or null; empty-string urls; timestamps with Z, an offset or fractions; sitemap
items as bare strings; endpoints that do not exist (404); 5xx answers; 429 with Retry-After;
a server-side rate limit on a virtual clock; a cursor that repeats.

Every request is logged with the virtual time it arrived at, so tests can check what was sent,
verbatim, and when. Nothing here knows about the generator.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote

import httpx

from generator.client import ManualTimer

BASE_URL = "http://fake.test/public/v1"
KEY = "pk_live_fake"

Record = dict[str, Any]

MONEY_FIELDS = ("price", "effective_price", "compare_at_price")
TIME_FIELDS = ("updated_at", "published_at", "starts_at", "ends_at")
#: Fields a minimal implementation may leave out entirely (drop_optional).
OPTIONAL_FIELDS = frozenset(
    {
        "compare_at_price", "effective_price", "image_url", "in_stock", "category_id",
        "brand_id", "updated_at", "description_html", "images", "category_ids", "brand", "sku",
        "meta_title", "meta_description", "published_at", "cover_image_url", "product_count",
        "excerpt", "categories", "tags", "author_name", "content_html", "stock", "options",
        "logo_url", "email", "phone", "address", "social", "currency_code", "locale",
        "link_url", "starts_at", "ends_at", "position", "location_code", "article_count",
    }
)  # fmt: skip


@dataclass
class Quirks:
    #: Cursors like "2026-11-20 03:04:05+07:00|<n>:a b" instead of plain numbers.
    tricky_cursors: bool = False
    #: Money fields as strings ("120000.00").
    money_as_string: bool = False
    #: Optional fields left out of every record.
    drop_optional: bool = False
    #: Null urls sent as "" (or "  ").
    empty_string_urls: bool = False
    #: "naive" (the spec), "z", "offset" (+07:00) or "fraction".
    timestamp_style: str = "naive"
    #: /sitemap/{section} items as bare path strings.
    bare_sitemap_items: bool = False
    #: Largest page size; small values force cursor walks.
    max_limit: int = 100
    #: Endpoint templates answering 404, e.g. "/flash-sales", "/products/{id}".
    missing: set[str] = field(default_factory=set)
    #: Exact request paths answering 500 this many times before they work.
    failures: dict[str, int] = field(default_factory=dict)
    #: Request numbers (1-based) answered 429 with this Retry-After.
    rate_limit_at: dict[int, float] = field(default_factory=dict)
    #: Send Retry-After only in the body (retry_after), not as a header.
    retry_after_in_body: bool = False
    #: Server-side rate windows ((limit, seconds), ...), sliding, on the virtual clock.
    windows: tuple[tuple[int, float], ...] = ()
    #: List paths whose every page answers the same next_cursor.
    repeat_cursor: set[str] = field(default_factory=set)
    #: Exact paths answered by a custom handler.
    overrides: dict[str, Callable[[httpx.Request], httpx.Response]] = field(default_factory=dict)


@dataclass
class FakeData:
    store: Record
    categories: list[Record]  # flat, with parent_id; the tree shows two levels
    products: list[Record]  # detail records; "_collections" lists collection ids
    variants: dict[int, list[Record]]
    collections: list[Record]
    articles: list[Record]
    article_categories: list[Record]
    tags: list[Record]
    pages: list[Record]
    banners: list[Record]
    menus: list[Record]
    promotions: list[Record]
    custom_variables: list[Record]
    flash_sales: list[Record]  # "_products" lists product ids
    routes: dict[str, tuple[str, int]]  # custom paths -> (type, id)
    collections_listed: int = 200  # /collections serves at most this many
    payment_methods: list[Record] = field(
        default_factory=lambda: [
            {"code": "cod", "name": "Thanh toán khi nhận hàng (COD)", "online": False},
            {"code": "vnpay", "name": "VNPay", "online": True},
        ]
    )


@dataclass(frozen=True)
class Logged:
    path: str  # without the /public/v1 prefix
    params: dict[str, str]
    at: float
    status: int
    headers: dict[str, str]


class FakeApi:
    def __init__(
        self, data: FakeData, quirks: Quirks | None = None, timer: ManualTimer | None = None
    ) -> None:
        self.data = data
        self.quirks = quirks or Quirks()
        self.timer = timer or ManualTimer()
        self.log: list[Logged] = []
        self.blocked_until = float("-inf")
        self.sent_inside_block = 0
        self._accepted: list[float] = []
        self._cursors: dict[str, int] = {}
        self._failures = dict(self.quirks.failures)

    # --- plumbing -----------------------------------------------------------------------------

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=self.transport(), base_url=BASE_URL)

    def paths(self) -> list[str]:
        return [entry.path for entry in self.log]

    def requests_to(self, template: str) -> list[Logged]:
        pattern = _template_regex(template)
        return [entry for entry in self.log if pattern.fullmatch(entry.path)]

    def handle(self, request: httpx.Request) -> httpx.Response:
        path = unquote(request.url.raw_path.decode().split("?", 1)[0])
        path = path.removeprefix("/public/v1")
        params = dict(request.url.params)
        now = self.timer.now()
        response = self._answer(request, path, params, now)
        self.log.append(Logged(path, params, now, response.status_code, dict(request.headers)))
        return response

    def _answer(
        self, request: httpx.Request, path: str, params: dict[str, str], now: float
    ) -> httpx.Response:
        number = len(self.log) + 1
        if now < self.blocked_until:
            self.sent_inside_block += 1
        if request.headers.get("X-Service-Key") != KEY:
            return _problem(401, "invalid_key", "the publishable key is not valid")
        if number in self.quirks.rate_limit_at:
            return self._too_many(self.quirks.rate_limit_at[number], now)
        if self.quirks.windows:
            for limit, seconds in self.quirks.windows:
                recent = [t for t in self._accepted if t > now - seconds]
                if len(recent) >= limit:
                    return self._too_many(recent[len(recent) - limit] + seconds - now, now)
            self._accepted.append(now)
        if path in self.quirks.overrides:
            return self.quirks.overrides[path](request)
        if self._failures.get(path, 0) > 0:
            self._failures[path] -= 1
            return _problem(500, "internal", "something broke")
        for template in self.quirks.missing:
            if _template_regex(template).fullmatch(path):
                return _problem(404, "not_found", f"{path} was not found")
        try:
            body = self._route(path, params)
        except _NotFound as exc:
            return _problem(404, "not_found", str(exc))
        except _Unprocessable as exc:
            return _problem(422, "validation_error", f"cursor: unknown cursor {exc}")
        return httpx.Response(200, json=body)

    def _too_many(self, retry_after: float, now: float) -> httpx.Response:
        self.blocked_until = max(self.blocked_until, now + retry_after)
        headers = {} if self.quirks.retry_after_in_body else {"Retry-After": f"{retry_after:g}"}
        body = {"status": 429, "code": "rate_limited", "detail": "slow down"}
        body["retry_after"] = retry_after
        return httpx.Response(429, json=body, headers=headers)

    # --- routes -------------------------------------------------------------------------------

    def _route(self, path: str, params: dict[str, str]) -> object:
        d = self.data
        segments = path.strip("/").split("/")
        match segments:
            case ["store"]:
                return self._wire(d.store)
            case ["menus"]:
                return self._envelope(d.menus)
            case ["categories", "tree"]:
                return self._envelope(self._tree())
            case ["categories"]:
                parent = params.get("parent")
                rows = [
                    c for c in d.categories
                    if (c["parent_id"] is None if parent is None else str(c["parent_id"]) == parent)
                ]  # fmt: skip
                return self._envelope(rows[: self._limit(params)])
            case ["categories", "by-slug", slug]:
                return self._wire(self._one(d.categories, "slug", slug, "category"))
            case ["categories", ident]:
                return self._wire(self._one(d.categories, "id", int(ident), "category"))
            case ["categories", ident, "breadcrumb"]:
                return self._envelope(self._breadcrumb(int(ident)))
            case ["categories", ident, "subcategories"]:
                children = [c for c in d.categories if c["parent_id"] == int(ident)]
                return self._envelope(children)
            case ["collections"]:
                listed = d.collections[: d.collections_listed]
                return self._envelope(listed[: min(int(params.get("limit", 20)), 200)])
            case ["collections", "by-slug", slug]:
                return self._wire(self._one(d.collections, "slug", slug, "collection"))
            case ["article-categories"]:
                return self._envelope(d.article_categories)
            case ["article-tags"]:
                return self._envelope(d.tags)
            case ["promotions"]:
                return self._envelope(d.promotions)
            case ["banners"]:
                return self._envelope(d.banners)
            case ["custom-variables"]:
                return self._envelope(d.custom_variables)
            case ["checkout", "payment-methods"]:
                return self._envelope(d.payment_methods)
            case ["products"]:
                return self._page(path, self._products(params), params)
            case ["products", ident]:
                return self._wire(self._one(d.products, "id", int(ident), "product"))
            case ["products", ident, "variants"]:
                self._one(d.products, "id", int(ident), "product")
                return self._page(path, d.variants.get(int(ident), []), params)
            case ["articles"]:
                return self._page(path, d.articles, params)
            case ["articles", "by-slug", slug]:
                return self._wire(self._one(d.articles, "slug", slug, "article"))
            case ["pages", ident]:
                return self._wire(self._one(d.pages, "id", int(ident), "page"))
            case ["flash-sales"]:
                return self._envelope(d.flash_sales)
            case ["flash-sales", ident, "products"]:
                sale = self._one(d.flash_sales, "id", int(ident), "flash sale")
                cards = [p for p in d.products if p["id"] in sale["_products"]]
                return self._envelope(cards[: self._limit(params)])
            case ["routes", "resolve"]:
                kind, ident = self._resolve(params.get("path", ""))
                return {"type": kind, "id": ident}
            case ["sitemap"]:
                return {"sections": [{"name": n, "count": len(p)} for n, p in self._sitemap()]}
            case ["sitemap", section]:
                paths = dict(self._sitemap()).get(section)
                if paths is None:
                    raise _NotFound(f"sitemap section {section}")
                items: list[object] = (
                    list(paths)
                    if self.quirks.bare_sitemap_items
                    else [{"path": p, "updated_at": "2026-11-20T03:04:05"} for p in paths]
                )
                return self._page(path, items, params, raw=True)
        raise _NotFound(f"no route {path}")

    def _products(self, params: dict[str, str]) -> list[Record]:
        rows = list(self.data.products)
        if "category" in params:
            wanted = int(params["category"])
            rows = [p for p in rows if wanted in p.get("category_ids", [p["category_id"]])]
        if "collection" in params:
            rows = [p for p in rows if int(params["collection"]) in p.get("_collections", [])]
        if params.get("sort") == "newest":
            rows.sort(key=lambda p: p.get("published_at") or "", reverse=True)
        return rows

    def _tree(self) -> list[Record]:
        tops = [c for c in self.data.categories if c["parent_id"] is None]
        result = []
        for top in tops:
            children = [dict(c) for c in self.data.categories if c["parent_id"] == top["id"]]
            result.append({**top, "children": children})
        return result

    def _breadcrumb(self, ident: int) -> list[Record]:
        chain = []
        current: int | None = ident
        while current is not None:
            row = self._one(self.data.categories, "id", current, "category")
            chain.append({"id": row["id"], "name": row["name"], "url": row["url"]})
            current = row["parent_id"]
        return list(reversed(chain))

    def _resolve(self, path: str) -> tuple[str, int]:
        if path in self.data.routes:
            return self.data.routes[path]
        for kind, rows in (
            ("product", self.data.products),
            ("category", self.data.categories),
            ("cms_page", self.data.pages),
        ):
            for row in rows:
                if row.get("url") == path:
                    return kind, row["id"]
        for row in self.data.articles:
            if f"/bai-viet/{row['slug']}" == path:
                return "article", row["id"]
        raise _NotFound(f"nothing at {path}")

    def _sitemap(self) -> list[tuple[str, list[str]]]:
        d = self.data
        collection_paths = [p for p, (kind, _) in d.routes.items() if kind == "collection"]
        return [
            ("products", [p["url"] for p in d.products if p.get("url")]),
            ("categories", [c["url"] for c in d.categories if c.get("url")]),
            ("collections", collection_paths),
            ("articles", [f"/bai-viet/{a['slug']}" for a in d.articles]),
            ("pages", [p["url"] for p in d.pages if p.get("url")]),
        ]

    # --- envelopes and quirks ----------------------------------------------------------------

    def _limit(self, params: dict[str, str]) -> int:
        return max(1, min(int(params.get("limit", 20)), self.quirks.max_limit))

    def _envelope(self, rows: Iterable[Record]) -> Record:
        return {"items": [self._wire(r) for r in rows], "next_cursor": None, "has_more": False}

    def _page(
        self, path: str, rows: list[Any], params: dict[str, str], *, raw: bool = False
    ) -> Record:
        start = 0
        if "cursor" in params:
            if params["cursor"] not in self._cursors:
                raise _Unprocessable(params["cursor"])
            start = self._cursors[params["cursor"]]
        end = start + self._limit(params)
        items = rows[start:end]
        has_more = end < len(rows)
        cursor = None
        if has_more:
            # A broken implementation answers the first page's cursor again and again.
            repeat = path in self.quirks.repeat_cursor
            cursor = self._cursor(self._limit(params) if repeat else end)
        return {
            "items": items if raw else [self._wire(r) for r in items],
            "next_cursor": cursor,
            "has_more": has_more,
        }

    def _cursor(self, offset: int) -> str:
        if self.quirks.tricky_cursors:
            cursor = f"2026-11-20 03:04:05+07:00|{offset}:a b"
        else:
            cursor = f"2026-11-20T03:04:05|{offset}"
        self._cursors.setdefault(cursor, offset)
        return cursor

    def _one(self, rows: list[Record], key: str, value: object, what: str) -> Record:
        for row in rows:
            if row.get(key) == value:
                return row
        raise _NotFound(f"{what} {value} was not found")

    def _wire(self, record: Record) -> Record:
        """A record as this implementation sends it, quirks applied."""
        out: Record = {}
        for key, value in copy.deepcopy(record).items():
            if key.startswith("_"):
                continue
            if self.quirks.drop_optional and key in OPTIONAL_FIELDS:
                continue
            if key in MONEY_FIELDS and isinstance(value, int) and self.quirks.money_as_string:
                value = f"{value}.00"
            if key in TIME_FIELDS and isinstance(value, str):
                value = _timestamp(value, self.quirks.timestamp_style)
            if key == "url" and value is None and self.quirks.empty_string_urls:
                value = "  "
            if key == "children" and isinstance(value, list):
                value = [self._wire(child) for child in value]
            out[key] = value
        return out


class _NotFound(Exception):
    pass


class _Unprocessable(Exception):
    pass


def _problem(status: int, code: str, detail: str) -> httpx.Response:
    body = {"type": "about:blank", "title": code, "status": status, "detail": detail, "code": code}
    return httpx.Response(
        status, content=json.dumps(body), headers={"Content-Type": "application/problem+json"}
    )


def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(template)))


def _timestamp(value: str, style: str) -> str:
    when = datetime.fromisoformat(value)
    if style == "z":
        return when.isoformat() + "Z"
    if style == "fraction":
        return when.isoformat() + ".250000"
    if style == "offset":
        return (when + timedelta(hours=7)).isoformat() + "+07:00"
    return when.isoformat()


# --- a small store ----------------------------------------------------------------------------


def small_store(products: int = 12) -> FakeData:
    """A store with every case the crawl must handle, deterministic and small.

    Categories: two top levels, one with a child and a grandchild (below the tree's two levels),
    one category with a null url. Products: spread over the categories, #2 with a null url, #3
    with no price, one reached through a custom path. Collections: 10 listed and 11 found only
    by slug (the 200-scan limit, scaled down) plus one found by neither. CMS pages only reachable
    through the sitemap, a menu, or a banner. A menu link to a path that resolves to nothing.
    """
    ts = "2026-11-20T03:04:05"
    categories = [
        _category(1, None, "Áo", "/ao"),
        _category(2, None, "Quần", "/quan"),
        _category(3, 1, "Áo thun", "/ao/ao-thun"),
        _category(4, 3, "Áo thun cổ tròn", "/ao/ao-thun/co-tron"),
        _category(5, 2, "Quần ẩn", None),
    ]
    category_cycle = [1, 2, 3, 4]
    product_rows = []
    for number in range(1, products + 1):
        category_id = category_cycle[(number - 1) % len(category_cycle)]
        product_rows.append(
            {
                "id": number,
                "name": f"Sản phẩm {number}",
                "slug": f"san-pham-{number}",
                "url": None if number == 2 else f"/san-pham-{number}",
                "price": None if number == 3 else 100_000 + number * 1_000,
                "effective_price": None if number == 3 else 90_000 + number * 1_000,
                "compare_at_price": None,
                "image_url": f"https://cdn.test/p{number}.jpg",
                "in_stock": number % 5 != 0,
                "category_id": category_id,
                "brand_id": 1,
                "updated_at": ts,
                "description_html": f"<p>Mô tả {number}</p>",
                "images": [{"url": f"https://cdn.test/p{number}.jpg", "alt": f"Ảnh {number}"}],
                "category_ids": [category_id],
                "brand": {"id": 1, "name": "Sài Gòn"},
                "sku": f"SKU-{number}",
                "meta_title": None,
                "meta_description": None,
                "published_at": f"2026-11-{(number % 28) + 1:02d}T03:04:05",
                "_collections": [1 + number % 3, 12],
            }
        )
    variants = {
        p["id"]: [
            {
                "id": p["id"] * 10 + size,
                "product_id": p["id"],
                "sku": f"SKU-{p['id']}-{size}",
                "name": f"Size {size}",
                "options": {"Size": str(size)},
                "price": p["price"],
                "effective_price": p["effective_price"],
                "compare_at_price": None,
                "in_stock": True,
                "stock": 5,
                "image_url": None,
            }
            for size in (1, 2)
        ]
        for p in product_rows
    }
    collections = [
        {
            "id": ident,
            "name": f"Bộ sưu tập {ident}",
            "slug": f"bo-suu-tap-{ident}",
            "description_html": None,
            "image_url": None,
            "updated_at": ts,
        }
        for ident in range(1, 22)
    ]
    article_categories = [{"id": 1, "name": "Tin tức", "slug": "tin-tuc"}]
    articles = [
        {
            "id": ident,
            "title": f"Bài viết {ident}",
            "slug": f"bai-{ident}",
            "excerpt": "Tóm tắt",
            "cover_image_url": None,
            "published_at": ts,
            "updated_at": ts,
            "categories": article_categories if ident != 3 else [],
            "tags": [{"name": "Mẹo", "slug": "meo"}],
            "content_html": f"<p>Nội dung {ident}</p>",
            "author_name": "Lan",
            "meta_title": None,
            "meta_description": None,
        }
        for ident in (1, 2, 3)
    ]
    pages = [
        _page(1, "Giới thiệu", "/trang/gioi-thieu"),
        _page(2, "Liên hệ", "/trang/lien-he"),
        _page(3, "Chính sách", "/trang/chinh-sach"),
    ]
    routes: dict[str, tuple[str, int]] = {
        "/gioi-thieu-cong-ty": ("cms_page", 1),
        "/ao-dep": ("product", 4),
        "/bo-suu-tap/he": ("collection", 1),
        "/bo-suu-tap/bo-suu-tap-15": ("collection", 15),
        "/bo-suu-tap/mat-tich": ("collection", 99),
    }
    menus = [
        {
            "id": 1,
            "code": "main",
            "name": "Chính",
            "items": [
                {"label": "Áo", "url": "/ao", "children": []},
                {"label": "Giới thiệu", "url": "/gioi-thieu-cong-ty", "children": []},
                {"label": "Khuyến mãi", "url": "/khuyen-mai?utm=menu", "children": []},
                {"label": "Ngoài", "url": "https://example.com/x", "children": []},
                {"label": "Không link", "url": None, "children": []},
            ],
        }
    ]
    banners = [
        {
            "id": 1,
            "title": "Hè",
            "image_url": "https://cdn.test/b1.jpg",
            "link_url": "/bo-suu-tap/he",
            "location_code": "home",
            "position": 2,
            "starts_at": ts,
            "ends_at": None,
        },
        {
            "id": 2,
            "title": "Áo đẹp",
            "image_url": "https://cdn.test/b2.jpg",
            "link_url": "/ao-dep",
            "location_code": "home",
            "position": 1,
            "starts_at": None,
            "ends_at": None,
        },
    ]
    return FakeData(
        store={
            "name": "Cửa hàng thử",
            "logo_url": "https://cdn.test/logo.png",
            "email": "a@b.test",
            "phone": "028 0000 0000",
            "address": "1 Lê Lợi",
            "social": {"facebook": "https://facebook.com/x", "zalo": None},
            "currency_code": "VND",
            "locale": "vi",
        },
        categories=categories,
        products=product_rows,
        variants=variants,
        collections=collections,
        articles=articles,
        article_categories=article_categories,
        tags=[{"name": "Mẹo", "slug": "meo", "article_count": 3}],
        pages=pages,
        banners=banners,
        menus=menus,
        promotions=[{"id": 1, "text": "Miễn phí giao hàng", "link_url": "/trang/chinh-sach"}],
        custom_variables=[{"key": "hotline", "value": "1900 0000"}],
        flash_sales=[
            {
                "id": 1,
                "name": "Giờ vàng",
                "starts_at": ts,
                "ends_at": "2026-11-21T03:04:05",
                "status": "running",
                "_products": [1, 4],
            }
        ],
        routes=routes,
        collections_listed=10,
    )


def _category(ident: int, parent: int | None, name: str, url: str | None) -> Record:
    return {
        "id": ident,
        "parent_id": parent,
        "name": name,
        "slug": f"danh-muc-{ident}",
        "url": url,
        "description_html": None,
        "cover_image_url": None,
        "image_url": f"https://cdn.test/c{ident}.jpg",
        "product_count": 3,
        "meta_title": None,
        "meta_description": None,
        "updated_at": "2026-11-20T03:04:05",
    }


def _page(ident: int, title: str, url: str) -> Record:
    return {
        "id": ident,
        "title": title,
        "slug": url.rsplit("/", 1)[-1],
        "url": url,
        "content_html": f"<p>{title}</p>",
        "meta_title": None,
        "meta_description": None,
        "updated_at": "2026-11-20T03:04:05",
    }
