"""A 429 from the API, seen in the browser: a calm message, and no request loop."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Response, expect

from tests.browser.live_server import live_server
from tests.browser.shopper import products_with_variants

pytestmark = pytest.mark.browser
# A product page's view and a few adds to the cart make more calls than this.
TINY_LIMIT = 2
#: Adds to the cart tried before the limit must have answered.
ADDS = 4


@pytest.fixture
def limited_origin(demo_output: Path, tmp_path: Path) -> Iterator[str]:
    with live_server(demo_output, tmp_path / "limited.sqlite3", rate_per_minute=TINY_LIMIT) as at:
        yield at


def test_rate_limited_page_shows_a_calm_message_and_does_not_loop(
    page: Page, limited_origin: str, demo_output: Path
) -> None:
    answers: list[Response] = []
    page.on("response", lambda r: answers.append(r) if "/session/api/" in r.url else None)
    page.goto(limited_origin + products_with_variants(demo_output, 1)[0])
    notice = page.locator("main .notice")
    # Showing the page asks nothing but its view: adding to the cart reaches the limit.
    form = page.locator("form.add-to-cart")
    expect(form.locator(".cart-status")).to_have_count(1)
    for _ in range(ADDS):
        form.locator('button[type="submit"]').click()
        page.wait_for_function(
            "() => document.querySelector('main .notice') ||"
            " document.querySelector('.cart-status').textContent !== 'Đang thêm…'"
        )
        if notice.count():
            break
    expect(notice).to_contain_text("nhiều lượt truy cập")
    expect(notice).to_have_attribute("role", "status")
    limited = [r for r in answers if r.status == 429]
    assert limited, "the tiny limit should have answered 429"
    assert all(r.headers.get("retry-after") for r in limited)
    page.wait_for_timeout(3000)
    # A 429 is retried (a read) only after Retry-After, never at once.
    assert len(answers) <= 10, [(r.request.method, r.url, r.status) for r in answers]
    expect(page.locator("h1")).to_be_visible()  # the page itself is intact
