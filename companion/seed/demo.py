"""The demo store (``--seed demo``): a deterministic, believable Vietnamese fashion store.

"Thời Trang Sài Gòn" sells in VND with a Vietnamese locale, and carries every edge case the
public API spec names: products, categories and pages with null url, products with no price,
more than 200 collections, custom paths to a CMS page, a collection and a product, menu items
linking to them, drafts that must not be served. ``products`` scales the catalogue; from 20
products on, every product edge case is present, from 230 on (the default is 300) the
collections past the first 200 too (a smaller store has fewer: ``collections_for``).

Determinism: every section draws from its own ``random.Random`` with a fixed seed, and catalogue
timestamps derive from ``timeline.BASE``; only banners, flash sales, coupons and order promotions
are placed around ``now`` (so something is running whenever the demo is served): the wall clock
unless given, ``timeline.DEMO_NOW`` for a build's in-process demo (``demo_app``). Same
``products`` and ``now``: same rows.

Idempotent: when the database already holds the demo store (found by its publishable key),
nothing is written and the summary of what is there comes back with ``created=False``. When
another store already owns one of the demo's host names, ``SeedError`` is raised.

Everything is written in one transaction with bulk inserts, commerce data included.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime
from itertools import islice

from sqlalchemy import Connection, Engine, func, select

from companion.backoffice.demo_staff import seed_demo_staff
from companion.clock import SystemClock
from companion.db import schema as t
from companion.keys.lifecycle import create_key
from companion.keys.material import hash_key
from companion.seed.bulk import RowWriter
from companion.seed.catalog_rows import CategoryDraft, Shelf, brand_rows, plan_category_tree
from companion.seed.collection_rows import (
    COLLECTION_COUNT,
    FEWEST_COLLECTIONS,
    CollectionDraft,
    collection_product_rows,
    collections_for,
    draft_collections,
)
from companion.seed.commerce import seed_bundle_promotion, seed_commerce
from companion.seed.content_rows import (
    article_category_rows,
    article_link_rows,
    article_tag_rows,
    draft_articles,
    page_rows,
)
from companion.seed.errors import SeedError
from companion.seed.navigation_rows import demo_menus, menu_item_rows, menu_row
from companion.seed.paths import ABOUT_PATH, PRODUCT_ALIAS_PATH, custom_path_rows
from companion.seed.product_rows import (
    ALIAS_PRODUCT,
    ProductFacts,
    category_link_rows,
    draft_products,
    image_rows,
    product_facts,
    variant_rows,
)
from companion.seed.schedule_rows import banner_rows, draft_flash_sales, flash_sale_product_rows
from companion.seed.store_rows import (
    DEMO_HOSTS,
    DEMO_KEY,
    OPENED_AT,
    STORE_NAME,
    custom_variable_rows,
    host_rows,
    promotion_rows,
    store_row,
)
from companion.seed.summary import SeedSummary
from companion.seed.timeline import naive_utc

__all__ = [
    "DEFAULT_PRODUCTS",
    "DEMO_HOSTS",
    "DEMO_KEY",
    "SEEDED_TABLES",
    "SeedError",
    "SeedSummary",
    "seed_demo",
    "seed_demo_on",
]

DEFAULT_PRODUCTS = 300
#: Products drafted and inserted per round: bounds memory at any catalogue size.
PRODUCT_CHUNK = 5_000
#: Slug of the CMS page that ABOUT_PATH leads to.
ABOUT_PAGE = "gioi-thieu"

#: The catalogue tables of a demo store, in seeding order (the summary lists them so).
SEEDED_TABLES = (
    t.stores,
    t.store_hosts,
    t.api_keys,
    t.brands,
    t.categories,
    t.products,
    t.product_images,
    t.variants,
    t.product_categories,
    t.collections,
    t.collection_products,
    t.pages,
    t.article_categories,
    t.article_tags,
    t.articles,
    t.article_category_links,
    t.article_tag_links,
    t.custom_paths,
    t.menus,
    t.menu_items,
    t.banners,
    t.flash_sales,
    t.flash_sale_products,
    t.promotions,
    t.custom_variables,
)


def seed_demo(
    engine: Engine,
    *,
    products: int = DEFAULT_PRODUCTS,
    now: datetime | None = None,
    collections: int | None = None,
) -> SeedSummary:
    """Seed the demo store in one transaction (see the module docstring for the guarantees).
    ``collections``, when given, instead of ``collections_for(products)``."""
    with engine.begin() as conn:
        return seed_demo_on(conn, products=products, now=now, collections=collections)


def seed_demo_on(
    conn: Connection,
    *,
    products: int = DEFAULT_PRODUCTS,
    now: datetime | None = None,
    collections: int | None = None,
) -> SeedSummary:
    """``seed_demo`` inside a transaction the caller owns."""
    if products < 1:
        raise SeedError(f"the demo store needs at least 1 product, got {products}")
    if collections is None:
        collections = collections_for(products)
    if not FEWEST_COLLECTIONS <= collections <= COLLECTION_COUNT:
        raise SeedError(
            f"the demo store has {FEWEST_COLLECTIONS} to {COLLECTION_COUNT} collections, "
            f"got {collections}"
        )
    # Whole seconds: schedules read better, and nothing here needs finer time.
    now = naive_utc(now) if now is not None else SystemClock().now().replace(microsecond=0)
    existing = conn.scalar(
        select(t.api_keys.c.store_id).where(t.api_keys.c.key_hash == hash_key(DEMO_KEY))
    )
    if existing is not None:
        return _summary(existing, _count_rows(conn, existing), created=False)
    _refuse_taken_hosts(conn)

    writer = RowWriter(conn)
    store_id = writer.insert_returning_ids(t.stores, [store_row()])[0]
    writer.insert(t.store_hosts, host_rows(store_id))
    create_key(conn, store_id, now=OPENED_AT, name="Demo storefront", key=DEMO_KEY)
    seed_demo_staff(conn, store_id=store_id, now=OPENED_AT)  # the README gives its password
    writer.tally(t.api_keys, 1)
    brand_ids = writer.insert_returning_ids(t.brands, brand_rows(store_id))
    tree = plan_category_tree(_rng("categories"), store_id, products)
    shelves = _write_categories(writer, tree)
    catalogue = _write_products(writer, store_id, products, shelves, brand_ids)

    drafts = draft_collections(_rng("collections"), store_id, collections)
    collection_ids = writer.insert_returning_ids(t.collections, [c.row for c in drafts])
    writer.insert(
        t.collection_products,
        collection_product_rows(
            _rng("collection_products"),
            store_id=store_id,
            collection_ids=collection_ids,
            products=catalogue,
        ),
    )
    pages = page_rows(_rng("pages"), store_id)
    page_ids = writer.insert_returning_ids(t.pages, pages)
    _write_articles(writer, store_id, products)

    about_id = next(i for i, p in zip(page_ids, pages, strict=True) if p["slug"] == ABOUT_PAGE)
    alias_id = next(p.id for p in catalogue if p.number == ALIAS_PRODUCT)
    collection_paths = _write_custom_paths(
        writer, store_id, about_id, alias_id, drafts, collection_ids
    )
    category_urls = {c.row["name"]: c.row["url"] for top in tree for c in (top, *top.children)}
    _write_menus(writer, store_id, category_urls, collection_paths)
    banners = banner_rows(
        store_id,
        now,
        late_collection_path=collection_paths[-1][1],
        summer_saving=_largest_saving(conn, collection_ids[0]),
    )
    writer.insert(t.banners, banners)
    _write_flash_sales(writer, store_id, now, catalogue)
    writer.insert(t.promotions, promotion_rows(store_id))
    writer.insert(t.custom_variables, custom_variable_rows(store_id))

    seed_commerce(conn, store_id=store_id, now=now)
    seed_bundle_promotion(conn, store_id=store_id, now=now)
    return _summary(store_id, writer.counts, created=True)


def _largest_saving(conn: Connection, collection_id: int) -> int:
    """The largest saving (a whole percent, down to a multiple of 5) a product of the collection
    shows against its list price: what its banner may promise "up to" once the flash sales end."""
    p, cp = t.products, t.collection_products
    rows = conn.execute(
        select(p.c.price, p.c.compare_at_price)
        .join(cp, cp.c.product_id == p.c.id)
        .where(cp.c.collection_id == collection_id, p.c.compare_at_price > p.c.price)
    )
    largest = max((100 - 100 * row.price / row.compare_at_price for row in rows), default=0)
    return int(largest) // 5 * 5


def _rng(section: str) -> random.Random:
    """A generator per section, so changing one section leaves the others' rows unchanged."""
    return random.Random(f"thoi-trang-sai-gon:{section}")


def _refuse_taken_hosts(conn: Connection) -> None:
    taken = conn.execute(
        select(t.store_hosts.c.host, t.store_hosts.c.store_id)
        .where(t.store_hosts.c.host.in_(DEMO_HOSTS))
        .order_by(t.store_hosts.c.host)
    ).first()
    if taken is not None:
        raise SeedError(
            f"host {taken.host!r} already belongs to store {taken.store_id}; "
            "seed the demo store into a new database"
        )


def _write_categories(writer: RowWriter, tree: Sequence[CategoryDraft]) -> list[Shelf]:
    """Insert the top level, then the children under it; return the leaves that hold products."""
    top_ids = writer.insert_returning_ids(t.categories, [top.row for top in tree])
    children = [
        (top_id, child) for top, top_id in zip(tree, top_ids, strict=True) for child in top.children
    ]
    child_ids = writer.insert_returning_ids(
        t.categories, [{**child.row, "parent_id": top_id} for top_id, child in children]
    )
    return [
        Shelf(category_id, child.line)
        for (_, child), category_id in zip(children, child_ids, strict=True)
        if child.line is not None
    ]


def _write_products(
    writer: RowWriter,
    store_id: int,
    count: int,
    shelves: Sequence[Shelf],
    brand_ids: Sequence[int],
) -> list[ProductFacts]:
    """Insert products chunk by chunk, each chunk followed by its images, variants and links."""
    drafts = draft_products(
        _rng("products"), store_id=store_id, count=count, shelves=shelves, brand_ids=brand_ids
    )
    variant_rng = _rng("variants")
    facts: list[ProductFacts] = []
    while chunk := list(islice(drafts, PRODUCT_CHUNK)):
        product_ids = writer.insert_keyed_rows(
            t.products, [draft.row for draft in chunk], key="slug"
        )
        images, variants, links = [], [], []
        for draft, product_id in zip(chunk, product_ids, strict=True):
            rows = variant_rows(variant_rng, draft, product_id)
            variants += rows
            images += image_rows(draft, product_id)
            links += category_link_rows(draft, product_id)
            facts.append(product_facts(draft, product_id, rows))
        writer.insert(t.product_images, images)
        writer.insert(t.variants, variants)
        writer.insert(t.product_categories, links)
    return facts


def _write_articles(writer: RowWriter, store_id: int, products: int) -> None:
    category_ids = writer.insert_returning_ids(
        t.article_categories, article_category_rows(store_id)
    )
    tag_ids = writer.insert_returning_ids(t.article_tags, article_tag_rows(store_id))
    articles = draft_articles(_rng("articles"), store_id, products)
    article_ids = writer.insert_returning_ids(t.articles, [a.row for a in articles])
    category_links, tag_links = article_link_rows(articles, article_ids, category_ids, tag_ids)
    writer.insert(t.article_category_links, category_links)
    writer.insert(t.article_tag_links, tag_links)


def _write_custom_paths(
    writer: RowWriter,
    store_id: int,
    about_id: int,
    alias_id: int,
    collections: Sequence[CollectionDraft],
    collection_ids: Sequence[int],
) -> list[tuple[str, str]]:
    """Paths to the about page, the alias product and the collections that have one.

    Returns (name, path) of those collections, in listing order.
    """
    pathed = [
        (draft.row["name"], draft.path, collection_id)
        for draft, collection_id in zip(collections, collection_ids, strict=True)
        if draft.path
    ]
    targets = [
        (ABOUT_PATH, "cms_page", about_id),
        (PRODUCT_ALIAS_PATH, "product", alias_id),
        *((path, "collection", collection_id) for _, path, collection_id in pathed),
    ]
    writer.insert(t.custom_paths, custom_path_rows(store_id, targets))
    return [(name, path) for name, path, _ in pathed]


def _write_menus(
    writer: RowWriter,
    store_id: int,
    category_urls: dict[str, str | None],
    collection_paths: Sequence[tuple[str, str]],
) -> None:
    for menu in demo_menus(category_urls, collection_paths):
        menu_id = writer.insert_returning_ids(t.menus, [menu_row(store_id, menu)])[0]
        item_ids = writer.insert_returning_ids(
            t.menu_items, menu_item_rows(store_id, menu_id, menu.entries)
        )
        for entry, item_id in zip(menu.entries, item_ids, strict=True):
            writer.insert(
                t.menu_items, menu_item_rows(store_id, menu_id, entry.children, parent_id=item_id)
            )


def _write_flash_sales(
    writer: RowWriter, store_id: int, now: datetime, catalogue: Sequence[ProductFacts]
) -> None:
    sales = draft_flash_sales(store_id, now)
    sale_ids = writer.insert_returning_ids(t.flash_sales, [sale.row for sale in sales])
    writer.insert(
        t.flash_sale_products,
        flash_sale_product_rows(
            _rng("flash_sales"),
            store_id=store_id,
            sales=sales,
            sale_ids=sale_ids,
            products=catalogue,
        ),
    )


def _count_rows(conn: Connection, store_id: int) -> dict[str, int]:
    counts = {}
    for table in SEEDED_TABLES:
        owner = table.c.id if table is t.stores else table.c.store_id
        counts[table.name] = (
            conn.scalar(select(func.count()).select_from(table).where(owner == store_id)) or 0
        )
    return counts


def _summary(store_id: int, counts: dict[str, int], *, created: bool) -> SeedSummary:
    return SeedSummary(
        store_id=store_id,
        store_name=STORE_NAME,
        key=DEMO_KEY,
        hosts=DEMO_HOSTS,
        counts={table.name: counts.get(table.name, 0) for table in SEEDED_TABLES},
        created=created,
    )
