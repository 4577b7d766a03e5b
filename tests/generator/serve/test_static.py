"""The layout rules as a function, and the static server that applies them over HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from generator.serve.static import LONG_CACHE, resolve_request_path, serving


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = {
        "index.html": "<h1>home</h1>",
        "404.html": "<h1>not found</h1>",
        "bai-viet.html": "<h1>articles</h1>",
        "bai-viet/chao-mung.html": "<h1>hello</h1>",
        "áo-dài.html": "<h1>ao dai</h1>",
        "_assets/site.css": "body{}",
        "sitemap.xml": "<urlset/>",
        "robots.txt": "User-agent: *",
        "_headers": "/_assets/*",
        ".nojekyll": "",
    }
    for name, text in files.items():
        file = tmp_path / "out" / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return tmp_path / "out"


@pytest.mark.parametrize(
    ("url_path", "expected"),
    [
        ("/", "index.html"),
        ("/bai-viet", "bai-viet.html"),
        ("/bai-viet/chao-mung", "bai-viet/chao-mung.html"),
        ("/%C3%A1o-d%C3%A0i", "áo-dài.html"),
        ("/_assets/site.css", "_assets/site.css"),
        ("/sitemap.xml", "sitemap.xml"),
        ("/bai-viet.html", "bai-viet.html"),
    ],
)
def test_layout_serves(root: Path, url_path: str, expected: str) -> None:
    assert resolve_request_path(root, url_path) == root / expected


@pytest.mark.parametrize(
    "url_path",
    [
        "/bai-viet/",  # a folder is never a page
        "/khong-co",
        "/404",  # the not-found page is only an answer
        "/404.html",
        "/_headers",
        "/.nojekyll",
        "/../out/index.html",
        "/bai-viet/%2E%2E/index",
        "/a%00b",
        "/%FF",  # not UTF-8
        "/bai-viet//chao-mung",
        "/bai-viet\\chao-mung",
        "relative",
    ],
)
def test_layout_refuses(root: Path, url_path: str) -> None:
    assert resolve_request_path(root, url_path) is None


def test_server_answers_pages_assets_and_404(root: Path) -> None:
    with serving(root) as base, httpx.Client(base_url=base) as client:
        page = client.get("/bai-viet/chao-mung?trang=2")
        assert (page.status_code, page.text) == (200, "<h1>hello</h1>")
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert page.headers["cache-control"] == "no-cache"

        asset = client.get("/_assets/site.css")
        assert asset.headers["content-type"] == "text/css; charset=utf-8"
        assert asset.headers["cache-control"] == LONG_CACHE

        missing = client.get("/khong-co")
        assert (missing.status_code, missing.text) == (404, "<h1>not found</h1>")
        assert missing.headers["content-type"] == "text/html; charset=utf-8"

        head = client.head("/")
        assert head.status_code == 200
        assert head.headers["content-length"] == str(len("<h1>home</h1>"))
        assert head.content == b""

        assert client.post("/").status_code == 501


def test_server_without_a_404_page_answers_plain_text(root: Path) -> None:
    (root / "404.html").unlink()
    with serving(root) as base:
        response = httpx.get(base + "/khong-co")
    assert response.status_code == 404
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
