"""`storefront serve` finds the output folder as `storefront build` writes it."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest
import uvicorn

from generator.cli import main
from tests.support.refusing_api import refusing_api

API = "http://127.0.0.1:9/public/v1"  # proxied, never asked: nothing is served here


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[uvicorn.Config]:
    """The configs `serve` would run, instead of listening."""
    for name in (
        "STOREFRONT_OUT",
        "STOREFRONT_SITE_URL",
        "STOREFRONT_API_URL",
        "STOREFRONT_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    configs: list[uvicorn.Config] = []
    monkeypatch.setattr(
        uvicorn.Server, "run", lambda server, sockets=None: configs.append(server.config)
    )
    return configs


def _site(folder: Path) -> Path:
    folder.mkdir()
    (folder / "index.html").write_text("<!doctype html><html lang=vi></html>", encoding="utf-8")
    return folder


def test_serve_takes_the_static_dir_of_xstore_json(
    served: list[uvicorn.Config], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _site(tmp_path / "site")
    (tmp_path / "xstore.json").write_text(json.dumps({"staticDir": "site"}), encoding="utf-8")
    assert main(["serve", "--api-url", API]) == 0
    assert len(served) == 1
    assert capsys.readouterr().out.startswith("Serving site and the API")


def test_serve_takes_storefront_out(
    served: list[uvicorn.Config],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    site = _site(tmp_path / "elsewhere")
    monkeypatch.setenv("STOREFRONT_OUT", str(site))
    assert main(["serve", "--api-url", API]) == 0
    assert capsys.readouterr().out.startswith(f"Serving {site} and the API")


def test_serve_without_a_built_site_names_the_folder_it_looked_in(
    served: list[uvicorn.Config], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "xstore.json").write_text(json.dumps({"staticDir": "dist"}), encoding="utf-8")
    assert main(["serve", "--api-url", API]) == 2
    assert "dist: no built site here" in capsys.readouterr().err
    assert served == []


def test_serve_refuses_an_api_url_without_its_version(
    served: list[uvicorn.Config], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _site(tmp_path / "output")
    assert main(["serve", "--api-url", "http://127.0.0.1:9"]) == 2
    assert "did you mean http://127.0.0.1:9/public/v1?" in capsys.readouterr().err
    assert served == []


def test_serve_proxies_to_the_api_url_of_storefront_toml(
    served: list[uvicorn.Config], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a build reads it: with the store's API in storefront.toml, /public/ goes there and
    not to the embedded demo store."""
    _site(tmp_path / "output")
    monkeypatch.setenv("STOREFRONT_API_KEY", "pk_test_serve")
    with refusing_api() as api:
        (tmp_path / "storefront.toml").write_text(f'api-url = "{api.url}"\n', encoding="utf-8")
        assert main(["serve"]) == 0
        [config] = served
        answer = anyio.run(_get, config.app, "/public/v1/products?limit=1")
    assert answer == 401
    assert [path for path, _key in api.asked] == ["/public/v1/products?limit=1"]
    assert not (tmp_path / ".storefront-cache").exists()  # no demo database was made


async def _get(app: object, path: str) -> int:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http:
        return (await http.get(path)).status_code
