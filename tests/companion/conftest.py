"""The real companion app over httpx.ASGITransport, on a real SQLite file per test.

Set STOREFRONT_TEST_POSTGRES to a server URL (``postgresql+psycopg://user@host:port/postgres``)
to run the same tests on PostgreSQL instead: each test gets a fresh database, dropped after
(see ``tests.companion.databases``).

A test that makes a database (through ``fresh_database`` or ``postgres_engine``, in its body or
in any fixture it uses) is marked ``db`` here; the PostgreSQL pass runs only those (``pytest -m
db``). A test that makes one without the marker fails, so the pass cannot miss it silently.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from types import CodeType
from typing import Any, TypeVar

import anyio.to_thread
import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text

from companion.answer_cache.changes import stock
from companion.app import create_app
from companion.clock import ManualClock
from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.db.schema import api_keys
from companion.keys.lifecycle import revoke_key
from companion.settings import CompanionSettings
from tests.companion import databases
from tests.companion.databases import fresh_database, postgres_engine
from tests.companion.factory import Shop

PREFIX = "/public/v1"
START = datetime(2026, 11, 20, 3, 0, 10)


@dataclass
class Api:
    """A running companion, its first store, and a key of that store."""

    app: FastAPI
    client: httpx.AsyncClient
    shop: Shop
    key: str
    clock: ManualClock
    headers: dict[str, str] = field(default_factory=dict)

    async def get(
        self, endpoint: str, /, *, key: str | None = None, **params: Any
    ) -> httpx.Response:
        """GET a read endpoint (relative to /public/v1) with the shop's key."""
        headers = {"X-Service-Key": self.key if key is None else key}
        return await self.client.get(PREFIX + endpoint, params=params, headers=headers)

    async def ok(self, endpoint: str, /, **params: Any) -> Any:
        response = await self.get(endpoint, **params)
        assert response.status_code == 200, response.text
        return response.json()

    async def walk(
        self, endpoint: str, /, between: Callable[[], None] | None = None, **params: Any
    ) -> list[Any]:
        """Every item of a cursor-paginated list; ``between`` runs before each next page."""
        items: list[Any] = []
        body = await self.ok(endpoint, **params)
        items += body["items"]
        while body["has_more"]:
            assert body["next_cursor"]
            if between is not None:
                between()
            body = await self.ok(endpoint, **params, cursor=body["next_cursor"])
            items += body["items"]
        assert body["next_cursor"] is None
        return items


MakeApi = Callable[..., Awaitable[Api]]


def revoke_newest_key(api: Api) -> None:
    """Revoke the key made last (the shop's own unless the test made another)."""
    with api.app.state.services.engine.begin() as conn:
        newest = conn.execute(api_keys.select().order_by(api_keys.c.id.desc())).first()
        assert newest is not None
        revoke_key(conn, newest.id, now=api.clock.now())


Layer = TypeVar("Layer")


def changes_taken_in(app: FastAPI) -> None:
    """On PostgreSQL, every change committed so far taken in by the app's feed.

    Notifications come in commit order, so once one sent now has arrived, the earlier ones
    have too. Else one could arrive between two requests of a test, on a busy machine, and drop
    the answers read before it (this process's writes are taken in at once, as they commit)."""
    services = app.state.services
    if services.engine.dialect.name != "postgresql":
        return  # SQLite's feed reads the file's version: nothing is ever late
    # psycopg: PostgreSQL's only
    from companion.answer_cache.postgres_feed import CHANNEL, PostgresFeed

    feed = services.feed
    assert isinstance(feed, PostgresFeed)

    marker = next(_markers)  # a product id no store has: only this call waits for its mark
    sent = time.monotonic()
    with services.engine.begin() as conn:  # a NOTIFY alone: not a write this process marks
        conn.execute(text(f"NOTIFY {CHANNEL}, 'stock:{marker}'"))
    deadline = sent + 10
    while stock.unchanged_after(sent, frozenset({marker}), counts=True):
        assert time.monotonic() < deadline, "the feed did not deliver a notification"
        time.sleep(0.002)
        feed.take_in()  # the event loop cannot while this waits, if it watches the feed


_markers = itertools.count(10**12)


def layer_of(app: FastAPI, kind: type[Layer]) -> Layer:
    """The app's middleware layer of type ``kind`` (the app has served a request: its chain is
    built on the first), found by walking the chain, each layer keeping the next as ``app``."""
    node = app.middleware_stack
    while node is not None and not isinstance(node, kind):
        node = getattr(node, "app", None)
    assert node is not None, f"the app has no {kind.__name__}"
    return node


def _names(code: CodeType) -> set[str]:
    """The global and attribute names a function's code (and the code nested in it) uses."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            names |= _names(constant)
    return names


#: What a test makes a database through.
_MAKERS = frozenset((fresh_database.__name__, postgres_engine.__name__))


def _makes_a_database(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    fixtures = [] if info is None else [d for ds in info.name2fixturedefs.values() for d in ds]
    functions = [getattr(item, "function", None), *(d.func for d in fixtures)]
    return any(
        not _names(function.__code__).isdisjoint(_MAKERS)
        for function in functions
        if hasattr(function, "__code__")
    )


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents and _makes_a_database(item):
            item.add_marker(pytest.mark.db)


@pytest.fixture(autouse=True)
def _database_tests_are_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    made = databases.made
    yield
    if databases.made != made and request.node.get_closest_marker("db") is None:
        pytest.fail("this test makes a database: mark it `db` for the PostgreSQL pass", False)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def thread_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The calls made through anyio's door to its worker threads, which FastAPI, Starlette and
    the one-hop routes go through: one entry a call, in order."""
    calls: list[str] = []
    real = anyio.to_thread.run_sync

    async def counted(func: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(getattr(func, "__name__", "?"))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    return calls


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An empty database at the latest migration, made once per session and copied per test: the
    app's own migration step then finds nothing to do (on PostgreSQL, half a second a test)."""
    with fresh_database(tmp_path_factory.mktemp("migrated")) as database:
        engine = make_engine(database)
        upgrade(engine)
        engine.dispose()  # the last connection closing checkpoints the WAL into the file
        yield database


@pytest.fixture
def settings(tmp_path: Path, migrated: str) -> Iterator[CompanionSettings]:
    with fresh_database(tmp_path, template=migrated) as database:
        yield CompanionSettings(database=database)


@pytest.fixture
async def make_api(settings: CompanionSettings, clock: ManualClock) -> AsyncIterator[MakeApi]:
    """Build the app with settings overrides (``make_api(rate_per_minute=3)``)."""
    opened: list[Api] = []

    async def make(**overrides: Any) -> Api:
        app = create_app(replace(settings, **overrides), clock=clock)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
        shop = Shop(app.state.services.engine, clock.now())
        key = shop.key()
        changes_taken_in(app)  # a late notification of the set-up would drop what tests keep
        api = Api(app, client, shop, key, clock)
        opened.append(api)
        return api

    yield make
    for api in opened:
        await api.client.aclose()
        api.app.state.services.engine.dispose()


@pytest.fixture
async def api(make_api: MakeApi) -> Api:
    return await make_api()
