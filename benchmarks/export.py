"""A store's catalogue, read through the public API as any client could, for the Hugo site of
the peer benchmark (benchmarks/hugo_site/):
``python -m benchmarks.export --api-url URL --key KEY --out DIR``.

It asks only documented endpoints (plain httpx, the key in X-Service-Key): the store context,
the category tree, every product card (GET /products), each product's detail, the sitemap's
sections, every path nothing listed explains (GET /routes/resolve: CMS pages, collections,
custom paths), each category's and collection's product walk, and every article. From that it
writes the site's page set the way `storefront build` plans it: one page per product, article
and CMS page, every listing cut into pages of the same size (products 48, collections 48,
articles 12) under ``<path>/trang/<n>``, a listing shown again at a custom path (only its first
page when its own page exists), the all-products listing and the collections index.

DIR gets four JSON files the Hugo site mounts: site.json (store, menus, footer, home blocks),
products.json (every listed product: card and detail), articles.json and pages.json (every
other page: listings page by page, CMS pages, products and articles at custom paths). Hugo does
the rendering: card lookups, menus, breadcrumbs, structured data and the sitemap.
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, unquote

import anyio
import httpx

T = TypeVar("T")
Json = dict[str, Any]

PRODUCTS_PER_PAGE = 48
COLLECTIONS_PER_PAGE = 48
ARTICLES_PER_PAGE = 12
LIST_LIMIT = 100
CONCURRENCY = 16
ALL_PRODUCTS_PATH = "/san-pham"
COLLECTIONS_PATH = "/bo-suu-tap"
ARTICLES_PATH = "/bai-viet"
SECTIONS = ("products", "categories", "collections", "articles", "pages")


class ExportError(Exception):
    """An answer the exporter cannot use; the message names the endpoint."""


class Api:
    """GET with the key, JSON out, a clear error naming the endpoint otherwise."""

    def __init__(self, http: httpx.AsyncClient, key: str) -> None:
        self.http = http
        self.key = key
        self.requests = 0
        self.limit = anyio.Semaphore(CONCURRENCY)

    async def get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        async with self.limit:
            self.requests += 1
            answer = await self.http.get(path, params=params, headers={"X-Service-Key": self.key})
        if answer.status_code == 404:
            return None
        if answer.status_code != 200:
            raise ExportError(f"GET {path}: HTTP {answer.status_code}")
        try:
            return answer.json()
        except ValueError:
            raise ExportError(f"GET {path}: the answer is not JSON") from None

    async def walk(self, path: str, params: dict[str, Any] | None = None) -> list[Any]:
        """Every item of a cursor-paginated list."""
        items: list[Any] = []
        cursor: str | None = None
        while True:
            query = {**(params or {}), "limit": LIST_LIMIT}
            if cursor:
                query["cursor"] = cursor
            page = await self.get(path, query)
            if not isinstance(page, dict) or not isinstance(page.get("items"), list):
                raise ExportError(f"GET {path}: not a list envelope")
            items += page["items"]
            cursor = page.get("next_cursor")
            if not page.get("has_more") or not cursor:
                return items


async def gather(items: Iterable[T], work: Callable[[T], Awaitable[Any]]) -> list[Any]:
    """``work`` over ``items`` concurrently (the Api bounds the requests), results in order."""
    todo = list(items)
    results: list[Any] = [None] * len(todo)

    async def one(index: int, item: T) -> None:
        results[index] = await work(item)

    try:
        async with anyio.create_task_group() as group:
            for index, item in enumerate(todo):
                group.start_soon(one, index, item)
    except* ExportError as group:  # the first bad answer, not a group of them
        raise group.exceptions[0] from None
    return results


def key_of(path: str) -> str:
    """Two spellings of one path share it: percent-decoded, NFC, no trailing slash."""
    return unicodedata.normalize("NFC", unquote(path)).rstrip("/") or "/"


def internal(link: str | None) -> str | None:
    if not link or not link.startswith("/") or link.startswith("//"):
        return None
    return link.split("#", 1)[0].split("?", 1)[0] or None


def page_path(listing: str, number: int) -> str:
    return listing if number == 1 else f"{listing.rstrip('/')}/trang/{number}"


def chunks(items: list[T], size: int) -> list[list[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


async def export_store(api: Api) -> dict[str, Any]:
    """The site's data: what Hugo needs to render every page ``storefront build`` does."""
    store, menus, tree, banners, promotions, sections = await gather(
        ["/store", "/menus", "/categories/tree", "/banners", "/promotions", "/sitemap"], api.get
    )
    cards = await api.walk("/products")
    names = [s["name"] for s in (sections or {}).get("sections", []) if s["name"] in SECTIONS]
    sitemap = dict(
        zip(names, await gather(names, lambda n: api.walk(f"/sitemap/{n}")), strict=True)
    )
    summaries = await api.walk("/articles")

    categories = list(_flatten(tree["items"]))
    # Details of the products with a page: a product without url is a card in the listings.
    details = await gather(
        cards, lambda card: api.get(f"/products/{card['id']}") if card.get("url") else _none()
    )
    products = [{**card, **(detail or {})} for card, detail in zip(cards, details, strict=True)]
    articles = await gather(
        summaries, lambda s: api.get(f"/articles/by-slug/{quote(s['slug'], safe='')}")
    )
    articles = [
        {**s, **(a or {}), "path": f"{ARTICLES_PATH}/{s['slug']}"}
        for s, a in zip(summaries, articles, strict=True)
    ]

    # Paths nothing listed explains go to /routes/resolve: CMS pages, collections, custom paths.
    known = {key_of(p["url"]) for p in products if p.get("url")}
    known |= {key_of(c["url"]) for c in categories if c.get("url")}
    known |= {key_of(a["path"]) for a in articles}
    candidates = [item["path"] for name in names for item in sitemap[name]]
    candidates += _context_links(menus, banners, promotions)
    unexplained: list[str] = []
    for link in candidates:
        path = internal(link)
        if path and key_of(path) not in known:
            known.add(key_of(path))
            unexplained.append(path)
    targets = await gather(unexplained, lambda p: api.get("/routes/resolve", {"path": p}))
    routes = [(p, t["type"], t["id"]) for p, t in zip(unexplained, targets, strict=True) if t]

    cms_ids = list(dict.fromkeys(i for _, kind, i in routes if kind == "cms_page"))
    cms = {i: p for i, p in zip(cms_ids, await gather(cms_ids, _cms(api)), strict=True) if p}
    collections = await _collections(api, routes, sitemap.get("collections", []))
    listed = await gather(
        [("category", c["id"]) for c in categories if c.get("url")]
        + [("collection", c["id"]) for c in collections.values()],
        lambda what: api.walk("/products", {what[0]: what[1]}),
    )
    members = iter(listed)
    category_ids = {c["id"]: [p["id"] for p in next(members)] for c in categories if c.get("url")}
    collection_ids = {i: [p["id"] for p in next(members)] for i in collections}

    site = _Site(store, categories, products, articles, cms, collections)
    pages: list[Json] = []
    for c in categories:
        if c.get("url"):
            pages += site.listing("category", c, c["url"], category_ids[c["id"]])
    for i, c in collections.items():
        pages += site.listing("collection", c, c["path"], collection_ids[i])
    pages += site.article_lists()
    pages += [site.cms_page(p, p["url"]) for p in cms.values() if p.get("url")]
    pages += site.custom(routes, category_ids, collection_ids)
    taken = {key_of(p["path"]) for p in pages}
    taken |= {key_of(p["url"]) for p in products if p.get("url")}
    taken |= {key_of(a["path"]) for a in articles}
    for listing in (site.all_products(), site.collection_index()):
        if listing and key_of(listing[0]["path"]) not in taken:
            pages += listing
            taken |= {key_of(p["path"]) for p in listing}
    nav = next((m for m in menus["items"] if m.get("code") == "main"), None)
    return {
        "site": {
            "store": store,
            "categories": categories,
            "menu": nav["items"] if nav else [],
            "footer": [
                {"title": p["title"], "url": p["url"]} for p in cms.values() if p.get("url")
            ],
            "banners": banners["items"],
            "promotions": promotions["items"],
            "taken": sorted(taken),  # the shells (cart, checkout, ...) step aside for these
            "featured": [p["id"] for p in products[:8]],
            "latest_articles": [a["id"] for a in articles[:4]],
        },
        "products": products,
        "articles": articles,
        "pages": pages,
        "requests": api.requests,
    }


def _flatten(items: list[Json], trail: tuple[Json, ...] = ()) -> Iterable[Json]:
    for item in items:
        crumbs = [{"name": c["name"], "url": c.get("url")} for c in trail]
        yield {**{k: v for k, v in item.items() if k != "children"}, "trail": crumbs}
        yield from _flatten(item.get("children") or [], (*trail, item))


def _context_links(menus: Json, banners: Json, promotions: Json) -> list[str]:
    links: list[str] = []

    def walk(items: list[Json]) -> None:
        for item in items:
            if item.get("url"):
                links.append(item["url"])
            walk(item.get("children") or [])

    for menu in menus["items"]:
        walk(menu["items"])
    links += [b["link_url"] for b in banners["items"] if b.get("link_url")]
    links += [p["link_url"] for p in promotions["items"] if p.get("link_url")]
    return links


async def _none() -> None:
    return None


def _cms(api: Api) -> Callable[[int], Awaitable[Any]]:
    return lambda page_id: api.get(f"/pages/{page_id}")


async def _collections(
    api: Api, routes: list[tuple[str, str, int]], in_sitemap: list[Json]
) -> dict[int, Json]:
    """Each collection a path leads to, by id, at the first path that reaches it (the sitemap's
    paths first): collections have no url and no get-by-id, so a path's last segment is looked
    up by slug, and the /collections list checked when that slug is not the collection's."""
    sitemap_keys = {key_of(i["path"]) for i in in_sitemap}
    paths = [(p, i) for p, kind, i in routes if kind == "collection"]
    paths.sort(key=lambda pair: key_of(pair[0]) not in sitemap_keys)  # stable: sitemap first
    listed = {c["id"]: c for c in (await api.get("/collections", {"limit": LIST_LIMIT}))["items"]}
    found: dict[int, Json] = {}
    slugs = await gather(
        paths,
        lambda pair: api.get(f"/collections/by-slug/{quote(pair[0].rstrip('/').split('/')[-1])}"),
    )
    for (path, wanted), by_slug in zip(paths, slugs, strict=True):
        collection = by_slug if by_slug and by_slug.get("id") == wanted else listed.get(wanted)
        if collection and wanted not in found:
            found[wanted] = {**collection, "path": path}
    return found


class _Site:
    """The page records of the export, as the build plans them (``generator/plan``)."""

    def __init__(
        self,
        store: Json,
        categories: list[Json],
        products: list[Json],
        articles: list[Json],
        cms: dict[int, Json],
        collections: dict[int, Json],
    ) -> None:
        self.store_name = store["name"]
        self.categories = {c["id"]: c for c in categories}
        self.products = [p for p in products if p.get("url")]  # the ones with a page
        self.product_by_id = {p["id"]: p for p in self.products}
        self.articles = articles
        self.article_by_id = {a["id"]: a for a in articles}
        self.cms = cms
        self.collections = collections

    def listing(
        self, kind: str, entity: Json, path: str, ids: list[int], pager: str | None = None
    ) -> list[Json]:
        """A category's or collection's listing page by page at ``path`` (the pager leading
        under ``pager`` instead when given)."""
        trail = entity.get("trail", []) if kind == "category" else []
        parts = chunks(ids, PRODUCTS_PER_PAGE)
        return [
            {
                "path": page_path(path, number),
                "kind": kind,
                "name": entity["name"],
                "description_html": entity.get("description_html"),
                "image_url": entity.get("cover_image_url") or entity.get("image_url"),
                "trail": trail,
                "number": number,
                "count": len(parts),
                "pager": pager or path,
                "products": part,
                "count_all": len(ids),
                "lastmod": entity.get("updated_at"),
            }
            for number, part in enumerate(parts, start=1)
        ]

    def all_products(self) -> list[Json]:
        if not self.products:
            return []
        ids = [p["id"] for p in self.products]
        entity = {"name": "Tất cả sản phẩm"}
        return self.listing("product_list", entity, ALL_PRODUCTS_PATH, ids)

    def collection_index(self) -> list[Json]:
        links = [
            {"name": c["name"], "path": c["path"], "image_url": c.get("image_url")}
            for c in self.collections.values()
        ]
        if not links:
            return []
        parts = chunks(links, COLLECTIONS_PER_PAGE)
        return [
            {
                "path": page_path(COLLECTIONS_PATH, n),
                "kind": "collection_list",
                "name": "Bộ sưu tập",
                "number": n,
                "count": len(parts),
                "pager": COLLECTIONS_PATH,
                "collections": part,
                "trail": [],
            }
            for n, part in enumerate(parts, start=1)
        ]

    def article_lists(self) -> list[Json]:
        if not self.articles:
            return []
        parts = chunks([a["id"] for a in self.articles], ARTICLES_PER_PAGE)
        return [
            {
                "path": page_path(ARTICLES_PATH, n),
                "kind": "article_list",
                "name": "Tin tức",
                "number": n,
                "count": len(parts),
                "pager": ARTICLES_PATH,
                "articles": part,
                "trail": [],
            }
            for n, part in enumerate(parts, start=1)
        ]

    def cms_page(self, page: Json, path: str, canonical: str | None = None) -> Json:
        return {
            "path": path,
            "kind": "cms_page",
            "name": page["title"],
            "content_html": page.get("content_html"),
            "canonical": canonical or path,
            "lastmod": page.get("updated_at"),
            "trail": [],
        }

    def custom(
        self,
        routes: list[tuple[str, str, int]],
        category_ids: dict[int, list[int]],
        collection_ids: dict[int, list[int]],
    ) -> list[Json]:
        """Entities shown again at merchant paths (200, no redirect): a listing only its first
        page, canonical to its own, when it has a page of its own; every page otherwise."""
        pages: list[Json] = []
        seen: set[str] = set()
        for path, kind, entity_id in routes:
            own = self._own_path(kind, entity_id)
            if key_of(path) in seen or (own and key_of(own) == key_of(path)):
                continue
            seen.add(key_of(path))
            if kind == "product" and entity_id in self.product_by_id:
                product = self.product_by_id[entity_id]
                pages.append({"path": path, "kind": "product", "id": entity_id, "canonical": own})
                del product  # the page record names the product; Hugo looks it up
            elif kind == "article" and entity_id in self.article_by_id:
                pages.append({"path": path, "kind": "article", "id": entity_id, "canonical": own})
            elif kind == "cms_page" and entity_id in self.cms:
                pages.append(self.cms_page(self.cms[entity_id], path, own))
            elif kind in ("category", "collection"):
                entity = (self.categories if kind == "category" else self.collections).get(
                    entity_id
                )
                ids = (category_ids if kind == "category" else collection_ids).get(entity_id)
                if entity is None or ids is None:
                    continue
                drafted = self.listing(kind, entity, path, ids, own)
                if own:
                    drafted = [{**drafted[0], "canonical": own, "in_sitemap": False}]
                pages += drafted
        return pages

    def _own_path(self, kind: str, entity_id: int) -> str | None:
        if kind == "product":
            return (self.product_by_id.get(entity_id) or {}).get("url")
        if kind == "category":
            return (self.categories.get(entity_id) or {}).get("url")
        if kind == "collection":
            return (self.collections.get(entity_id) or {}).get("path")
        if kind == "article":
            return (self.article_by_id.get(entity_id) or {}).get("path")
        if kind == "cms_page":
            return (self.cms.get(entity_id) or {}).get("url")
        return None


def write_export(data: dict[str, Any], folder: Path) -> None:
    """One JSON file per part, one record per line."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("site", "products", "articles", "pages"):
        rows = data[name]
        if isinstance(rows, list):
            text = "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n"
        else:
            text = json.dumps(rows, ensure_ascii=False)
        (folder / f"{name}.json").write_text(text, encoding="utf-8")


async def export_to(
    folder: Path, *, api_url: str, key: str, transport: httpx.AsyncBaseTransport | None = None
) -> dict[str, Any]:
    """Read the store at ``api_url`` and write its export into ``folder``; the export."""
    timeout = httpx.Timeout(60.0, connect=10.0)
    async with httpx.AsyncClient(base_url=api_url, transport=transport, timeout=timeout) as http:
        data = await export_store(Api(http, key))
    write_export(data, folder)
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--api-url", required=True, help="…/public/v1")
    parser.add_argument("--key", required=True)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    try:
        data = anyio.run(lambda: export_to(args.out, api_url=args.api_url, key=args.key))
    except (ExportError, httpx.HTTPError) as exc:
        print(f"bench_export: error: {exc}", file=sys.stderr)
        return 1
    print(
        f"exported {len(data['products'])} products, {len(data['articles'])} articles, "
        f"{len(data['pages'])} other pages in {data['requests']} requests"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
