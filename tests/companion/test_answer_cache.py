"""The answer cache (companion.answer_cache): a repeated catalogue read is served from memory,
and never once what it shows has changed; the key check and the rate limit still apply."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy import update

from companion.answer_cache.changes import (
    CATALOGUE_TABLES,
    catalogue,
    classify,
    stock,
    stock_changed,
)
from companion.answer_cache.middleware import AnswerCache
from companion.db.schema import products, variants
from tests.companion.conftest import Api, MakeApi, changes_taken_in, layer_of, revoke_newest_key

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


def cache_of(app: FastAPI) -> AnswerCache:
    return layer_of(app, AnswerCache)


def on_postgres(api: Api) -> bool:
    return api.app.state.services.engine.dialect.name == "postgresql"


def set_price(api: Api, product_id: int, price: int) -> None:
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(products).where(products.c.id == product_id).values(price=price))


@pytest.mark.parametrize(
    ("statement", "kind"),
    [
        ("SELECT * FROM products", None),
        ("WITH RECURSIVE t AS (SELECT 1) SELECT * FROM t", None),
        ("UPDATE variants SET stock=(variants.stock - ?) WHERE variants.id = ?", "stock"),
        (
            "UPDATE variants SET stock=(variants.stock + %(q)s::INTEGER) WHERE variants.id = "
            "%(id)s RETURNING variants.product_id",
            "stock",
        ),
        ("UPDATE variants SET stock=?, price=? WHERE variants.id = ?", "catalogue"),
        ("UPDATE products SET price=? WHERE products.id = ?", "catalogue"),
        ('DELETE FROM "products" WHERE id = 1', "catalogue"),
        ("INSERT INTO carts (token) VALUES (?)", None),
        ("UPDATE rate_limit_counts SET count=count + 1", None),
        ("ALTER TABLE carts ADD COLUMN x INTEGER", "catalogue"),
    ],
)
def test_writes_are_told_apart(statement: str, kind: str | None) -> None:
    assert classify(statement) == kind


async def test_a_repeated_read_is_served_from_memory_with_every_header(api: Api) -> None:
    pid = api.shop.product("Áo sơ mi", slug="ao-so-mi", price=250_000)
    changes_taken_in(api.app)  # else the write's late notification could drop the first read
    first = await api.get("/products/by-slug/ao-so-mi")
    cache = cache_of(api.app)
    hits = cache.hits
    again = await api.get("/products/by-slug/ao-so-mi")
    assert cache.hits == hits + 1
    assert again.status_code == 200 and again.content == first.content
    assert again.json()["id"] == pid
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["content-type"] == "application/json"
    # Outside the cache: the request id and the rate limit, on every answer.
    assert again.headers["X-Request-Id"] != first.headers["X-Request-Id"]
    left = int(first.headers["RateLimit-Remaining"])
    assert int(again.headers["RateLimit-Remaining"]) == left - 1


async def test_a_kept_answer_answers_if_none_match_with_304(api: Api) -> None:
    api.shop.product("Áo", slug="ao")
    tag = (await api.get("/products/by-slug/ao")).headers["ETag"]
    response = await api.client.get(
        "/public/v1/products/by-slug/ao", headers={"X-Service-Key": api.key, "If-None-Match": tag}
    )
    assert response.status_code == 304 and response.content == b""
    assert response.headers["ETag"] == tag
    other = await api.client.get(
        "/public/v1/products/by-slug/ao", headers={"X-Service-Key": api.key, "If-None-Match": '"x"'}
    )
    assert other.status_code == 200 and other.json()["slug"] == "ao"


async def test_a_price_change_is_read_at_once(api: Api) -> None:
    pid = api.shop.product("Áo", slug="ao", price=100_000)
    assert (await api.ok(f"/products/{pid}"))["price"] == 100_000
    assert (await api.ok("/products"))["items"][0]["price"] == 100_000
    set_price(api, pid, 120_000)
    assert (await api.ok(f"/products/{pid}"))["price"] == 120_000
    assert (await api.ok("/products"))["items"][0]["price"] == 120_000


async def test_a_hidden_product_is_gone_at_once(api: Api) -> None:
    pid = api.shop.product("Áo", slug="ao")
    await api.ok("/products/by-slug/ao")
    assert [p["id"] for p in (await api.ok("/products"))["items"]] == [pid]
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(products).where(products.c.id == pid).values(status="draft"))
    assert (await api.get("/products/by-slug/ao")).status_code == 404
    assert (await api.ok("/products"))["items"] == []


async def test_a_stock_change_drops_only_the_answers_showing_that_product(api: Api) -> None:
    shop = api.shop
    sold, other = shop.product("Áo", slug="ao"), shop.product("Quần", slug="quan")
    variant = shop.variant(sold, "M", stock=1)
    shop.variant(other, "M", stock=5)
    changes_taken_in(api.app)
    assert (await api.ok("/products/by-slug/ao"))["in_stock"] is True
    await api.ok("/products/by-slug/quan")
    await api.ok("/categories")
    cache = cache_of(api.app)
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(variants).where(variants.c.id == variant).values(stock=0))
        stock_changed(conn, [(sold, 0, -1)])  # as an order does
    hits = cache.hits
    assert (await api.ok("/products/by-slug/ao"))["in_stock"] is False
    assert cache.hits == hits
    await api.ok("/products/by-slug/quan")
    await api.ok("/categories")
    if not on_postgres(api):  # SQLite tells only that the file changed: every answer is read
        assert cache.hits == hits
        return
    assert cache.hits == hits + 2  # neither shows the product whose stock changed


async def test_a_stock_count_change_keeps_the_pages_that_show_only_in_stock(api: Api) -> None:
    shop = api.shop
    pid = shop.product("Áo", slug="ao")
    variant = shop.variant(pid, "M", stock=10)
    changes_taken_in(api.app)
    await api.ok("/products/by-slug/ao")
    assert [v["stock"] for v in (await api.ok(f"/products/{pid}/variants"))["items"]] == [10]
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(variants).where(variants.c.id == variant).values(stock=9))
        stock_changed(conn, [(pid, 9, -1)])
    cache = cache_of(api.app)
    hits = cache.hits
    assert [v["stock"] for v in (await api.ok(f"/products/{pid}/variants"))["items"]] == [9]
    assert (await api.ok("/products/by-slug/ao"))["in_stock"] is True
    # On SQLite every answer is read again; on PostgreSQL the page still shows "in stock".
    assert cache.hits == hits + on_postgres(api)


async def test_a_stock_change_nobody_named_drops_every_stock_answer(api: Api) -> None:
    shop = api.shop
    sold, other = shop.product("Áo", slug="ao"), shop.product("Quần", slug="quan")
    variant = shop.variant(sold, "M", stock=1)
    shop.variant(other, "M", stock=5)
    await api.ok("/products/by-slug/ao")
    await api.ok("/products/by-slug/quan")
    with api.app.state.services.engine.begin() as conn:
        conn.execute(update(variants).where(variants.c.id == variant).values(stock=0))
    cache = cache_of(api.app)
    hits = cache.hits
    assert (await api.ok("/products/by-slug/ao"))["in_stock"] is False
    await api.ok("/products/by-slug/quan")
    assert cache.hits == hits


async def test_a_flash_sale_starting_is_read_without_any_write(api: Api) -> None:
    shop, clock = api.shop, api.clock
    pid = shop.product("Váy", slug="vay", price=1_000_000)
    start = clock.now() + timedelta(hours=1)
    shop.put_on_sale(shop.flash_sale(start, start + timedelta(hours=2), 20), pid)
    assert (await api.ok("/products/by-slug/vay"))["effective_price"] == 1_000_000
    assert (await api.ok("/products/by-slug/vay"))["effective_price"] == 1_000_000
    clock.set(start)
    assert (await api.ok("/products/by-slug/vay"))["effective_price"] == 800_000
    assert (await api.ok("/products"))["items"][0]["effective_price"] == 800_000
    clock.set(start + timedelta(hours=2))
    assert (await api.ok("/products/by-slug/vay"))["effective_price"] == 1_000_000
    clock.set(start)  # a clock set back: what was read later is not served earlier
    assert (await api.ok("/products/by-slug/vay"))["effective_price"] == 800_000


async def test_a_revoked_key_is_refused_even_for_a_kept_answer(api: Api) -> None:
    api.shop.product("Áo", slug="ao")
    await api.ok("/products/by-slug/ao")
    revoke_newest_key(api)
    response = await api.get("/products/by-slug/ao")
    assert response.status_code == 401


async def test_the_rate_limit_counts_kept_answers(make_api: MakeApi) -> None:
    api = await make_api(rate_per_minute=3)
    api.shop.product("Áo", slug="ao")
    statuses = [(await api.get("/products/by-slug/ao")).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


async def test_a_change_by_another_process_is_read_at_once(api: Api) -> None:
    pid = api.shop.product("Áo", slug="ao", price=100_000)
    assert (await api.ok("/products/by-slug/ao"))["price"] == 100_000
    assert (await api.ok("/products/by-slug/ao"))["price"] == 100_000
    url = api.app.state.services.engine.url.render_as_string(hide_password=False)
    code = (
        "import sys\n"
        "from sqlalchemy import update\n"
        "from companion.db.engine import make_engine\n"
        "from companion.db.schema import products\n"
        "engine = make_engine(sys.argv[1], pooled=False)\n"
        "with engine.begin() as conn:\n"
        "    conn.execute(update(products).where(products.c.id == int(sys.argv[2]))"
        ".values(price=90000))\n"
    )
    subprocess.run([sys.executable, "-c", code, url, str(pid)], check=True, cwd=ROOT)
    assert (await api.ok("/products/by-slug/ao"))["price"] == 90_000


async def test_a_write_in_this_process_marks_itself_after_its_commit(api: Api) -> None:
    """Before the writing block ends (so before a writing request answers), whatever the feed
    of other processes' changes delivers later."""
    shop = api.shop
    pid, other = shop.product("Áo", slug="ao"), shop.product("Quần", slug="quan")
    variant = shop.variant(pid, "M", stock=3)
    engine = api.app.state.services.engine
    version = catalogue.value
    with engine.begin() as conn:
        conn.execute(update(products).where(products.c.id == pid).values(price=1))
        assert catalogue.value == version  # not before the commit
    assert catalogue.value > version
    began = time.monotonic()  # an answer whose reading began then
    assert catalogue.at < began
    with engine.begin() as conn:
        conn.execute(update(variants).where(variants.c.id == variant).values(stock=2))
        stock_changed(conn, [(pid, 2, -1)])
        assert stock.unchanged_after(began, None)  # not before the commit
    assert not stock.unchanged_after(began, frozenset({pid}), counts=True)
    assert stock.unchanged_after(began, frozenset({pid}))  # still in stock
    assert stock.unchanged_after(began, frozenset({other}), counts=True)
    assert not stock.unchanged_after(began, None)
    assert stock.unchanged_after(time.monotonic(), None)
    began = time.monotonic()
    with engine.begin() as conn:
        conn.execute(update(variants).where(variants.c.id == variant).values(stock=0))
        stock_changed(conn, [(pid, 0, -2)])
    assert not stock.unchanged_after(began, frozenset({pid}))  # out of stock now


def test_the_notifying_triggers_cover_every_catalogue_table_and_the_keys() -> None:
    """A table added to the schema later needs a migration adding its trigger."""
    path = ROOT / "companion/db/migrations/versions/0003_change_notifications.py"
    spec = importlib.util.spec_from_file_location("change_notifications", path)
    assert spec is not None and spec.loader is not None
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)
    assert {*migration.TABLES, migration.VARIANTS} == CATALOGUE_TABLES | {"api_keys"}
