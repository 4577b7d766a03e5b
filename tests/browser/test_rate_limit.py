"""A 429 from the API, seen in the browser: a calm message, and no request loop. When the
key's buying reserve runs out, the session service's 429 tells the shopper when to try again,
and nothing is lost: the cart keeps what was added, in the API and in the browser's copy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Response, expect
from sqlalchemy import create_engine, func, select

from companion.db.commerce_schema import cart_items, carts
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


def quantity_in_cart(database: Path, token: str) -> int:
    """The units the API's cart of ``token`` holds, read from its database (not through the
    key, which is spent)."""
    engine = create_engine(f"sqlite:///{database}")
    try:
        with engine.connect() as conn:
            query = (
                select(func.coalesce(func.sum(cart_items.c.quantity), 0))
                .join(carts, carts.c.id == cart_items.c.cart_id)
                .where(carts.c.token == token, carts.c.status == "active")
            )
            return int(conn.execute(query).scalar_one())
    finally:
        engine.dispose()


def test_rate_limited_page_shows_a_calm_message_and_does_not_loop(
    page: Page, limited_origin: str, demo_output: Path, tmp_path: Path
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
    # The session service's own 429 for buying: the key's reserve is spent, nothing was sent.
    refused = limited[-1]
    assert refused.request.method == "PUT" and refused.json()["code"] == "key_budget_spent"
    wait = min(int(refused.headers["retry-after"]), 120)
    expect(notice).to_contain_text(f"Vui lòng đợi khoảng {wait} giây rồi thử lại")
    # Nothing lost: the adds answered before the refusal are in the API's cart and the copy.
    added = sum(r.request.method == "PUT" and r.status == 200 for r in answers)
    assert added >= 1, "the first add should have been answered before the limit"
    token = {c["name"]: c["value"] for c in page.context.cookies()}["service_cart"]
    assert quantity_in_cart(tmp_path / "limited.sqlite3", token) == added
    expect(page.locator(".cart-count").first).to_have_text(f"({added})")
    assert page.evaluate("JSON.parse(localStorage.sf_cart).item_count") == added
    page.wait_for_timeout(3000)
    # A 429 is retried (a read) only after Retry-After, never at once.
    assert len(answers) <= 10, [(r.request.method, r.url, r.status) for r in answers]
    expect(page.locator("h1")).to_be_visible()  # the page itself is intact
