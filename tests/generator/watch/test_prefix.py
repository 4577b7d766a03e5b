"""`storefront watch` serves a site built for a path prefix under that prefix, live reload
included."""

from __future__ import annotations

import argparse
from pathlib import Path

import httpx
import pytest

from generator.commands.watch import _stack, watch_app
from generator.config import BUNDLED_THEME, BuildConfig
from generator.watch.reload import RELOAD_PATH, ReloadBroadcaster
from generator.xstore import Descriptor

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_watch_serves_the_output_under_the_site_url_prefix(tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.mkdir()
    (out / "index.html").write_text("<html><body><p>Trang chủ</p></body></html>")
    (out / "a.html").write_text("<html><body><p>A</p></body></html>")
    config = BuildConfig(
        api_url="http://127.0.0.1:9/public/v1",
        api_key="pk_live_x",
        site_url="https://example.github.io/shop",
        out=out,
        cache_dir=tmp_path / "cache",
        templates=BUNDLED_THEME,
        concurrency=1,
        demo_products=1,
        descriptor=Descriptor(),
    )
    args = argparse.Namespace(db=None, host="127.0.0.1", port=8000)
    site, _connect = _stack(args, config)
    app = watch_app(site, ReloadBroadcaster(), None)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        home = await client.get("/shop/")
        page = await client.get("/shop/a")
        outside = await client.get("/a")
    assert home.status_code == page.status_code == 200
    assert "Trang chủ" in home.text and RELOAD_PATH in home.text
    assert outside.status_code == 404
