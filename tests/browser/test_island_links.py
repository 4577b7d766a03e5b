"""Urls the islands draw from API answers: only site paths become links, whatever the API says.

The cart page is drawn from the session layer's answer; here an upstream that answers with a
hostile product url stands in for a broken or compromised implementation of the spec."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, Route

HOSTILE_URL = "javascript:alert(document.domain)//"


def _cart_with(url: str) -> Callable[[Route], None]:
    def answer(route: Route) -> None:
        _hostile_cart(route, url)

    return answer


def _hostile_cart(route: Route, url: str) -> None:
    item = {
        "variant_id": 1,
        "product_id": 1,
        "name": "Áo thun",
        "variant_name": "M",
        "url": url,
        "quantity": 1,
        "unit_price": 100000,
        "line_total": 100000,
    }
    cart = {"token": "t" * 32, "items": [item], "item_count": 1, "subtotal": 100000}
    route.fulfill(status=200, content_type="application/json", body=json.dumps(cart))


def _quote(route: Route) -> None:
    quote = {
        "subtotal": 100000,
        "discount_lines": [],
        "tax_lines": [],
        "shipping_total": 0,
        "total": 100000,
        "coupon": None,
    }
    route.fulfill(status=200, content_type="application/json", body=json.dumps(quote))


def _no_coupon_held(route: Route) -> None:
    checkout = {"checkout_id": 1, "coupon_code": None}
    route.fulfill(status=200, content_type="application/json", body=json.dumps(checkout))


@pytest.mark.parametrize("url", [HOSTILE_URL, "//evil.example/x", "/\\evil.example/x"])
def test_a_cart_item_whose_url_is_not_a_site_path_is_not_a_link(
    page: Page, origin: str, url: str
) -> None:
    page.context.add_cookies([{"name": "service_cart", "value": "t" * 32, "url": origin}])
    page.route(re.compile(r"/session/api/cart/quote\?"), _quote)
    # A cart this browser has no copy of: the cart page asks its checkout for the coupon held.
    page.route(re.compile(r"/session/api/checkout\?"), _no_coupon_held)
    page.route(re.compile(r"/session/api/cart\?"), _cart_with(url))
    page.goto(f"{origin}/gio-hang")
    name = page.locator(".cart-name").first
    name.wait_for()
    assert "Áo thun" in name.inner_text()
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
    assert url not in hrefs
    assert not [href for href in hrefs if href.strip().lower().startswith("javascript:")]
