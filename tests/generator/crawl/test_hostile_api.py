"""A crawl against a hostile or broken API ends in one line naming the endpoint, and soon."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from generator.client import ClientSettings
from generator.crawl import normalize
from generator.errors import StorefrontError
from tests.support.crawl_helpers import crawl_fake
from tests.support.demo_build import REPO
from tests.support.fakeapi import FakeApi, Quirks, small_store
from tests.support.hostile_api import (
    Handler,
    MiB,
    Served,
    bad_gzip,
    drip,
    endless_list,
    nested,
    padded_list_page,
    raw_json,
    serve_http,
    with_lone_surrogate,
)

pytestmark = pytest.mark.anyio


def hostile(path: str, answer: Callable[[], httpx.Response]) -> FakeApi:
    """The small store, with ``path`` answered by a new ``answer()`` each time."""
    return FakeApi(small_store(), Quirks(overrides={path: lambda request: answer()}))


def listing(path: str, handler: Handler, *, missing: frozenset[str] = frozenset()) -> FakeApi:
    """The small store (11 products with a page, 3 articles, 3 CMS pages in its sitemap), with
    the list at ``path`` answered by ``handler``."""
    return FakeApi(small_store(), Quirks(overrides={path: handler}, missing=set(missing)))


async def crawl_error(fake: FakeApi, settings: ClientSettings | None = None) -> str:
    """The one line a crawl of ``fake`` fails with."""
    with pytest.raises(StorefrontError) as caught:
        await crawl_fake(fake, client_settings=settings)
    text = str(caught.value)
    assert "\n" not in text
    return text


async def test_a_huge_list_page_fails_the_crawl_naming_the_list() -> None:
    served = Served()
    fake = hostile("/products", lambda: padded_list_page(4 * MiB, served))
    error = await crawl_error(fake, ClientSettings(max_answer_bytes=MiB))
    assert error.startswith("GET /products?limit=100: the answer is larger than 1 MiB")
    assert served.bytes <= 2 * MiB


async def test_a_drip_fed_detail_fails_the_crawl_at_the_deadline() -> None:
    fake = hostile("/products/3", lambda: drip(Served()))
    started = time.monotonic()
    error = await crawl_error(fake, ClientSettings(request_deadline=0.2))
    assert error.startswith("GET /products/3: no complete answer within 0.2 s")
    assert time.monotonic() - started < 2.0


CARD = {"id": 1, "name": "Sản phẩm 1", "slug": "san-pham-1", "url": "/san-pham-1", "price": 1}


async def test_a_list_past_twice_its_sitemap_count_is_stopped() -> None:
    fake = listing("/products", endless_list([CARD] * 50))
    error = await crawl_error(fake, ClientSettings(max_pages=500))
    assert error.startswith("GET /products?limit=100&cursor=c20: the list went on past 1,022 items")
    assert "twice the 11 rows the sitemap counts for products, plus 1,000" in error
    assert len(fake.requests_to("/products")) < 30


async def test_a_sitemap_section_of_empty_pages_is_stopped_by_its_count() -> None:
    fake = listing("/sitemap/pages", endless_list([]))
    error = await crawl_error(fake, ClientSettings(max_pages=1_500))
    assert error.startswith("GET /sitemap/pages?limit=100&cursor=c1006: the list went on past")
    assert "twice the 3 rows the sitemap counts for pages, plus 1,000" in error


async def test_without_a_count_the_page_cap_stops_the_list_and_says_so() -> None:
    fake = listing("/products", endless_list([CARD]), missing=frozenset({"/sitemap"}))
    error = await crawl_error(fake, ClientSettings(max_pages=30))
    assert error == (
        "GET /products?limit=100&cursor=c29: the list did not end after 30 pages, the most the "
        "client reads of one list; stopped instead of walking on"
    )


async def test_a_huge_repeated_cursor_is_not_quoted_whole() -> None:
    fake = listing("/articles", endless_list([], cursor=lambda page: "x" * 10_000))
    error = await crawl_error(fake)
    assert "repeats an earlier cursor" in error
    assert len(error) < 400


def test_a_sitemap_section_without_a_count_has_no_known_size() -> None:
    sections = normalize.sitemap_sections({"sections": ["products", {"name": "pages"}]})
    assert sections == (("products", None), ("pages", None))


@pytest.mark.parametrize(
    "cursor", [lambda page: "same", lambda page: "ab"[page % 2]], ids=["repeated", "alternating"]
)
async def test_a_cursor_seen_before_stops_the_list(cursor: Callable[[int], str]) -> None:
    error = await crawl_error(listing("/articles", endless_list([], cursor=cursor)))
    assert error.startswith("GET /articles?limit=100&cursor=")
    assert "repeats an earlier cursor" in error


def category_chain(depth: int) -> str:
    """JSON text of a category tree ``depth`` categories deep (two JSON levels each)."""
    tree: dict[str, object] = {"id": depth, "name": f"C{depth}", "url": None, "children": []}
    for ident in range(depth - 1, 0, -1):
        tree = {"id": ident, "name": f"C{ident}", "url": None, "children": [tree]}
    return json.dumps({"items": [tree], "next_cursor": None, "has_more": False})


async def test_a_category_tree_too_deep_to_read_is_refused() -> None:
    text = category_chain(300)
    error = await crawl_error(hostile("/categories/tree", lambda: raw_json(text)))
    assert error == "GET /categories/tree: the answer's JSON nests deeper than 100 levels"


async def test_a_lone_surrogate_in_a_detail_is_refused() -> None:
    store = small_store()
    text = with_lone_surrogate(store.products[2], "name")
    error = await crawl_error(hostile("/products/3", lambda: raw_json(text)))
    assert error.startswith("GET /products/3: the answer's JSON holds a lone UTF-16 surrogate")


async def test_a_detail_that_is_not_its_gzip_is_refused() -> None:
    error = await crawl_error(hostile("/products/4", bad_gzip))
    assert error == "GET /products/4: the answer's body cannot be decoded (Content-Encoding: gzip)"


@pytest.mark.parametrize(
    "price",
    ["1" * 30, "1e999999", 10**30, -(10**30)],
    ids=["digits", "exponent", "int", "negative"],
)
async def test_a_money_amount_out_of_range_is_refused(price: object) -> None:
    data = small_store()
    data.products[3]["price"] = price
    error = await crawl_error(FakeApi(data))
    assert error.startswith("GET /products?limit=100: product 4: price: ")
    assert error.endswith("is out of range for a money amount")


def test_storefront_build_fails_in_one_line_without_a_traceback(tmp_path: Path) -> None:
    with serve_http({"/store": nested(5_000).encode()}) as api_url:
        result = subprocess.run(
            [sys.executable, "-m", "generator", "build", "--api-url", api_url, "--key", "pk_x"]
            + ["--site-url", "https://shop.example.vn"]
            + ["--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache")],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    # Besides the progress lines ("context (9)…"), one line says what failed, and ends it.
    lines = result.stderr.splitlines()
    assert (
        [line for line in lines if "error" in line]
        == lines[-1:]
        == ["storefront build: error: GET /store: the answer's JSON nests deeper than 100 levels"]
    )
