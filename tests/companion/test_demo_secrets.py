"""`storefront api` refuses to start when a store that is not the demo store carries what the
source publishes for the demo (the sandbox gateway's hash secret, its merchant code): anyone
could sign that store's payment notifications. One line, exit status 2, no traceback."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from sqlalchemy import Engine

from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.seed.commerce import DEMO_HASH_SECRET, DEMO_MERCHANT_CODE, seed_commerce
from companion.server import SETTINGS_VARIABLE
from tests.companion.conftest import START
from tests.companion.databases import fresh_database
from tests.companion.factory import Shop
from tests.companion.test_cli import run


class Started:
    """Stands for uvicorn serving: counts the servers that would listen, and starts and stops
    the app of one that would serve in this process (its lifespan), without listening."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        started = self
        # Serving several workers hands them the settings through the environment.
        monkeypatch.setenv(SETTINGS_VARIABLE, "")

        def server_run(server: uvicorn.Server, *args: Any, **kwargs: Any) -> None:
            started.count += 1
            asyncio.run(start_and_stop(server.config.app))

        def workers_run(*args: Any, **kwargs: Any) -> None:
            started.count += 1

        monkeypatch.setattr(uvicorn.Server, "run", server_run)
        monkeypatch.setattr(uvicorn, "run", workers_run)
        # Nor does it set logging up: that would leave the request log writing to this test's
        # captured stderr, closed once it ends, for the tests after it in the process.
        monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda config: None)


async def start_and_stop(app: Any) -> None:
    events = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    said: list[str] = []

    async def receive() -> dict[str, str]:
        return next(events)

    async def send(message: dict[str, str]) -> None:
        said.append(message["type"])

    await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)
    assert said == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Started:
    return Started(monkeypatch)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    with fresh_database(tmp_path) as database:
        yield database


@pytest.fixture
def engine(database: str) -> Iterator[Engine]:
    engine = make_engine(database)
    upgrade(engine)
    yield engine
    engine.dispose()


def store_with_gateway(engine: Engine, name: str, merchant_code: str, hash_secret: str) -> int:
    shop = Shop(engine, START, name=name)
    with engine.begin() as conn:
        seed_commerce(
            conn,
            store_id=shop.store_id,
            now=START,
            merchant_code=merchant_code,
            hash_secret=hash_secret,
        )
    return shop.store_id


@pytest.mark.parametrize(
    ("merchant_code", "hash_secret", "named"),
    [
        (DEMO_MERCHANT_CODE, DEMO_HASH_SECRET, "hash secret"),
        ("CUAHANGTHAT", DEMO_HASH_SECRET, "hash secret"),
        (DEMO_MERCHANT_CODE, "cua-hang-that-hash-secret", "merchant code"),
    ],
)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_store_with_the_demo_secrets_is_refused_at_start(
    database: str,
    engine: Engine,
    started: Started,
    capsys: pytest.CaptureFixture[str],
    merchant_code: str,
    hash_secret: str,
    named: str,
    workers: str,
) -> None:
    store_id = store_with_gateway(engine, "Cửa hàng thật", merchant_code, hash_secret)
    assert run("api", "--db", database, "--workers", workers) == 2
    err = capsys.readouterr().err
    assert err.startswith("storefront api: error: ") and err.count("\n") == 1
    assert f"store {store_id}" in err and named in err and "demo" in err
    assert "Traceback" not in err
    assert DEMO_HASH_SECRET not in err
    assert started.count == 0


def test_the_demo_store_and_a_store_with_its_own_secrets_start(
    database: str, engine: Engine, started: Started, capsys: pytest.CaptureFixture[str]
) -> None:
    store_with_gateway(engine, "Cửa hàng thật", "CUAHANGTHAT", "cua-hang-that-hash-secret")
    assert run("api", "--db", database, "--seed", "demo", "--products", "1") == 0
    assert started.count == 1
    # Started again without --seed: the demo store is known by its publishable key.
    assert run("api", "--db", database) == 0
    assert started.count == 2
    assert "error" not in capsys.readouterr().err
