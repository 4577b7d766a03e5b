"""With the session service stopped, the pages served by nginx read well and say, in
Vietnamese, that ordering is unavailable for now: no exception text, no uncaught error, one
error report, no retries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.shopper import products_with_variants
from tests.browser.static_host import session_down

pytestmark = pytest.mark.serving

UNAVAILABLE = "Cửa hàng tạm thời chưa nhận đặt hàng trực tuyến. Vui lòng quay lại sau."
BUTTON = "Tạm thời chưa đặt hàng được"


@pytest.fixture(scope="module")
def down_site(demo_output: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with session_down(demo_output, tmp_path_factory.mktemp("session-down")) as site:
        yield site


def _watch(page: Page) -> tuple[list[str], list[str], list[str]]:
    """Uncaught errors, console errors other than failed loads, and session requests."""
    uncaught: list[str] = []
    console: list[str] = []
    asked: list[str] = []
    page.on("pageerror", lambda error: uncaught.append(str(error)))
    page.on(
        "console",
        lambda m: (
            console.append(m.text)
            if m.type == "error" and "Failed to load resource" not in m.text
            else None
        ),
    )
    page.on("request", lambda r: asked.append(r.url) if "/session/" in r.url else None)
    return uncaught, console, asked


def test_the_product_page_says_ordering_is_unavailable(
    page: Page, down_site: str, demo_output: Path
) -> None:
    uncaught, console, asked = _watch(page)
    (product,) = products_with_variants(demo_output, 1)
    page.goto(down_site + product)
    form = page.locator("form.add-to-cart")
    # Showing the page asks nothing of the session service: adding to the cart finds it down.
    expect(form.locator(".cart-status")).to_have_count(1)
    form.locator('button[type="submit"]').click()
    expect(form.locator(".cart-status")).to_have_text(UNAVAILABLE)
    button = form.locator('button[type="submit"]')
    expect(button).to_have_text(BUTTON)
    expect(button).to_be_disabled()
    expect(page.locator("h1")).to_be_visible()  # the page itself reads on
    page.wait_for_timeout(4000)  # longer than the error batch's delay: any retry would show
    assert uncaught == [] and console == []
    reports = [url for url in asked if url.endswith("/storefront-errors")]
    assert len(reports) == 1, asked
    body = page.locator("body").inner_text()
    assert "null" not in body and "undefined" not in body and "Error" not in body


# The search page is not among them: it searches the build's index, without the session.
@pytest.mark.parametrize("path", ["/tai-khoan"])
def test_live_parts_say_so_in_vietnamese(page: Page, down_site: str, path: str) -> None:
    uncaught, console, _asked = _watch(page)
    page.goto(down_site + path)
    expect(page.get_by_text(UNAVAILABLE)).to_be_visible()
    assert uncaught == [] and console == []
    body = page.locator("body").inner_text()
    assert "Bật JavaScript" not in body and "Cannot read" not in body
    assert "null" not in body and "undefined" not in body
