"""The comparison with Hugo of `make bench` (benchmarks/export.py, benchmarks/peer.py,
benchmarks/hugo_site/): the export reads the store through the public API, and the Hugo site
renders from it the same pages and sitemap as `storefront build` of the same store."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmarks import export as bench_export
from benchmarks import peer as bench_peer
from benchmarks import procs as bench_procs

REPO = Path(__file__).resolve().parents[2]
PRODUCTS = 120  # every edge case of the demo store, and listings of three pages


def _locs(sitemap: Path) -> set[str]:
    return set(re.findall(r"<loc>([^<]*)</loc>", sitemap.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, object]]:
    """A demo store built by `storefront build` and by Hugo from the export of it."""
    from companion.app import create_app
    from companion.seed.demo import DEMO_KEY, seed_demo
    from companion.settings import CompanionSettings

    folder = tmp_path_factory.mktemp("peer")
    db = folder / "store.sqlite3"
    app = create_app(CompanionSettings(database=str(db)))
    seed_demo(app.state.services.engine, products=PRODUCTS)
    app.state.services.engine.dispose()
    limit = 10_000_000
    log = folder / "companion.log"
    with bench_procs.companion_server(
        db, rate_per_minute=limit, rate_per_hour=limit, log=log
    ) as url:
        ours = folder / "ours"
        command = bench_peer.storefront_command(folder / "cache", ours, api_url=url, key=DEMO_KEY)
        command.remove("--from-cache")  # the crawl itself
        run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stderr[-2000:]
        export = anyio.run(
            lambda: bench_export.export_to(folder / "export", api_url=url, key=DEMO_KEY)
        )
    hugo = folder / "hugo"
    command = bench_peer.hugo_command(folder / "export", hugo)
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return ours, hugo, export


@pytest.mark.slow
def test_hugo_builds_the_same_pages_and_sitemap_as_storefront(
    both: tuple[Path, Path, dict[str, object]],
) -> None:
    ours, hugo, _ = both
    pages = bench_peer.pages_in(ours)
    assert len(pages) > 2 * PRODUCTS  # products, listings, articles, collections, ...
    assert any("/trang/3.html" in page for page in pages)  # a listing of three pages or more
    assert bench_peer.pages_in(hugo) == pages
    assert _locs(hugo / "sitemap.xml") == _locs(ours / "sitemap.xml")
    assert bench_peer.sitemap_urls(hugo) == bench_peer.sitemap_urls(ours)


@pytest.mark.slow
def test_hugo_pages_show_the_store_as_the_export_holds_it(
    both: tuple[Path, Path, dict[str, object]],
) -> None:
    _, hugo, export = both
    products = export["products"]
    assert isinstance(products, list)
    product = next(p for p in products if p.get("url") and p.get("price"))
    html = (hugo / (product["url"].lstrip("/") + ".html")).read_text(encoding="utf-8")
    assert f"<h1>{product['name']}</h1>" in html
    assert f"{product['effective_price']:,}".replace(",", ".") + " ₫" in html
    # A listing page holds at most 48 cards, and all of its products.
    pages = export["pages"]
    assert isinstance(pages, list)
    listed = ("category", "collection", "product_list")
    listing = next(p for p in pages if p["kind"] in listed and p["count"] > 1)
    assert len(listing["products"]) == bench_export.PRODUCTS_PER_PAGE
    page = (hugo / (listing["path"].lstrip("/") + ".html")).read_text(encoding="utf-8")
    assert page.count('<li class="card">') == bench_export.PRODUCTS_PER_PAGE


def test_the_export_names_the_endpoint_of_a_bad_answer(tmp_path: Path) -> None:
    async def broken(request: Request) -> Response:
        return Response("oops", status_code=500)

    async def ok(request: Request) -> Response:
        return JSONResponse({"items": [], "next_cursor": None, "has_more": False})

    app = Starlette(routes=[Route("/v1/menus", broken), Route("/v1/{rest:path}", ok)])

    async def go() -> None:
        await bench_export.export_to(
            tmp_path, api_url="http://api/v1", key="k", transport=httpx.ASGITransport(app=app)
        )

    with pytest.raises(bench_export.ExportError, match=r"^GET /menus: HTTP 500$"):
        anyio.run(go)
