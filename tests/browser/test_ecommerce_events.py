"""GA4-style ecommerce events in `window.dataLayer`: the four, with the right values, when
theme.toml turns them on; none when it does not. A purchase counts once per order. The same
theme's inline head snippet runs under the policy the build wrote."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.browser.live_server import live_server
from tests.browser.shopper import (
    add_variants,
    chosen_variant,
    chosen_variant_name,
    fill_checkout,
    pick_other_variant,
    products_with_variants,
)
from tests.support.demo_build import BUILD_TIMEOUT, DEMO_SITE_URL, REPO

pytestmark = pytest.mark.browser

ON = """
[analytics]
ecommerce_events = true

[[snippets]]
place = "head"
html = "<script>window.snippetRan = (window.snippetRan || 0) + 1</script>"
"""
GATHER = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(e.effectiveDirective));
"""


@pytest.fixture(scope="module")
def analytics_origin(demo_output: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo store built again from its crawl, with a theme that turns the events on."""
    base = tmp_path_factory.mktemp("analytics")
    theme = base / "theme"
    theme.mkdir()
    (theme / "theme.toml").write_text(ON, encoding="utf-8")
    shutil.copytree(demo_output.parent / "demo-cache", base / "cache")
    out = base / "out"
    command = [
        sys.executable, "-m", "generator", "build", "--from-cache", "--theme", str(theme),
        "--out", str(out), "--cache-dir", str(base / "cache"), "--site-url", DEMO_SITE_URL,
    ]  # fmt: skip
    result = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with live_server(out, base / "companion.sqlite3") as served:
        yield served


def events(page: Page, name: str) -> list[dict[str, Any]]:
    found = page.evaluate(
        "(name) => (window.dataLayer || []).filter((e) => e && e.event === name)", name
    )
    return [event["ecommerce"] for event in found]


def wait_for(page: Page, name: str) -> dict[str, Any]:
    page.wait_for_function(
        "(name) => (window.dataLayer || []).some((e) => e && e.event === name)", arg=name
    )
    [found] = events(page, name)
    return found


def price_shown(page: Page) -> int:
    return int(re.sub(r"\D", "", page.locator(".product-info .price-now").inner_text()))


def test_the_four_events_carry_the_items_prices_and_order(
    page: Page, analytics_origin: str, demo_output: Path
) -> None:
    product = products_with_variants(demo_output, 1)[0]
    page.add_init_script(GATHER)
    page.goto(analytics_origin + product)
    # The theme's inline snippet runs once, allowed by its hash in the policy the build wrote.
    assert page.evaluate("window.snippetRan") == 1
    form = page.locator("form.add-to-cart")
    product_id = form.get_attribute("data-product-id")
    name = page.locator("h1").inner_text()
    viewed = wait_for(page, "view_item")
    price = price_shown(page)
    assert viewed["currency"] == "VND" and viewed["value"] == price
    [item] = viewed["items"]
    assert item.pop("item_variant") == chosen_variant_name(form)
    assert item == {"item_id": product_id, "item_name": name, "price": price, "quantity": 1}

    pick_other_variant(form, {chosen_variant(form)})
    price = price_shown(page)
    form.locator('input[name="quantity"]').fill("2")
    form.locator('button[type="submit"]').click()
    expect(form.locator(".cart-status")).to_contain_text("Đã thêm vào giỏ hàng")
    added = wait_for(page, "add_to_cart")
    assert added["value"] == 2 * price and added["currency"] == "VND"
    [line] = added["items"]
    assert (line["item_id"], line["price"], line["quantity"]) == (product_id, price, 2)
    variant = line["item_variant"]
    assert variant == chosen_variant_name(form)

    fill_checkout(page, analytics_origin, payment="cod")
    begun = wait_for(page, "begin_checkout")
    assert begun["currency"] == "VND" and begun["value"] == 2 * price
    expected_items = [
        {
            "item_id": product_id,
            "item_name": name,
            "item_variant": variant,
            "price": price,
            "quantity": 2,
        }
    ]
    assert begun["items"] == expected_items
    done = page.locator(".order-done")
    expect(done).to_have_attribute("data-status", "pending")
    bought = wait_for(page, "purchase")
    assert bought["transaction_id"] == done.locator(".order-code").inner_text()
    assert bought["value"] == int(float(done.get_attribute("data-total") or "-1"))
    assert bought["currency"] == "VND" and bought["items"] == expected_items
    assert len(events(page, "purchase")) == 1
    assert page.evaluate("window.__violations") == []


def test_a_paid_gateway_order_is_one_purchase_not_again_on_reload(
    page: Page, analytics_origin: str, demo_output: Path
) -> None:
    add_variants(page, analytics_origin, products_with_variants(demo_output, 2)[1], 1)
    fill_checkout(page, analytics_origin, payment="vnpay")
    page.wait_for_url(re.compile(r"/sandbox/vnpay/pay\?"))
    total = int(parse_qs(urlsplit(page.url).query)["vnp_Amount"][0]) // 100  # VNPay: x100
    page.get_by_role("button", name="Thanh toán (thành công)").click()
    page.wait_for_url(re.compile(r"/thanh-toan/ket-qua\?"))
    done = page.locator(".order-done")
    expect(done).to_have_attribute("data-status", "paid")
    bought = wait_for(page, "purchase")
    assert bought["transaction_id"] == done.locator(".order-code").inner_text()
    assert len(bought["items"]) == 1 and bought["items"][0]["quantity"] == 1
    assert bought["value"] == total and bought["currency"] == "VND"

    page.reload()
    expect(page.locator(".order-done")).to_have_attribute("data-status", "paid")
    page.wait_for_function("() => Array.isArray(window.dataLayer)")  # the module is loaded
    page.wait_for_timeout(300)  # and has had its turn
    assert events(page, "purchase") == []


def test_with_the_switch_off_nothing_is_pushed_or_loaded(
    page: Page, origin: str, demo_output: Path
) -> None:
    loaded: list[str] = []
    page.on("request", lambda request: loaded.append(request.url))
    add_variants(page, origin, products_with_variants(demo_output, 1)[0], 1)
    fill_checkout(page, origin, payment="cod")
    expect(page.locator(".order-done")).to_have_attribute("data-status", "pending")
    page.wait_for_timeout(300)
    assert page.evaluate("window.dataLayer") is None
    assert not [url for url in loaded if "analytics.js" in url]
