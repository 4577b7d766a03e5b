"""A site published under a path prefix, in Chromium: the islands call the session under it,
and the links they draw stay under it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from generator.serve.stack import serving_stack
from tests.browser.live_server import DEMO_PRODUCTS
from tests.browser.shopper import add_variants, products_with_variants
from tests.support.demo_build import REPO

BASE = "/shop"


@pytest.fixture(scope="module")
def prefixed_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("prefixed-demo")
    out = folder / "output"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    command = [
        sys.executable, "-m", "generator", "build", "--out", str(out),
        "--cache-dir", str(folder / "cache"), "--demo-products", str(DEMO_PRODUCTS),
        "--site-url", f"https://example.github.io{BASE}", "--xstore", str(folder / "none.json"),
    ]  # fmt: skip
    result = subprocess.run(
        command, cwd=REPO, env=environ, capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def prefixed_origin(
    prefixed_output: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    database = tmp_path_factory.mktemp("prefixed-db") / "companion.sqlite3"
    with serving_stack(
        prefixed_output, database, seed_products=DEMO_PRODUCTS, base_path=BASE
    ) as origin:
        yield origin


def test_add_to_cart_and_the_cart_page_work_under_the_prefix(
    page: Page, prefixed_origin: str, prefixed_output: Path
) -> None:
    product = products_with_variants(prefixed_output, 1)[0]
    add_variants(page, prefixed_origin + BASE, product, 1)
    expect(page.locator("header .cart-count")).to_have_text("(1)")
    page.goto(prefixed_origin + BASE + "/gio-hang")
    expect(page.locator(".cart-line")).to_have_count(1)
    links = page.locator(".cart-name a")
    expect(links).to_have_count(1)
    assert (links.first.get_attribute("href") or "").startswith(BASE + "/")
    checkout = page.get_by_role("link", name="Thanh toán", exact=True).last
    assert checkout.get_attribute("href") == BASE + "/thanh-toan"
