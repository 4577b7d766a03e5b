"""A worker opens its pool's connections as it starts (PostgreSQL), and starts without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app import create_app
from companion.db.engine import make_engine, open_pool
from companion.settings import CompanionSettings
from tests.companion.databases import fresh_database

pytestmark = pytest.mark.anyio


async def test_the_app_opens_its_pool_as_it_starts(migrated: str, tmp_path: Path) -> None:
    with fresh_database(tmp_path, template=migrated) as database:
        app = create_app(CompanionSettings(database=database, migrate=False))
        engine = app.state.services.engine
        try:
            async with app.router.lifespan_context(app):
                if engine.dialect.name == "postgresql":
                    assert engine.pool.checkedin() == engine.pool.size() > 1
                else:  # nothing to gain on a file: no connection opened ahead
                    assert engine.pool.checkedin() == 0
        finally:
            engine.dispose()


def test_a_database_not_up_opens_none_and_raises_nothing() -> None:
    # Port 1 on loopback: the connection is refused at once.
    engine = make_engine("postgresql+psycopg://storefront@127.0.0.1:1/none")
    try:
        assert open_pool(engine) == 0
        assert engine.pool.checkedin() == 0
    finally:
        engine.dispose()


def test_sqlite_opens_none(tmp_path: Path) -> None:
    engine = make_engine(str(tmp_path / "store.sqlite3"))
    try:
        assert open_pool(engine) == 0
    finally:
        engine.dispose()
