"""What showing a page costs the store's API key, counted where the key is spent: the requests
the companion answers (its request log), for each page type a shopper opens, in a fresh browser.
Showing a page asks nothing; activity (a view, an error report) is counted apart, at most one
call a view. Counted until the session service's activity queue is empty and no new request
has come for a second (the service forwards activity from its queue), within a bound; nothing
dropped from the queue meanwhile, so what the companion counts is every activity call sent."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from companion.logging_http import ACCESS_LOGGER
from tests.browser.shopper import add_variants, open_product, products_with_variants, register
from tests.support.counting_companion import CountingCompanion

pytestmark = pytest.mark.browser

#: Calls that record what a visitor did; they buy nothing and show nothing.
ACTIVITY = (
    "/analytics/entity-view",
    "/customer/product-views",
    "/recommendations/view",
    "/banners/",
    "/storefront-errors",
)
#: No new request for this long: the counts are taken as final.
QUIET = 1.0
#: The longest wait for that quiet.
BOUND = 20.0


@contextmanager
def counting() -> Iterator[CountingCompanion]:
    """Every API request the in-process companion answers while the block runs."""
    counter = CountingCompanion("")
    logger = logging.getLogger(ACCESS_LOGGER)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(counter)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield counter
    finally:
        logger.removeHandler(counter)
        logger.setLevel(level)
        logger.propagate = propagate


def activity_figures(origin: str) -> dict[str, int]:
    """The session service's activity queue, as /session/health shows it."""
    answer = httpx.get(origin + "/session/health", timeout=5)
    assert answer.status_code == 200, answer.text
    figures = answer.json()["budget"]["activity"]
    return {name: int(figures[name]) for name in ("queued", "forwarded", "dropped")}


def settled(counter: CountingCompanion, origin: str) -> list[str]:
    """The paths answered, once the session service's activity queue is empty and none has
    come for QUIET seconds (at most BOUND)."""
    deadline = time.monotonic() + BOUND
    seen, since = counter.requests, time.monotonic()
    while time.monotonic() - since < QUIET or activity_figures(origin)["queued"]:
        assert time.monotonic() < deadline, "the API kept being asked"
        time.sleep(0.1)
        if counter.requests != seen:
            seen, since = counter.requests, time.monotonic()
    with counter._lock:
        return [path for path, _status in counter.answered]


def split(paths: list[str]) -> tuple[list[str], list[str]]:
    """(showing, activity)."""
    activity = [p for p in paths if p.startswith(ACTIVITY)]
    return [p for p in paths if p not in activity], activity


def first(out: Path, folder: str) -> str:
    return "/" + folder + "/" + sorted((out / folder).glob("*.html"))[0].stem


def page_paths(out: Path) -> dict[str, str]:
    return {
        "home": "/",
        "category": first(out, "danh-muc"),
        "collection": first(out, "bo-suu-tap"),
        "product": products_with_variants(out, 1)[0],
        "article": first(out, "bai-viet"),
        "cms_page": first(out, "trang"),
    }


def shown(page: Page, origin: str, path: str) -> None:
    page.goto(origin + path)
    page.wait_for_load_state("networkidle")


@pytest.mark.parametrize(
    "kind",
    [
        "home",
        "category",
        "collection",
        "product",
        "article",
        "cms_page",
    ],
)
def test_showing_a_page_asks_the_api_nothing_and_sends_one_activity_call_at_most(
    browser: Browser, origin: str, demo_output: Path, kind: str
) -> None:
    context = browser.new_context(locale="vi-VN")
    dropped = activity_figures(origin)["dropped"]
    try:
        page = context.new_page()
        with counting() as counter:
            shown(page, origin, page_paths(demo_output)[kind])
            page.close()  # pagehide: whatever the page still had to send goes now
            showing, activity = split(settled(counter, origin))
    finally:
        context.close()
    assert activity_figures(origin)["dropped"] == dropped  # every activity call reached the API
    assert showing == [], showing
    assert len(activity) <= 1, activity
    if kind != "home":  # a page of one thing records its view
        assert activity == ["/analytics/entity-view"]


def test_a_visitor_with_a_cart_is_shown_a_product_page_without_asking(
    browser: Browser, origin: str, demo_output: Path
) -> None:
    """A returning visitor (a cart cookie, a new tab) opens another product page."""
    first_product, other = products_with_variants(demo_output, 2)
    context = browser.new_context(locale="vi-VN")
    try:
        buying = context.new_page()
        add_variants(buying, origin, first_product, 1)
        buying.close()
        with counting() as counter:
            page = context.new_page()
            shown(page, origin, other)
            expect(page.locator("[data-island=recommendations] h2")).to_have_text("Sản phẩm đã xem")
            page.close()
            showing, activity = split(settled(counter, origin))
    finally:
        context.close()
    # The header's cart count comes from the browser's copy of the cart: nothing is asked.
    assert showing == [], showing
    assert activity == ["/analytics/entity-view"]


def a_customers_product_view(
    browser: Browser, origin: str, demo_output: Path
) -> tuple[list[str], list[tuple[str, int]]]:
    """A customer registers, then opens a product page in a new tab: (what the page sent to
    the session service's API, what the companion answered meanwhile)."""
    context = browser.new_context(locale="vi-VN")
    try:
        page = context.new_page()
        register(page, origin, "Trần Thị Xem", f"xem-{time.time_ns()}@example.vn", "mat-khau-123")
        # The account page then reads the customer's lists; those are not the view's.
        page.wait_for_function(
            """() => [...document.querySelectorAll('[data-list] > div')].every((d) =>
                 d.textContent !== d.closest('[data-loading]').dataset.loading)"""
        )
        page.close()
        sent: list[str] = []
        with counting() as counter:
            page = context.new_page()
            page.on("request", lambda r: sent.append(urlsplit(r.url).path))
            shown(page, origin, products_with_variants(demo_output, 1)[0])
            page.close()
            settled(counter, origin)
            with counter._lock:
                answered = list(counter.answered)
    finally:
        context.close()
    return [p.removeprefix("/session/api") for p in sent if p.startswith("/session/api/")], answered


def test_a_customers_product_view_is_sent_to_their_account_as_the_one_activity_call(
    browser: Browser, origin: str, demo_output: Path
) -> None:
    sent, _answered = a_customers_product_view(browser, origin, demo_output)
    assert sent[:1] == ["/customer/product-views"]
    assert "/analytics/entity-view" not in sent


def test_the_account_keeps_a_customers_product_view(
    browser: Browser, origin: str, demo_output: Path
) -> None:
    _sent, answered = a_customers_product_view(browser, origin, demo_output)
    showing, activity = split([path for path, _status in answered])
    assert showing == [], showing
    assert activity == ["/customer/product-views"]
    assert dict(answered)["/customer/product-views"] == 201


def test_recently_viewed_is_kept_in_the_browser_and_shown_without_asking(
    page: Page, origin: str, demo_output: Path
) -> None:
    one, two = products_with_variants(demo_output, 2)
    island = page.locator("[data-island=recommendations]")
    open_product(page, origin, one)
    expect(island.locator("section")).to_have_count(0)  # nothing seen before
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/session/api/" in r.url else None)
    open_product(page, origin, two)
    expect(island.get_by_role("heading", name="Sản phẩm đã xem")).to_be_visible()
    links = island.locator(".card h3 a").evaluate_all("as => as.map((a) => a.pathname)")
    assert links == [one]
    assert [u for u in asked if "/recommendations/" in u or "/variants" in u] == []
    # kept as each page drew its card (its own template part), newest first
    kept = page.evaluate("JSON.parse(localStorage.getItem('sf_seen'))")
    assert [re.search(r'href="([^"]+)"', p["html"])[1] for p in kept][:2] == [two, one]
