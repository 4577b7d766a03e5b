"""A small demo store in a real companion, and builds of it through the real build command.

``DemoStore`` seeds the demo catalogue into a SQLite file under the test's folder and changes it
the way a merchant would (``companion.catalog_admin``); ``build`` runs ``build_site`` against it
over ``httpx.ASGITransport``, so crawl, cache, render and write are the real ones.
``CrawledStores`` hands out a store already crawled once, copied from a crawl made once a session.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
from rich.console import Console
from sqlalchemy import delete, insert, select

from companion.app import create_app
from companion.catalog_admin import create_entity, delete_entity, set_product_price, update_entity
from companion.clock import ManualClock
from companion.db import schema
from companion.seed.collection_rows import SMALL_STORE_COLLECTIONS
from companion.seed.demo import DEMO_KEY, seed_demo
from companion.settings import CompanionSettings
from companion.webhooks.events import Entity
from generator.client import RateWindow
from generator.config import BUNDLED_THEME, BuildConfig
from generator.errors import StorefrontError
from generator.pipeline import ApiAccess, Connect, build_site
from generator.summary import BuildSummary
from generator.write.incremental import BuildState
from generator.xstore import Descriptor

UNLIMITED = (RateWindow(10_000_000, 60.0),)
BASE = "http://localhost/public/v1"
SITE_URL = "https://shop.example.vn"


class DemoStore:
    def __init__(self, folder: Path, *, products: int, seeded_at: datetime | None = None) -> None:
        """Seed ``products`` into ``folder``'s database; or, given ``seeded_at``, open the
        database already there, seeded at that time (the clock goes on from it)."""
        settings = CompanionSettings(
            database=str(folder / "store.sqlite3"),
            rate_per_minute=10_000_000,
            rate_per_hour=10_000_000,
        )
        # The companion's clock moves only with the changes: schedules (flash sales, banners,
        # discounts) cannot cross a boundary between two builds that are compared.
        self.now = seeded_at or datetime.now(UTC).replace(tzinfo=None, microsecond=0)
        self.clock = ManualClock(self.now)
        self.app = create_app(settings, clock=self.clock)
        self.engine = self.app.state.services.engine
        if seeded_at is None:
            # As few collections as a small demo store has, at any size: only the tests of the
            # 200-collection scan need them all (they seed the demo themselves).
            seed_demo(
                self.engine,
                products=products,
                now=self.now,
                collections=SMALL_STORE_COLLECTIONS,
            )
        with self.engine.connect() as conn:
            self.store_id = int(conn.scalar(select(schema.stores.c.id)) or 0)

    def close(self) -> None:
        self.engine.dispose()

    def ids(self, entity: Entity) -> list[int]:
        table = {
            Entity.PRODUCT: schema.products,
            Entity.CATEGORY: schema.categories,
            Entity.ARTICLE: schema.articles,
            Entity.PAGE: schema.pages,
            Entity.COLLECTION: schema.collections,
        }[entity]
        with self.engine.connect() as conn:
            return list(conn.scalars(select(table.c.id).order_by(table.c.id)))

    def product_url(self, product_id: int) -> str | None:
        with self.engine.connect() as conn:
            url = conn.scalar(
                select(schema.products.c.url).where(schema.products.c.id == product_id)
            )
        return str(url) if url else None

    def _tick(self) -> datetime:
        # Every change a second later, as a merchant's edits would be.
        self.now += timedelta(seconds=1)
        self.clock.set(self.now)
        return self.now

    def set_price(self, product_id: int, price: int | None) -> None:
        with self.engine.begin() as conn:
            set_product_price(
                conn, store_id=self.store_id, product_id=product_id, price=price, now=self._tick()
            )

    def update(self, entity: Entity, entity_id: int, changes: dict[str, Any]) -> None:
        with self.engine.begin() as conn:
            update_entity(
                conn, entity, entity_id, changes, store_id=self.store_id, now=self._tick()
            )

    def delete(self, entity: Entity, entity_id: int) -> None:
        with self.engine.begin() as conn:
            delete_entity(conn, entity, entity_id, store_id=self.store_id, now=self._tick())

    def link(self, table: str, *, owner: Entity, owner_id: int, row: dict[str, Any]) -> None:
        """Add a membership row (``collection_products``, ``product_categories``) if missing,
        and save ``owner`` (its updated_at moves), as the merchant's admin would."""
        links = getattr(schema, table)
        with self.engine.begin() as conn:
            present = conn.execute(select(links).filter_by(store_id=self.store_id, **row)).first()
            if present is None:
                conn.execute(insert(links).values(store_id=self.store_id, **row))
        self.update(owner, owner_id, {})

    def unlink(self, table: str, *, owner: Entity, owner_id: int, row: dict[str, Any]) -> None:
        """Remove a membership row if present, and save ``owner``."""
        links = getattr(schema, table)
        with self.engine.begin() as conn:
            conn.execute(delete(links).filter_by(store_id=self.store_id, **row))
        self.update(owner, owner_id, {})

    def root_categories(self) -> list[int]:
        with self.engine.connect() as conn:
            return list(
                conn.scalars(
                    select(schema.categories.c.id)
                    .where(schema.categories.c.parent_id.is_(None))
                    .order_by(schema.categories.c.id)
                )
            )

    def create(self, entity: Entity, values: dict[str, Any]) -> int:
        with self.engine.begin() as conn:
            return create_entity(conn, entity, values, store_id=self.store_id, now=self._tick())

    @asynccontextmanager
    async def connect(self, config: BuildConfig) -> AsyncIterator[ApiAccess]:
        transport = httpx.ASGITransport(app=self.app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
            yield http, DEMO_KEY, UNLIMITED


class Recording(httpx.AsyncBaseTransport):
    """The real companion, noting every path and query asked of it."""

    def __init__(self, store: DemoStore) -> None:
        self.inner = httpx.ASGITransport(app=store.app)
        self.asked: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.asked.append(str(request.url).removeprefix(BASE))
        return await self.inner.handle_async_request(request)


def config_for(
    folder: Path,
    *,
    out: str = "out",
    cache: str = "cache",
    full: bool = False,
    from_cache: bool = False,
    workers: int = 1,
    templates: Path = BUNDLED_THEME,
) -> BuildConfig:
    return BuildConfig(
        api_url=None,
        api_key=None,
        site_url=SITE_URL,
        out=folder / out,
        cache_dir=folder / cache,
        templates=templates,
        concurrency=4,
        demo_products=1,
        descriptor=Descriptor(),
        full=full,
        from_cache=from_cache,
        workers=workers,
    )


def build(store: DemoStore | None, config: BuildConfig) -> tuple[BuildSummary, str]:
    """Run the build; returns its summary and what it printed."""
    printed = io.StringIO()
    console = Console(file=printed, width=200, highlight=False)

    async def run() -> BuildSummary:
        return await build_site(config, console, connect=store.connect if store else None)

    summary = anyio.run(run)
    return summary, printed.getvalue()


def recorded(transport: Recording) -> Connect:
    """How a build opens the API through ``transport``."""

    @asynccontextmanager
    async def connect(config: BuildConfig) -> AsyncIterator[ApiAccess]:
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
            yield http, DEMO_KEY, UNLIMITED

    return connect


def build_asked(store: DemoStore, config: BuildConfig) -> list[str]:
    """One build against ``store``; the path and query of every request it sent, in order."""
    return build_recorded(store, config)[2]


def build_recorded(store: DemoStore, config: BuildConfig) -> tuple[BuildSummary, str, list[str]]:
    """One build against ``store``: its summary, what it printed and every request it sent."""
    transport = Recording(store)
    printed = io.StringIO()
    console = Console(file=printed, width=200, highlight=False)
    summary = anyio.run(lambda: build_site(config, console, connect=recorded(transport)))
    return summary, printed.getvalue(), transport.asked


def refused_build(store: DemoStore, config: BuildConfig) -> tuple[list[str], str]:
    """A build against ``store`` that must fail: the requests it sent first, and its one-line
    error."""
    transport = Recording(store)
    console = Console(file=io.StringIO(), width=200)
    try:
        anyio.run(lambda: build_site(config, console, connect=recorded(transport)))
    except StorefrontError as failed:
        return transport.asked, str(failed)
    raise AssertionError("the build did not fail")


class CrawledStores:
    """Demo stores as ``DemoStore(folder, products=n)`` then ``build(store, config_for(folder))``
    leave them: the database, the crawl cache and the output. Each size is seeded and crawled
    once, under ``root``, and copied into the folders that ask for it, for the tests whose
    subject is what comes after a first crawl."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seeded_at: dict[int, datetime] = {}

    def copy(self, folder: Path, *, products: int) -> DemoStore:
        """The crawled store of ``products`` in ``folder``; close it when done."""
        made = self.root / str(products)
        if products not in self.seeded_at:
            made.mkdir()
            store = DemoStore(made, products=products)
            try:
                build(store, config_for(made))
            finally:
                store.close()
            self.seeded_at[products] = store.now
        shutil.copytree(made, folder, dirs_exist_ok=True)
        # The build records name the output folder they describe: this copy's, as a build
        # here would have written them (another folder's records would mean a whole render).
        cache = folder / "cache"
        state = BuildState.load(cache)
        assert state is not None
        replace(state, out_dir=str((folder / "out").resolve())).save(cache)
        # So does the search index's state.
        from generator.search_index import store as search_index

        index = search_index._load(cache)
        search_index._save(cache, replace(index, out=str((folder / "out").resolve())))
        return DemoStore(folder, products=products, seeded_at=self.seeded_at[products])


def folder_bytes(root: Path) -> dict[str, bytes | None]:
    """Every file under ``root`` by relative path, with its bytes; every folder, with None (so
    a folder left empty by a rebuild, which a full build would not make, shows)."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes() if path.is_file() else None
        for path in sorted(root.rglob("*"))
    }
