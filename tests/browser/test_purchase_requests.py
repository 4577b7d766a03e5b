"""What a purchase costs the store's key, counted where the key is spent: at the companion, from
its request log, with the demo build served as a merchant deploys it (nginx, `storefront
session`, the companion as processes). A new shopper adds a variant on a product page, opens the
cart, applies a coupon, checks out with an address picked from the province and ward lists and
places a COD order: at most 9 requests that buy (the key's budget is the store's selling
capacity). Activity calls (entity views, ...) are counted apart; the reads that carry no
visitor state (provinces, wards, payment methods) are counted apart too, the session service's
to share between shoppers. Showing a page asks nothing for the header's cart count."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from companion.seed.demo import DEMO_KEY
from tests.browser.shopper import open_product, products_with_variants
from tests.browser.static_host import Deployed, deployed
from tests.support.api_log import Answered, settled

pytestmark = pytest.mark.serving

COUPON = "GIAM10"
BUYING_AT_MOST = 9
#: Reads of no visitor's state, which a shared cache can serve to many shoppers at once.
SHARED = ("/shipping/provinces", "/shipping/wards", "/checkout/payment-methods")


@dataclass(frozen=True, slots=True)
class Stack:
    site: Deployed
    log: Path  # the companion's output: its request lines among its messages


@pytest.fixture(scope="module")
def stack(demo_output: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("purchase-requests")
    with deployed(demo_output, work) as running:
        yield Stack(running, work / "api.log")


@dataclass(frozen=True, slots=True)
class Cost:
    buying: list[Answered]
    shared: list[Answered]
    activity: list[Answered]

    def __str__(self) -> str:
        return "\n".join(f"{a.method} {a.path} {a.status}" for a in self.buying + self.shared)


def cost(requests: list[Answered]) -> Cost:
    activity = [a for a in requests if a.activity]
    shared = [a for a in requests if not a.activity and a.path in SHARED]
    buying = [a for a in requests if a not in activity and a not in shared]
    return Cost(buying, shared, activity)


def add_one(form: Locator) -> None:
    form.locator('button[type="submit"]').click()
    expect(form.locator(".cart-status")).to_contain_text("Đã thêm vào giỏ hàng")


def purchase(page: Page, stack: Stack, product: str) -> Cost:
    """What the API received from the first add to cart to the placed order."""
    site = stack.site.site
    uncaught: list[str] = []
    page.on("pageerror", lambda error: uncaught.append(str(error)))
    product_form = open_product(page, site, product)
    before = len(settled(stack.log))  # the product page's own calls are not the purchase's
    add_one(product_form)

    page.goto(site + "/gio-hang")
    expect(page.locator(".totals dd.total")).to_contain_text("₫")
    page.locator("#coupon-code").fill(COUPON)
    page.locator("form.coupon button").click()
    expect(page.locator(".coupon-ok")).to_contain_text(COUPON)

    page.goto(site + "/thanh-toan")
    form = page.locator("form.checkout")
    button = form.locator("button.place-order")
    expect(button).to_contain_text("₫")  # shipping chosen and priced
    expect(form.locator(".totals")).to_contain_text(COUPON)
    form.locator("#co-name").fill("Nguyễn Văn An")
    form.locator("#co-phone").fill("0901234567")
    form.locator("#co-city").select_option(index=1)
    expect(form.locator("#co-ward option")).not_to_have_count(1)
    form.locator("#co-ward").select_option(index=1)
    form.locator("#co-street").fill("12 Lê Lợi")
    expect(form.locator('input[name="payment"][value="cod"]')).to_be_checked()
    amount = button.get_attribute("data-amount")
    button.click()
    done = page.locator(".order-done")
    expect(done).to_be_visible()
    assert done.get_attribute("data-total") == amount
    assert uncaught == []
    return cost(settled(stack.log)[before:])


@pytest.fixture(scope="module")
def first(browser: Browser, stack: Stack, demo_output: Path) -> Cost:
    """The first shopper's purchase: nothing shared is cached yet."""
    context = browser.new_context(locale="vi-VN")
    context.set_default_timeout(15_000)
    try:
        return purchase(context.new_page(), stack, products_with_variants(demo_output, 1)[0])
    finally:
        context.close()


def test_a_purchase_costs_at_most_nine_requests_of_the_key(first: Cost) -> None:
    assert len(first.buying) <= BUYING_AT_MOST, str(first)
    # The browser's copy of the cart serves the cart page and the checkout their lines.
    assert ("GET", "/cart") not in [(a.method, a.path) for a in first.buying], str(first)
    assert all(a.status < 400 for a in first.buying + first.shared), str(first)
    # Provinces, the province's wards, payment methods: once each at most.
    assert len(first.shared) <= len(SHARED), str(first)


def test_a_second_shoppers_purchase_costs_at_most_nine_with_the_shared_reads(
    browser: Browser, stack: Stack, demo_output: Path, first: Cost
) -> None:
    context = browser.new_context(locale="vi-VN")
    context.set_default_timeout(15_000)
    try:
        second = purchase(context.new_page(), stack, products_with_variants(demo_output, 1)[0])
    finally:
        context.close()
    assert len(second.buying) + len(second.shared) <= BUYING_AT_MOST, str(second)


def test_showing_a_page_asks_nothing_for_the_cart_count(
    page: Page, stack: Stack, demo_output: Path
) -> None:
    add_one(open_product(page, stack.site.site, products_with_variants(demo_output, 1)[0]))
    before = len(settled(stack.log))
    tab = page.context.new_page()  # its own sessionStorage: what a new tab knows
    for path in ("/", "/tai-khoan"):
        tab.goto(stack.site.site + path)
        expect(tab.locator(".cart-count").first).to_have_text("(1)")
    shown = cost(settled(stack.log)[before:])
    assert shown.buying == [] and shown.shared == [], str(shown)


def api(stack: Stack, method: str, path: str, **kwargs: Any) -> Any:
    """The API as another device (or the template engine) calls it, with the store's key."""
    answer = httpx.request(
        method, stack.site.api_url + path, headers={"X-Service-Key": DEMO_KEY}, **kwargs
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def two_variants(stack: Stack, form: Locator) -> tuple[int, int]:
    """The variant the product page starts on, and another of the product's in stock."""
    chosen = int(form.locator('input[name="variant_id"]').input_value())
    product = form.get_attribute("data-product-id")
    variants = api(stack, "GET", f"/products/{product}/variants")["items"]
    other = next(v["id"] for v in variants if v["in_stock"] and v["id"] != chosen)
    return chosen, int(other)


def requests_of(shown: Cost) -> list[tuple[str, str]]:
    return sorted((a.method, a.path) for a in shown.buying + shown.shared)


def test_the_cart_page_shows_a_cart_changed_on_another_device(
    page: Page, stack: Stack, demo_output: Path
) -> None:
    form = open_product(page, stack.site.site, products_with_variants(demo_output, 1)[0])
    chosen, other = two_variants(stack, form)
    add_one(form)
    token = {c["name"]: c["value"] for c in page.context.cookies()}["service_cart"]
    # The same customer's cart, changed elsewhere: this browser's copy does not know.
    both = {"items": [{"variant_id": chosen, "quantity": 1}, {"variant_id": other, "quantity": 1}]}
    api(stack, "PUT", "/cart/items", params={"token": token}, json=both)
    before = len(settled(stack.log))
    page.goto(stack.site.site + "/gio-hang")
    expect(page.locator(".cart-line")).to_have_count(2)
    expect(page.locator(".totals dd.total")).to_contain_text("₫")
    # The quote priced two lines where the copy had one: the cart read once, to show them.
    shown = cost(settled(stack.log)[before:])
    assert requests_of(shown) == [("GET", "/cart"), ("GET", "/cart/quote")], str(shown)
    expect(page.locator(".cart-count").first).to_have_text("(2)")


def test_a_cart_without_a_copy_is_read_once_when_it_is_added_to(
    page: Page, stack: Stack, demo_output: Path
) -> None:
    """A cart the template engine made (the cookie is shared): its count is not known until
    the cart is read, and reading it waits for the shopper to add to it."""
    form = open_product(page, stack.site.site, products_with_variants(demo_output, 1)[0])
    chosen, other = two_variants(stack, form)
    one = {"items": [{"variant_id": other, "quantity": 1}]}
    made = api(stack, "PUT", "/cart/items", json=one)
    page.context.add_cookies(
        [{"name": "service_cart", "value": made["token"], "url": stack.site.site}]
    )
    before = len(settled(stack.log))
    form = open_product(page, stack.site.site, products_with_variants(demo_output, 1)[0])
    expect(page.locator(".cart-count").first).to_have_text("")
    browsing = len(settled(stack.log))
    shown = cost(settled(stack.log)[before:browsing])
    assert ("GET", "/cart") not in requests_of(shown), str(shown)
    add_one(form)
    expect(page.locator(".cart-count").first).to_have_text("(2)")
    shown = cost(settled(stack.log)[browsing:])
    assert requests_of(shown) == [("GET", "/cart"), ("PUT", "/cart/items")], str(shown)
    kept = api(stack, "GET", "/cart", params={"token": made["token"]})
    assert sorted(i["variant_id"] for i in kept["items"]) == sorted([chosen, other])
