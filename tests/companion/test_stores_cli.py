"""`storefront api stores create|list`: a merchant's own store from an empty folder to a key, an
owner and a checkout that takes cash on delivery, with no demo data."""

from __future__ import annotations

import io
from pathlib import Path

import httpx
import pytest

from companion.app import create_app
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX
from tests.companion.test_cli import run

pytestmark = pytest.mark.anyio


async def test_a_store_made_on_the_command_line_sells_with_its_own_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "shop.db")  # not there yet: making the store makes it
    assert run("api", "stores", "create", "--db", db, "Tiệm Lan", "--email", "lan@tiem.vn") == 0
    made = capsys.readouterr().out
    assert made.startswith("made store 1, Tiệm Lan; next: storefront api keys create --store 1")
    assert run("api", "stores", "list", "--db", db) == 0
    assert capsys.readouterr().out == "1\tTiệm Lan\tlan@tiem.vn\n"

    assert run("api", "keys", "create", "--db", db) == 0  # its only store: no --store
    key = next(w for w in capsys.readouterr().out.split() if w.startswith("pk_live_"))
    monkeypatch.setattr("sys.stdin", io.StringIO("mat-khau-rat-dai-2026\n"))
    assert run("api", "staff", "add", "--db", db, "--role", "owner", "chu@tiem.vn") == 0
    assert "added owner chu@tiem.vn to store 1" in capsys.readouterr().out

    app = create_app(CompanionSettings(database=db))
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            headers = {"X-Service-Key": key}
            store = (await client.get(f"{PREFIX}/store", headers=headers)).json()
            methods = await client.get(f"{PREFIX}/checkout/payment-methods", headers=headers)
            products = await client.get(f"{PREFIX}/products", headers=headers)
    finally:
        app.state.services.engine.dispose()
    assert store["name"] == "Tiệm Lan" and store["email"] == "lan@tiem.vn"
    assert [m["code"] for m in methods.json()["items"]] == ["cod"]
    assert products.status_code == 200 and products.json()["items"] == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("stores", "create", "  "), "a store's name is 1 to 200 characters"),
        (("stores", "create", "x" * 201), "a store's name is 1 to 200 characters"),
        (("stores", "list"), "no database at"),  # a wrong --db is not made empty
    ],
)
def test_mistakes_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    db = str(tmp_path / "shop.db")
    assert run("api", *argv[:2], "--db", db, *argv[2:]) == 2
    err = capsys.readouterr().err
    assert err.startswith("storefront api: error: ") and err.count("\n") == 1
    assert message in err
