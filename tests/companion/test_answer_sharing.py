"""Catalogue answers handed between the workers of one server (companion.answer_cache.shared):
a page one worker read is served by the other without reading it, and never once something
it shows changed after its reading began. Two apps on one database stand for two workers."""

from __future__ import annotations

import marshal
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import update

from companion.answer_cache.changes import stock_changed
from companion.answer_cache.middleware import AnswerCache
from companion.answer_cache.shared import SharedAnswer, SharedAnswers
from companion.app import create_app
from companion.clock import ManualClock
from companion.db.schema import variants
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX, START, Api, changes_taken_in
from tests.companion.databases import fresh_database
from tests.companion.factory import Shop
from tests.companion.test_answer_cache import cache_of, on_postgres, set_price
from tests.companion.test_server import running_api

pytestmark = pytest.mark.anyio


@dataclass
class Workers:
    first: Api
    second: Api

    def caches(self) -> tuple[AnswerCache, AnswerCache]:
        return cache_of(self.first.app), cache_of(self.second.app)


@pytest.fixture
async def workers(
    settings: CompanionSettings, clock: ManualClock, tmp_path: Path
) -> AsyncIterator[Workers]:
    shared = SharedAnswers(tmp_path / "answers")
    shared.directory.mkdir()
    apis = []
    shop: Shop | None = None
    for _ in range(2):
        app = create_app(settings, clock=clock, shared_answers=shared)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
        shop = shop or Shop(app.state.services.engine, clock.now())
        apis.append(Api(app, client, shop, "", clock))
    assert shop is not None
    key = shop.key()
    for api in apis:
        api.key = key
    yield Workers(*apis)
    for api in apis:
        await api.client.aclose()
        api.app.state.services.engine.dispose()


async def ready(workers: Workers) -> None:
    """Both have taken in every change so far (on PostgreSQL a notification can arrive late,
    and one taken in after a read began keeps the other worker from adopting it), and read the
    store's flash-sale times (as a worker that has served a read since)."""
    changes_taken_in(workers.first.app)
    changes_taken_in(workers.second.app)
    await workers.first.ok("/store")
    await workers.second.ok("/store")


async def test_a_page_one_worker_read_is_served_by_the_other(workers: Workers) -> None:
    workers.first.shop.product("Áo", slug="ao", price=100_000)
    await ready(workers)
    read = await workers.first.get("/products/by-slug/ao")
    first, second = workers.caches()
    hits = second.hits
    taken = await workers.second.get("/products/by-slug/ao")
    assert taken.status_code == 200 and taken.content == read.content
    assert taken.headers["etag"] == read.headers["etag"]
    assert second.adopted == 1 and second.hits == hits + 1
    again = await workers.second.client.get(
        f"{PREFIX}/products/by-slug/ao",
        headers={"X-Service-Key": workers.second.key, "If-None-Match": read.headers["etag"]},
    )
    assert again.status_code == 304 and second.adopted == 1  # kept here from then on
    assert first.adopted == 0


async def test_a_change_after_the_reading_began_is_not_taken(workers: Workers) -> None:
    pid = workers.first.shop.product("Áo", slug="ao", price=100_000)
    await ready(workers)
    assert (await workers.first.ok("/products/by-slug/ao"))["price"] == 100_000
    set_price(workers.first, pid, 120_000)
    assert (await workers.second.ok("/products/by-slug/ao"))["price"] == 120_000
    _, second = workers.caches()
    assert second.adopted == 0


async def test_a_stock_change_keeps_only_the_pages_of_other_products(workers: Workers) -> None:
    shop = workers.first.shop
    sold, other = shop.product("Áo", slug="ao"), shop.product("Quần", slug="quan")
    variant = shop.variant(sold, "M", stock=1)
    shop.variant(other, "M", stock=5)
    await ready(workers)
    await workers.first.ok("/products/by-slug/ao")
    await workers.first.ok("/products/by-slug/quan")
    with workers.first.app.state.services.engine.begin() as conn:
        conn.execute(update(variants).where(variants.c.id == variant).values(stock=0))
        stock_changed(conn, [(sold, 0, -1)])  # as an order does
    await ready(workers)  # their feeds have seen the write
    _, second = workers.caches()
    assert (await workers.second.ok("/products/by-slug/ao"))["in_stock"] is False
    assert second.adopted == 0
    await workers.second.ok("/products/by-slug/quan")
    # SQLite's feed tells only that the file changed: nothing read before it is taken.
    assert second.adopted == (1 if on_postgres(workers.second) else 0)


async def test_a_flash_sale_starting_is_not_hidden_by_a_shared_answer(workers: Workers) -> None:
    shop, clock = workers.first.shop, workers.first.clock
    pid = shop.product("Váy", slug="vay", price=1_000_000)
    start = clock.now() + timedelta(hours=1)
    shop.put_on_sale(shop.flash_sale(start, start + timedelta(hours=2), 20), pid)
    await ready(workers)
    assert (await workers.first.ok("/products/by-slug/vay"))["effective_price"] == 1_000_000
    clock.set(start)
    assert (await workers.second.ok("/products/by-slug/vay"))["effective_price"] == 800_000
    _, second = workers.caches()
    assert second.adopted == 0


async def test_a_worker_that_has_not_read_the_flash_sale_times_reads_itself(
    workers: Workers,
) -> None:
    workers.first.shop.product("Áo", slug="ao")
    await workers.first.ok("/products/by-slug/ao")
    await workers.second.ok("/products/by-slug/ao")
    _, second = workers.caches()
    assert second.adopted == 0


def answer(body: bytes = b'{"id": 1}', *, read_at: float = 1.0) -> SharedAnswer:
    headers = ((b"content-type", b"application/json"), (b"etag", b'"t"'))
    since = START.replace(tzinfo=None)
    return SharedAnswer(headers, body, '"t"', frozenset({1, 2}), False, since, None, read_at)


def test_an_answer_is_read_back_as_it_was_written(tmp_path: Path) -> None:
    shared = SharedAnswers(tmp_path)
    key = (1, "/public/v1/products/by-slug/áo", b"x=%C3%A1")
    shared.put(key, answer(read_at=12.5))
    assert shared.get(key) == answer(read_at=12.5)
    assert shared.get((2, key[1], key[2])) is None  # another store's is never this one's
    assert [p.name.startswith(".") for p in tmp_path.iterdir()] == [False]  # no partial file


def test_a_slot_holds_one_key_and_a_newer_answer_replaces_it(tmp_path: Path) -> None:
    shared = SharedAnswers(tmp_path, slots=1)
    shared.put((1, "/a", b""), answer(b"a"))
    shared.put((1, "/b", b""), answer(b"b"))
    assert shared.get((1, "/a", b"")) is None
    found = shared.get((1, "/b", b""))
    assert found is not None and found.body == b"b"


def test_what_cannot_be_shared_is_not(tmp_path: Path) -> None:
    shared = SharedAnswers(tmp_path)
    shared.put((1, "/big", b""), answer(b"x" * (64 * 1024 + 1)))
    assert list(tmp_path.iterdir()) == []
    gone = SharedAnswers(tmp_path / "missing")
    gone.put((1, "/a", b""), answer())  # a directory removed under it: nothing shared
    assert gone.get((1, "/a", b"")) is None
    shared.put((1, "/a", b""), answer())
    (slot,) = tmp_path.iterdir()
    record = slot.read_bytes()
    for damaged in (b"not a record", record[: len(record) // 2], marshal.dumps((1, 2))):
        slot.write_bytes(damaged)  # another program's file, or one cut short
        assert shared.get((1, "/a", b"")) is None


def test_the_server_makes_the_directory_for_its_workers_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))  # the server's, not this process's
    with (
        fresh_database(tmp_path) as database,
        running_api(tmp_path, workers=2, database=database) as (base, _),
    ):
        for _ in range(10):
            response = httpx.get(f"{base}{PREFIX}/products", params={"limit": 3})
            assert response.status_code == 200
        (directory,) = temporary.glob("storefront-answers-*")
        assert any(directory.iterdir())  # the first worker to read it shared it
    assert list(temporary.iterdir()) == []
