"""Selling from a static host: the demo build served by nginx with the shipped config,
`storefront session` and the companion as separate processes. A shopper adds two variants,
applies a coupon, picks a paid shipping method, places a COD order, logs in and sees it; the
total on screen at each step is the one the backend computes, and the place-order amount is
the order's total. Against a backend that leaves coupons out of orders (the spec's letter),
the shopper is told before ordering, and the amount is still the one charged."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from companion.seed.demo import DEMO_KEY
from tests.browser import shopper
from tests.browser.shopper import add_variants, products_with_variants
from tests.browser.static_host import Deployed, deployed

pytestmark = pytest.mark.serving

COUPON = "GIAM10"
PAID_SHIPPING = "express"
LEFT_OUT = "cửa hàng chưa trừ mã giảm giá và khuyến mãi vào đơn hàng"
ACCOUNT = {"email": "thu@example.vn", "password": "mat-khau-dai", "name": "Trần Thu"}


@pytest.fixture(scope="module", params=[True, False], ids=["order-discounts", "spec-orders"])
def site(
    request: pytest.FixtureRequest, demo_output: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployed]:
    work = tmp_path_factory.mktemp("static-host")
    with deployed(demo_output, work, order_discounts=request.param) as running:
        yield running


def vnd(amount: int | str) -> str:
    return f"{int(amount):,}".replace(",", ".") + " ₫"


def backend_quote(site: Deployed, token: str, coupon: str | None) -> dict[str, Any]:
    params = {"token": token, **({"coupon_code": coupon} if coupon else {})}
    answer = httpx.get(
        f"{site.api_url}/cart/quote", params=params, headers={"X-Service-Key": DEMO_KEY}
    )
    assert answer.status_code == 200, answer.text
    quote: dict[str, Any] = answer.json()
    return quote


def quote_once(
    site: Deployed, token: str, coupon: str | None, holds: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The backend's quote once ``holds`` is true of it (within 5 s, else the assertion)."""
    deadline = time.monotonic() + 5
    quote = backend_quote(site, token, coupon)
    while not holds(quote) and time.monotonic() < deadline:
        time.sleep(0.05)
        quote = backend_quote(site, token, coupon)
    assert holds(quote), quote
    return quote


def cart_token(page: Page) -> str:
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    return cookies["service_cart"]


def register(page: Page, site: str) -> None:
    shopper.register(page, site, ACCOUNT["name"], ACCOUNT["email"], ACCOUNT["password"])


SAVED = {"name": "Trần Thu", "phone": "0912345678", "street": "5 Nguyễn Huệ"}


def save_address(page: Page, site: Deployed) -> str:
    """An address in the account's book (the default: the first); its province's name."""
    provinces = httpx.get(
        f"{site.api_url}/shipping/provinces", headers={"X-Service-Key": DEMO_KEY}
    ).json()["items"]
    province = str(provinces[1]["name"])
    form = page.locator("form.address")
    form.locator("#ad-name").fill(SAVED["name"])
    form.locator("#ad-phone").fill(SAVED["phone"])
    form.locator("#ad-city").select_option(label=province)  # the book's province picker
    expect(form.locator("#ad-ward option")).not_to_have_count(1)
    form.locator("#ad-ward").select_option(index=1)
    form.locator("#ad-street").fill(SAVED["street"])
    form.locator('button[type="submit"]').click()
    expect(page.locator(".account-part").filter(has_text="Sổ địa chỉ")).to_contain_text(
        SAVED["street"]
    )
    return province


def test_a_shopper_buys_and_every_total_is_the_backends(
    page: Page, site: Deployed, demo_output: Path, request: pytest.FixtureRequest
) -> None:
    spec_orders = "spec-orders" in request.node.callspec.id
    uncaught: list[str] = []
    page.on("pageerror", lambda error: uncaught.append(str(error)))
    register(page, site.site)
    province = save_address(page, site)
    (product,) = products_with_variants(demo_output, 1)
    add_variants(page, site.site, product, 2)

    # Cart: the coupon applied, the total the backend's quote.
    page.goto(site.site + "/gio-hang")
    page.locator("#coupon-code").fill(COUPON)
    page.locator("form.coupon button").click()
    expect(page.locator(".coupon-ok")).to_contain_text(COUPON)
    quote = backend_quote(site, cart_token(page), COUPON)
    assert quote["coupon"]["valid"] and quote["discount_lines"]
    expect(page.locator(".totals dd.total")).to_have_text(vnd(quote["total"]))
    if spec_orders:
        expect(page.get_by_text(LEFT_OUT, exact=False)).to_be_visible()
    # The companion's own words (English labels and coupon messages) never reach the page.
    cart_text = page.locator("main").inner_text()
    assert "Coupon" not in cart_text and "included" not in cart_text, cart_text

    # Checkout: the items shown, the paid method chosen, its fee in the amount at once.
    page.goto(site.site + "/thanh-toan")
    form = page.locator("form.checkout")
    expect(form.locator(".checkout-items li")).to_have_count(2)
    button = form.locator("button.place-order")
    expect(button).to_be_enabled()
    form.locator(f'input[name="shipping"][value="{PAID_SHIPPING}"]').check()
    # The island tells the backend the method after the check: wait for it to land there.
    quote = quote_once(site, cart_token(page), COUPON, lambda q: int(q["shipping_total"]) > 0)
    if spec_orders:
        assert quote["order_discounts"] is False
        expected = int(quote["subtotal"]) + int(quote["shipping_total"])
        expect(form.get_by_text(LEFT_OUT, exact=False)).to_be_visible()
    else:
        assert quote["order_discounts"] is True
        expected = int(quote["total"])
    expect(button).to_have_attribute("data-amount", str(expected))
    expect(button).to_contain_text(vnd(expected))
    expect(form.locator(".totals dd.total")).to_have_text(vnd(expected))

    # The saved address is filled in (it has no ward: the account form does not ask for one).
    expect(form.locator("#co-name")).to_have_value(SAVED["name"])
    expect(form.locator("#co-phone")).to_have_value(SAVED["phone"])
    expect(form.locator("#co-street")).to_have_value(SAVED["street"])
    expect(form.locator("#co-city option:checked")).to_have_text(province)

    # A delivery needs province, ward, street, name and phone: said in Vietnamese.
    form.locator("#co-name").fill("")
    form.locator("#co-street").fill("")
    form.locator("#co-ward").select_option("")  # the saved ward, taken away
    button.click()
    expect(form.locator("#co-name ~ .field-error")).to_have_text(
        "Vui lòng nhập họ và tên người nhận."
    )
    expect(form.locator("#co-ward ~ .field-error")).to_have_text("Vui lòng chọn phường/xã.")
    expect(form.locator("#co-street ~ .field-error")).to_have_text(
        "Vui lòng nhập số nhà, tên đường."
    )
    expect(form.locator("#co-phone ~ .field-error")).to_have_text("")
    name_error = form.locator("#co-name ~ .field-error")
    body_colour = page.evaluate("getComputedStyle(document.body).color")
    assert name_error.evaluate("e => getComputedStyle(e).color") != body_colour
    expect(form.locator("#co-name")).to_have_attribute("aria-invalid", "true")
    form.locator("#co-name").fill("Trần Thu")
    expect(form.locator("#co-ward option")).not_to_have_count(1)
    form.locator("#co-ward").select_option(index=1)
    # Each message goes once its field is right, before the next try.
    expect(name_error).to_have_text("")
    expect(form.locator("#co-ward ~ .field-error")).to_have_text("")
    expect(form.locator("#co-name")).to_have_attribute("aria-invalid", "false")
    form.locator("#co-street").fill("12 Lê Lợi")
    form.locator('input[name="payment"][value="cod"]').check()
    button.click()

    done = page.locator(".order-done")
    expect(done).to_be_visible()
    assert done.get_attribute("data-total") == str(expected)  # the order charged, to the dong
    code = done.locator(".order-code").inner_text()

    # Log out, log in, and see the order with that total.
    page.goto(site.site + "/tai-khoan")
    page.locator(".greeting button").click()
    login = page.locator('form[data-form="login"]')
    login.locator("#li-email").fill(ACCOUNT["email"])
    login.locator("#li-password").fill(ACCOUNT["password"])
    login.locator('button[type="submit"]').click()
    order = page.locator(f'.order[data-code="{code}"]')
    expect(order).to_contain_text(vnd(expected))
    assert uncaught == []
    body = page.locator("body").inner_text()
    assert "null" not in body and "undefined" not in body
