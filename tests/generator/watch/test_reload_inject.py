"""The live-reload script is added at serve time, to the site's HTML pages only."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from generator.serve.app import SameOrigin, site_app
from generator.watch.reload import (
    RELOAD_JS,
    RELOAD_SCRIPT,
    LiveReload,
    ReloadBroadcaster,
    ReloadEndpoint,
    inject_script,
)

PAGE = b"<!doctype html><html><body><h1>Shop</h1></body></html>"


def output(tmp_path: Path) -> Path:
    root = tmp_path / "out"
    (root / "_assets").mkdir(parents=True)
    (root / "index.html").write_bytes(PAGE)
    (root / "_assets" / "style.css").write_bytes(b"body{color:red}")
    (root / "robots.txt").write_bytes(b"User-agent: *\n")
    return root


def api() -> Starlette:
    async def products(request: Request) -> Response:
        return JSONResponse({"data": []})

    async def pay(request: Request) -> Response:
        return Response(b"<html><body>pay</body></html>", media_type="text/html")

    return Starlette(routes=[Route("/public/v1/products", products), Route("/sandbox/pay", pay)])


def fetch(app: LiveReload, path: str, method: str = "GET") -> httpx.Response:
    async def go() -> httpx.Response:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://testserver"
        ) as client:
            return await client.request(method, path)

    return anyio.run(go)


def watch_app(root: Path) -> LiveReload:
    return LiveReload(SameOrigin(site_app(root), api()), ReloadEndpoint(ReloadBroadcaster()))


def test_html_page_gets_the_script_before_body_end(tmp_path: Path) -> None:
    answer = fetch(watch_app(output(tmp_path)), "/")
    assert answer.status_code == 200
    assert answer.content == PAGE.replace(b"</body>", RELOAD_SCRIPT + b"</body>")
    assert int(answer.headers["content-length"]) == len(answer.content)


def test_output_file_is_never_changed(tmp_path: Path) -> None:
    root = output(tmp_path)
    fetch(watch_app(root), "/")
    assert (root / "index.html").read_bytes() == PAGE


def test_css_text_and_api_answers_pass_unchanged(tmp_path: Path) -> None:
    app = watch_app(output(tmp_path))
    assert fetch(app, "/_assets/style.css").content == b"body{color:red}"
    assert fetch(app, "/robots.txt").content == b"User-agent: *\n"
    assert fetch(app, "/public/v1/products").json() == {"data": []}


def test_html_from_the_api_is_not_touched(tmp_path: Path) -> None:
    answer = fetch(watch_app(output(tmp_path)), "/sandbox/pay")
    assert answer.content == b"<html><body>pay</body></html>"


def test_head_of_a_page_has_no_body_and_no_stale_length(tmp_path: Path) -> None:
    answer = fetch(watch_app(output(tmp_path)), "/", method="HEAD")
    assert answer.status_code == 200
    assert answer.content == b""
    assert "content-length" not in answer.headers


def test_page_without_body_end_gets_the_script_appended() -> None:
    assert inject_script(b"<p>hi") == b"<p>hi" + RELOAD_SCRIPT


def test_overlay_shows_the_message_as_text_not_markup() -> None:
    script = RELOAD_JS.decode()
    assert "textContent" in script
    assert "innerHTML" not in script


def test_the_script_is_a_same_origin_file_not_inline(tmp_path: Path) -> None:
    """The site's Content-Security-Policy allows scripts of its origin, not inline ones."""
    assert RELOAD_SCRIPT.startswith(b"<script src=")
    src = RELOAD_SCRIPT.split(b'"')[1].decode()
    answer = fetch(watch_app(output(tmp_path)), src)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.content == RELOAD_JS
