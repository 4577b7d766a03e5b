"""`storefront api staff add EMAIL --role owner` makes the account that signs in at /admin; the
demo store's owner, whose password the README gives, is the demo's alone."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, update

from companion.app import create_app
from companion.db.backoffice_schema import staff_accounts
from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.demo_published import (
    DEMO_STAFF_EMAIL,
    DEMO_STAFF_PASSWORD,
    DEMO_STAFF_PASSWORD_HASH,
)
from companion.seed.demo import seed_demo
from companion.settings import CompanionSettings
from tests.companion.conftest import START
from tests.companion.databases import fresh_database
from tests.companion.factory import Shop
from tests.companion.test_cli import run
from tests.companion.test_demo_secrets import Started

pytestmark = pytest.mark.anyio

PASSWORD = "mat-khau-chu-cua-hang"


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


def typed(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


async def sign_in(database: str, email: str, password: str) -> int:
    app = create_app(CompanionSettings(database=database))
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            form = await client.get("/admin/login")
            csrf = form.text.split('name="csrf" value="')[1].split('"')[0]
            answer = await client.post(
                "/admin/login", data={"email": email, "password": password, "csrf": csrf}
            )
        return answer.status_code
    finally:
        app.state.services.engine.dispose()


async def test_the_first_owner_is_added_and_signs_in(
    database: str,
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    Shop(engine, START)
    typed(monkeypatch, PASSWORD + "\n")
    assert run("api", "staff", "add", "--db", database, "--role", "owner", "Chu@Shop.VN") == 0
    assert "added owner chu@shop.vn" in capsys.readouterr().out
    assert await sign_in(database, "chu@shop.vn", PASSWORD) == 303
    assert await sign_in(database, "chu@shop.vn", "not the password") == 401
    typed(monkeypatch, PASSWORD + "\n")
    assert run("api", "staff", "add", "--db", database, "chu@shop.vn") == 2
    assert "already has an account" in capsys.readouterr().err
    assert run("api", "staff", "list", "--db", database) == 0
    assert "owner\tchu@shop.vn" in capsys.readouterr().out


def test_a_short_password_or_the_demo_password_is_refused(
    database: str,
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    Shop(engine, START)
    for password, said in (("ngan", "10 to 200 characters"), (DEMO_STAFF_PASSWORD, "demo")):
        typed(monkeypatch, password + "\n")
        assert run("api", "staff", "add", "--db", database, "chu@shop.vn") == 2
        err = capsys.readouterr().err
        assert err.startswith("storefront api: error: ") and said in err
        assert password not in err


async def test_the_demo_store_has_its_owner_and_no_other_store_may(
    database: str,
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed_demo(engine, products=1)
    assert await sign_in(database, DEMO_STAFF_EMAIL, DEMO_STAFF_PASSWORD) == 303
    other = Shop(engine, START, name="Cửa hàng thật")
    typed(monkeypatch, PASSWORD + "\n")
    assert (
        run("api", "staff", "add", "--db", database, "--store", str(other.store_id), "a@b.vn") == 0
    )
    with engine.begin() as conn:  # the demo's published hash copied to a real store's account
        conn.execute(
            update(staff_accounts)
            .where(staff_accounts.c.store_id == other.store_id)
            .values(password_hash=DEMO_STAFF_PASSWORD_HASH)
        )
    started = Started(monkeypatch)
    capsys.readouterr()
    assert run("api", "--db", database) == 2
    err = capsys.readouterr().err
    assert f"store {other.store_id}" in err and "demo store's published password" in err
    assert started.count == 0
