"""The demo store seed: deterministic, believable, and carrying every edge case of the spec."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import Connection, Engine, Table, insert, select

from companion.clock import SystemClock
from companion.db import schema as t
from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.keys.material import hash_key
from companion.routes.read.sitemap import SECTIONS
from companion.seed.collection_rows import COLLECTION_COUNT, SMALL_STORE_COLLECTIONS
from companion.seed.demo import DEMO_KEY, SEEDED_TABLES, seed_demo
from companion.seed.demo_app import DEMO_NOW, demo_companion
from companion.seed.errors import SeedError
from companion.seed.summary import SeedSummary
from companion.settings import CompanionSettings
from companion.text import fold

NOW = datetime(2026, 11, 22, 9, 30)


def _engine(path: Path) -> Engine:
    engine = make_engine(str(path))
    upgrade(engine)
    return engine


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, SeedSummary]]:
    """One demo store at the default scale, shared by the read-only tests of this module."""
    engine = _engine(tmp_path_factory.mktemp("demo") / "demo.db")
    summary = seed_demo(engine, now=NOW)
    yield engine, summary
    engine.dispose()


@pytest.fixture
def db(seeded: tuple[Engine, SeedSummary]) -> Iterator[Connection]:
    with seeded[0].connect() as conn:
        yield conn


def rows(conn: Connection, table: Table, **where: Any) -> list[dict[str, Any]]:
    query = select(table)
    for column, value in where.items():
        query = query.where(table.c[column] == value)
    return [dict(row._mapping) for row in conn.execute(query)]


def dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {
            table.name: [
                tuple(row) for row in conn.execute(select(table).order_by(*table.primary_key))
            ]
            for table in SEEDED_TABLES
        }


# --- determinism, idempotence, errors -------------------------------------------------------


def test_two_seeds_give_identical_rows(tmp_path: Path) -> None:
    first, second = _engine(tmp_path / "a.db"), _engine(tmp_path / "b.db")
    seed_demo(first, products=60, now=NOW)
    seed_demo(second, products=60, now=NOW)
    assert dump(first) == dump(second)
    assert len(dump(first)["products"]) == 60


def test_first_products_are_the_same_at_any_scale(tmp_path: Path) -> None:
    small, large = _engine(tmp_path / "s.db"), _engine(tmp_path / "l.db")
    seed_demo(small, products=40, now=NOW)
    seed_demo(large, products=120, now=NOW)
    assert dump(small)["products"] == dump(large)["products"][:40]


def test_second_seed_leaves_the_store_unchanged(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "demo.db")
    first = seed_demo(engine, products=30, now=NOW)
    before = dump(engine)
    again = seed_demo(engine, products=500, now=NOW + timedelta(days=3))
    assert first.created and not again.created
    assert again.counts == first.counts
    assert dump(engine) == before
    assert "already present" in again.describe()


def test_host_owned_by_another_store_is_refused(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "demo.db")
    with engine.begin() as conn:
        other = conn.execute(
            insert(t.stores)
            .values(name="Other", social={}, created_at=NOW)
            .returning(t.stores.c.id)
        ).scalar_one()
        conn.execute(insert(t.store_hosts).values(host="localhost", store_id=other))
    with pytest.raises(SeedError, match="'localhost' already belongs to store"):
        seed_demo(engine, products=30, now=NOW)
    with engine.connect() as conn:
        assert len(rows(conn, t.stores)) == 1  # nothing of the demo was left behind


def test_no_products_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SeedError, match="at least 1 product, got 0"):
        seed_demo(_engine(tmp_path / "demo.db"), products=0, now=NOW)


def test_a_one_product_store_still_has_its_paths_and_sales(tmp_path: Path) -> None:
    summary = seed_demo(_engine(tmp_path / "demo.db"), products=1, now=NOW)
    assert summary.counts["products"] == 1
    assert summary.counts["collection_products"] >= summary.counts["collections"]
    assert summary.counts["flash_sale_products"] == 3
    assert summary.counts["collections"] == SMALL_STORE_COLLECTIONS
    # Every collection but the pathless ones has a path, and the about page and the alias too.
    assert summary.counts["custom_paths"] == SMALL_STORE_COLLECTIONS - 3 + 2


def test_counts_scale_with_products(tmp_path: Path) -> None:
    small = seed_demo(_engine(tmp_path / "s.db"), products=50, now=NOW).counts
    large = seed_demo(_engine(tmp_path / "l.db"), products=1000, now=NOW).counts
    assert (small["products"], large["products"]) == (50, 1000)
    assert large["variants"] > 10 * small["variants"]
    assert large["product_images"] > 10 * small["product_images"]
    assert (small["collections"], large["collections"]) == (50, COLLECTION_COUNT)
    assert large["collection_products"] > small["collection_products"]


def test_a_smaller_store_has_the_first_collections_of_a_larger_one(tmp_path: Path) -> None:
    small, large = _engine(tmp_path / "s.db"), _engine(tmp_path / "l.db")
    seed_demo(small, products=40, now=NOW)
    seed_demo(large, products=40, now=NOW, collections=COLLECTION_COUNT)
    query = select(t.collections.c.name, t.collections.c.visible).order_by(t.collections.c.id)
    with small.connect() as few, large.connect() as many:
        assert list(few.execute(query)) == list(many.execute(query))[:40]


def test_collections_out_of_range_are_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SeedError, match="4 to 230 collections, got 3"):
        seed_demo(_engine(tmp_path / "demo.db"), products=10, now=NOW, collections=3)


def test_summary_counts_match_the_tables(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, summary = seeded
    assert summary.counts == {name: len(table_rows) for name, table_rows in dump(engine).items()}
    text = summary.describe()
    assert "pk_live_demo" in text and "Thời Trang Sài Gòn" in text
    assert "products" in text and "300" in text


# --- the store ---------------------------------------------------------------------------------


def test_store_is_vietnamese_in_vnd_with_hosts_and_a_hashed_key(db: Connection) -> None:
    (store,) = rows(db, t.stores)
    assert store["name"] == "Thời Trang Sài Gòn"
    assert (store["currency_code"], store["locale"]) == ("VND", "vi")
    assert store["logo_url"] and store["email"] and store["phone"] and store["address"]
    assert {"facebook", "instagram"} <= set(store["social"])
    hosts = {row["host"] for row in rows(db, t.store_hosts)}
    assert hosts == {"localhost", "127.0.0.1", "demo.localhost"}
    (key,) = rows(db, t.api_keys)
    assert key["key_hash"] == hash_key("pk_live_demo") != "pk_live_demo"
    assert key["revoked_at"] is None


def test_names_carry_diacritics_and_search_keys_are_folded(db: Connection) -> None:
    products = rows(db, t.products)
    assert all(p["search_name"] == fold(p["name"]) for p in products)
    assert sum(p["name"] != p["search_name"] for p in products) > len(products) // 2
    names = " ".join(p["name"] for p in products)
    assert any(word in names for word in ("Áo", "Quần", "Đầm", "Giày", "Túi"))
    articles = rows(db, t.articles)
    assert all(a["search_title"] == fold(a["title"]) for a in articles)


def test_custom_variables_and_promotions(db: Connection) -> None:
    variables = {row["key"]: row["value"] for row in rows(db, t.custom_variables)}
    assert len(variables) >= 5 and variables["hotline"]
    promotions = rows(db, t.promotions)
    assert sum(p["visible"] for p in promotions) == 3
    assert sum(not p["visible"] for p in promotions) == 1
    assert any(p["visible"] and p["link_url"] is None for p in promotions)
    assert any(p["link_url"] for p in promotions)


# --- catalogue ---------------------------------------------------------------------------------


def test_category_tree_has_two_levels_and_url_edge_cases(db: Connection) -> None:
    categories = rows(db, t.categories)
    tops = [c for c in categories if c["parent_id"] is None]
    children = Counter(c["parent_id"] for c in categories if c["parent_id"] is not None)
    assert len(tops) == 6
    assert all(3 <= children[top["id"]] <= 5 for top in tops)
    assert set(children) == {top["id"] for top in tops}  # no third level
    published = [c for c in categories if c["status"] == "published"]
    assert any(c["url"] is None for c in published)
    assert any(c["url"] == "" for c in published)
    assert any(c["status"] == "draft" for c in categories)
    assert any(c["image_url"] for c in categories) and any(not c["image_url"] for c in categories)
    assert any(c["description_html"] for c in categories)
    assert len({c["slug"] for c in categories}) == len(categories)


def test_products_carry_the_url_and_price_edge_cases(db: Connection) -> None:
    published = [p for p in rows(db, t.products) if p["status"] == "published"]
    assert any(p["url"] is None for p in published)
    assert any(p["url"] == "" for p in published)
    assert sum(p["price"] is None for p in published) >= 2
    discounted = [p for p in published if p["compare_at_price"] is not None]
    assert len(discounted) > 50
    assert all(p["compare_at_price"] > p["price"] for p in discounted)
    linked = [p["url"] for p in published if p["url"]]
    assert sum(url.startswith("/san-pham/") for url in linked) == len(linked)
    assert any(p["category_id"] is None for p in published)
    assert any("<" in p["name"] and "&" in p["name"] for p in published)


def test_some_of_every_entity_are_drafts(db: Connection) -> None:
    for table in (t.products, t.categories, t.pages, t.articles):
        assert any(row["status"] == "draft" for row in rows(db, table)), table.name
    draft_products = rows(db, t.products, status="draft")
    assert all(p["published_at"] is None for p in draft_products)


def test_prices_are_whole_thousands_of_vnd(db: Connection) -> None:
    prices = [p["price"] for p in rows(db, t.products) if p["price"] is not None]
    assert all(isinstance(price, int) and price % 1000 == 0 and price >= 50_000 for price in prices)


def test_product_images_and_brands(db: Connection) -> None:
    images = rows(db, t.product_images)
    per_product = Counter(image["product_id"] for image in images)
    assert set(per_product.values()) <= {1, 2, 3, 4}
    assert all(image["url"].startswith("/_assets/demo/") and image["alt"] for image in images)
    products = rows(db, t.products)
    without = [p for p in products if p["id"] not in per_product]
    assert without and all(p["image_url"] is None for p in without)
    first_images = {i["product_id"]: i["url"] for i in images if i["position"] == 0}
    assert all(p["image_url"] == first_images[p["id"]] for p in products if p["id"] in first_images)
    assert len(rows(db, t.brands)) == 10
    assert any(p["brand_id"] is None for p in products)


def test_variants_have_sizes_colours_and_stock_edge_cases(db: Connection) -> None:
    variants = rows(db, t.variants)
    assert all("Màu" in v["options"] for v in variants)
    assert any(v["options"].get("Kích cỡ") == "M" for v in variants)
    assert any(v["stock"] == 0 for v in variants)
    assert any(v["stock"] is None for v in variants)
    assert any(not v["on_sale"] for v in variants)
    priced = {p["id"] for p in rows(db, t.products) if p["price"] is not None}
    with_variants = {v["product_id"] for v in variants}
    assert with_variants <= priced
    assert priced - with_variants  # a few priced products sell no variant
    sold_out = Counter(v["product_id"] for v in variants if v["stock"] == 0)
    totals = Counter(v["product_id"] for v in variants)
    assert any(sold_out[pid] == totals[pid] for pid in totals)


def test_secondary_categories_differ_from_the_primary(db: Connection) -> None:
    primary = {p["id"]: p["category_id"] for p in rows(db, t.products)}
    links = rows(db, t.product_categories)
    assert len(links) > 10
    assert all(link["category_id"] != primary[link["product_id"]] for link in links)


# --- collections and custom paths --------------------------------------------------------------


def test_more_than_200_collections_each_with_products(db: Connection) -> None:
    collections = rows(db, t.collections)
    assert len(collections) > 200
    members = Counter(row["collection_id"] for row in rows(db, t.collection_products))
    assert all(members[c["id"]] > 0 for c in collections)
    assert any(not c["visible"] for c in collections)


def test_a_collection_with_a_custom_path_lies_beyond_the_first_200(db: Connection) -> None:
    listed = db.execute(
        select(t.collections.c.id)
        .where(t.collections.c.visible.is_(True))
        .order_by(t.collections.c.position, t.collections.c.id)
    ).scalars()
    beyond = set(list(listed)[200:])
    pathed = {p["target_id"] for p in rows(db, t.custom_paths, target_type="collection")}
    assert beyond & pathed
    all_ids = {c["id"] for c in rows(db, t.collections)}
    assert all_ids - pathed  # some collections have no path at all


def test_custom_paths_reach_a_page_a_collection_and_a_product(db: Connection) -> None:
    paths = {p["path"]: p for p in rows(db, t.custom_paths)}
    about = paths["/gioi-thieu-cong-ty"]
    assert about["target_type"] == "cms_page"
    (page,) = rows(db, t.pages, id=about["target_id"])
    assert page["status"] == "published"
    sale = paths["/khuyen-mai-he"]
    assert sale["target_type"] == "collection"
    (collection,) = rows(db, t.collections, id=sale["target_id"])
    assert collection["name"] == "Khuyến mãi hè" and collection["visible"]
    products = [p for p in paths.values() if p["target_type"] == "product"]
    assert products
    for alias in products:
        (product,) = rows(db, t.products, id=alias["target_id"])
        assert product["status"] == "published" and product["price"] is not None
    assert all(path.startswith("/") for path in paths)


# --- content -----------------------------------------------------------------------------------


def test_articles_with_categories_tags_and_html(db: Connection) -> None:
    articles = rows(db, t.articles)
    assert 35 <= len(articles) <= 50
    assert len({a["slug"] for a in articles}) == len(articles)
    assert all(
        "<p>" in a["content_html"] and "<h2>" in a["content_html"] and "<ul>" in a["content_html"]
        for a in articles
    )
    assert any(a["author_name"] is None for a in articles)
    assert any(a["author_name"] for a in articles)
    assert 4 <= len(rows(db, t.article_categories)) <= 5
    tags = rows(db, t.article_tags)
    used = {link["tag_id"] for link in rows(db, t.article_tag_links)}
    assert len(used) >= 10
    assert {tag["id"] for tag in tags} - used  # one tag is in no article
    linked = {link["article_id"] for link in rows(db, t.article_category_links)}
    assert linked == {a["id"] for a in articles}


def test_cms_pages_include_a_null_url_and_a_draft(db: Connection) -> None:
    pages = rows(db, t.pages)
    assert 6 <= len(pages) <= 8
    assert any(p["url"] is None and p["status"] == "published" for p in pages)
    assert any(p["status"] == "draft" for p in pages)
    assert "Giới thiệu" in {p["title"] for p in pages}


# --- navigation --------------------------------------------------------------------------------


def test_menus_nest_two_levels_and_link_to_custom_paths(db: Connection) -> None:
    menus = {m["code"]: m["id"] for m in rows(db, t.menus)}
    assert set(menus) == {"main", "footer"}
    items = rows(db, t.menu_items)
    by_id = {item["id"]: item for item in items}
    main = [i for i in items if i["menu_id"] == menus["main"]]
    assert any(i["parent_id"] is not None for i in main)
    assert all(
        by_id[i["parent_id"]]["parent_id"] is None for i in items if i["parent_id"] is not None
    )
    urls = {i["url"] for i in items}
    custom = {p["path"] for p in rows(db, t.custom_paths)}
    assert {"/gioi-thieu-cong-ty", "/khuyen-mai-he"} <= urls
    assert any(
        p["target_type"] == "product" and p["path"] in urls for p in rows(db, t.custom_paths)
    )
    assert None in urls
    assert any(url and url.startswith("https://") for url in urls)
    known = custom | {
        row["url"] for table in (t.categories, t.pages) for row in rows(db, table) if row["url"]
    }
    internal = {url for url in urls if url and url.startswith("/")}
    assert internal <= known


# --- schedules ---------------------------------------------------------------------------------


def test_banners_run_expire_and_wait_around_now(db: Connection) -> None:
    banners = rows(db, t.banners)
    assert Counter(b["location_code"] for b in banners) == {"home_hero": 3, "home_middle": 2}
    assert any(b["ends_at"] is not None and b["ends_at"] < NOW for b in banners)
    assert any(b["starts_at"] > NOW for b in banners)
    running = [
        b for b in banners if b["starts_at"] <= NOW and (b["ends_at"] is None or b["ends_at"] > NOW)
    ]
    assert {b["location_code"] for b in running} == {"home_hero", "home_middle"}
    links = {b["link_url"] for b in banners}
    assert None in links and "/khuyen-mai-he" in links
    assert any(link and link.startswith("/danh-muc/") for link in links)


def test_flash_sales_one_running_one_ended_one_scheduled(db: Connection) -> None:
    sales = rows(db, t.flash_sales)
    running = [s for s in sales if s["starts_at"] <= NOW < s["ends_at"]]
    assert len(running) == 1
    assert sum(s["ends_at"] <= NOW for s in sales) == 1
    assert sum(s["starts_at"] > NOW for s in sales) == 1
    assert all(20 <= s["discount_percent"] <= 50 for s in sales)
    members = [
        m["product_id"] for m in rows(db, t.flash_sale_products, flash_sale_id=running[0]["id"])
    ]
    assert 10 <= len(members) <= 15
    for product_id in members:
        (product,) = rows(db, t.products, id=product_id)
        assert product["status"] == "published" and product["price"] is not None and product["url"]


def test_schedules_follow_the_wall_clock_by_default(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "demo.db")
    seed_demo(engine, products=30)
    now = SystemClock().now()
    with engine.connect() as conn:
        sales = rows(conn, t.flash_sales)
    assert any(s["starts_at"] <= now < s["ends_at"] for s in sales)


def test_an_aware_now_is_taken_as_utc(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "demo.db")
    aware = datetime(2026, 11, 22, 16, 30, tzinfo=UTC).astimezone()  # local zone, same instant
    seed_demo(engine, products=30, now=aware)
    with engine.connect() as conn:
        starts = {s["starts_at"] for s in rows(conn, t.flash_sales)}
    assert datetime(2026, 11, 21, 16, 30) in starts


# --- the demo a build serves itself ------------------------------------------------------------

LISTS = (
    "/store",
    "/custom-variables",
    "/promotions",
    "/banners",
    "/menus",
    "/categories",
    "/categories/tree",
    "/flash-sales",
    "/collections",
    "/articles",
    "/article-categories",
    "/article-tags",
    "/products",
    "/sitemap",
    *(f"/sitemap/{section}" for section in SECTIONS),
)


async def list_answers(app: FastAPI) -> dict[str, list[tuple[str, Any]]]:
    """(ETag, body) of every page of each list endpoint, and of each running sale's products."""
    answers: dict[str, list[tuple[str, Any]]] = {}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://demo.localhost/public/v1",
        headers={"X-Service-Key": DEMO_KEY},
    ) as client:

        async def walk(endpoint: str) -> list[tuple[str, Any]]:
            pages, params = [], {"limit": "200" if endpoint == "/collections" else "25"}
            while True:
                response = await client.get(endpoint, params=params)
                assert response.status_code == 200, (endpoint, response.text)
                body = response.json()
                pages.append((response.headers["etag"], body))
                if not (isinstance(body, dict) and body.get("next_cursor")):
                    return pages
                params["cursor"] = body["next_cursor"]

        for endpoint in LISTS:
            answers[endpoint] = await walk(endpoint)
        for sale in answers["/flash-sales"][0][1]["items"]:
            endpoint = f"/flash-sales/{sale['id']}/products"
            answers[endpoint] = await walk(endpoint)
    return answers


@pytest.mark.anyio
async def test_the_demo_of_a_build_answers_the_same_whenever_it_is_seeded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wall = SystemClock().now()
    answers = []
    for days in (0, 40):  # weeks apart: past the end of every schedule placed around "now"
        monkeypatch.setattr(SystemClock, "now", lambda self, days=days: wall + timedelta(days))
        settings = CompanionSettings(database=str(tmp_path / f"demo-{days}.db"))
        app = demo_companion(settings, products=40)
        try:
            answers.append(await list_answers(app))
        finally:
            app.state.services.engine.dispose()
    first, later = answers
    assert first == later
    (sale,) = first["/flash-sales"][0][1]["items"]  # the sale running at the demo's date
    assert sale["starts_at"] < DEMO_NOW.isoformat() < sale["ends_at"]
    assert first["/banners"][0][1]
    assert len(first["/sitemap/collections"]) > 1  # walked page by page


def test_demo_images_are_shipped_with_the_default_theme(db: Connection) -> None:
    theme_assets = Path(__file__).resolve().parents[2] / "site-templates" / "assets"
    urls = {image["url"] for image in rows(db, t.product_images)}
    urls |= {row["image_url"] for row in rows(db, t.banners)}
    urls |= {row["logo_url"] for row in rows(db, t.stores)}
    assert urls
    for url in urls:
        assert (theme_assets / url.removeprefix("/_assets/")).is_file(), url


def test_product_names_are_distinct_so_page_titles_are(db: Connection) -> None:
    names = [row["name"] for row in rows(db, t.products)]
    assert len(names) == len(set(names))
    assert all(row["search_name"] == fold(row["name"]) for row in rows(db, t.products))


#: What a picture of each kind of goods must be drawn as (by the category's name).
PICTURE_OF = {
    "Giày thể thao": "sneaker",
    "Giày cao gót": "heel",
    "Túi xách tay": "handbag",
    "Balo": "backpack",
    "Kính mát": "sunglasses",
    "Áo thun nam": "tshirt",
    "Áo thun nữ": "tshirt",
    "Quần jean nam": "trousers",
    "Đầm": "dress",
}


def test_product_pictures_suit_their_category(db: Connection) -> None:
    categories = {row["id"]: row["name"] for row in rows(db, t.categories)}
    products = {row["id"]: categories.get(row["category_id"]) for row in rows(db, t.products)}
    seen: set[str] = set()
    for image in rows(db, t.product_images):
        category = products[image["product_id"]]
        if category in PICTURE_OF:
            assert f"/product-{PICTURE_OF[category]}-" in image["url"], (category, image["url"])
            seen.add(category)
    assert len(seen) >= 6


def test_the_hero_banners_differ(db: Connection) -> None:
    heroes = [
        row["image_url"] for row in rows(db, t.banners) if row["location_code"] == "home_hero"
    ]
    assert len(set(heroes)) == len(heroes) > 1


def test_the_shipped_pictures_are_the_ones_the_seed_draws(tmp_path: Path) -> None:
    from companion.seed.pictures import write_pictures

    shipped = Path(__file__).resolve().parents[2] / "site-templates" / "assets" / "demo"
    for path in write_pictures(tmp_path):
        drawn = path.read_bytes()
        assert (shipped / path.name).read_bytes() == drawn, path.name
        assert len(drawn) < 2_500, f"{path.name} is {len(drawn)} bytes"
