"""The shopper's whole path in Chromium: product, cart, coupons, checkout, account, payment."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.shopper import (
    add_variants,
    cookie_names_in_script,
    fill_checkout,
    products_with_variants,
    register,
)

pytestmark = pytest.mark.browser


def test_guest_buys_two_variants_with_a_coupon_and_cash_on_delivery(
    page: Page, context: BrowserContext, origin: str, demo_output: Path
) -> None:
    product = products_with_variants(demo_output, 1)[0]
    page.goto(origin + "/")
    expect(page.locator("header .cart-count")).to_have_text("")
    add_variants(page, origin, product, 2)
    expect(page.locator("header .cart-count")).to_have_text("(2)")
    cart_cookie = next(c for c in context.cookies() if c["name"] == "service_cart")
    assert cart_cookie["httpOnly"] is False
    assert "service_cart=" in cookie_names_in_script(page)

    page.goto(origin + "/gio-hang")
    expect(page.locator(".cart-line")).to_have_count(2)
    coupon = page.locator("form.coupon")
    coupon.locator("#coupon-code").fill("HETHAN")
    coupon.locator("button").click()
    expect(page.locator(".coupon-bad")).to_be_visible()
    before = page.locator("dd.total").inner_text()
    coupon.locator("#coupon-code").fill("GIAM10")
    coupon.locator("button").click()
    expect(page.locator(".coupon-ok")).to_be_visible()
    expect(page.locator("dd.total")).not_to_have_text(before)
    # The coupon's own line (the demo's "mua 2" promotion may add another for two items).
    expect(page.locator(".totals dt").filter(has_text="GIAM10")).to_have_count(1)

    page.get_by_role("link", name="Thanh toán", exact=True).last.click()
    expect(page.locator('input[name="payment"]').first).to_have_value("cod")
    fill_checkout(page, origin, payment="cod")
    done = page.locator(".order-done")
    expect(done).to_have_attribute("data-status", "pending")
    expect(done.locator(".order-code")).to_have_text(re.compile(r"\S+"))
    assert "service_cart=" not in cookie_names_in_script(page)
    expect(page.locator("header .cart-count")).to_have_text("")


def test_customer_registers_logs_in_and_finds_the_order_in_the_account(
    page: Page, context: BrowserContext, origin: str, demo_output: Path
) -> None:
    register(page, origin, "Trần Thị Bình", "binh@example.vn", "mat-khau-dai")
    page.get_by_role("button", name="Đăng xuất").click()

    login = page.locator('form[data-form="login"]')
    login.locator("#li-email").fill("binh@example.vn")
    login.locator("#li-password").fill("mat-khau-dai")
    login.locator("button").click()
    expect(page.locator(".greeting")).to_be_visible()
    customer = next(c for c in context.cookies() if c["name"] == "service_customer")
    assert customer["httpOnly"] is True
    assert customer["sameSite"] == "Lax"
    assert "service_customer" not in cookie_names_in_script(page)

    add_variants(page, origin, products_with_variants(demo_output, 2)[1], 1)
    fill_checkout(page, origin, payment="cod")
    code = page.locator(".order-done .order-code").inner_text()
    page.goto(origin + "/tai-khoan")
    order = page.locator(f'.order[data-code="{code}"]')
    expect(order).to_have_attribute("data-status", "pending")
    # dd/mm/yyyy, the day in Vietnam whatever the browser's zone (the demo places at real time).
    today = datetime.now(ZoneInfo("Asia/Ho_Chi_Minh")).strftime("%d/%m/%Y")
    expect(order.locator('[data-field="placed_at"]')).to_have_text(today)
    order.get_by_role("button", name="Chi tiết").click()
    expect(order.locator("dl")).to_contain_text("Tổng cộng")


@pytest.mark.parametrize(
    ("button", "status"),
    [("Thanh toán (thành công)", "paid"), ("Hủy thanh toán", "payment_failed")],
)
def test_gateway_payment_ends_in_the_status_the_ipn_decided(
    page: Page, origin: str, demo_output: Path, button: str, status: str
) -> None:
    add_variants(page, origin, products_with_variants(demo_output, 3)[2], 1)
    fill_checkout(page, origin, payment="vnpay")
    page.wait_for_url(re.compile(r"/sandbox/vnpay/pay\?"))
    page.get_by_role("button", name=button).click()
    page.wait_for_url(re.compile(r"/thanh-toan/ket-qua\?"))
    expect(page.locator(".order-done")).to_have_attribute("data-status", status)
    retry = page.get_by_role("button", name="Thanh toán lại")
    if status == "paid":
        expect(retry).to_be_hidden()
        return
    # A cancelled payment is not a dead end: the same order is paid from the return page.
    code = page.locator(".order-code").inner_text()
    retry.click()
    page.wait_for_url(re.compile(r"/sandbox/vnpay/pay\?"))
    page.get_by_role("button", name="Thanh toán (thành công)").click()
    page.wait_for_url(re.compile(r"/thanh-toan/ket-qua\?"))
    expect(page.locator(".order-done")).to_have_attribute("data-status", "paid")
    expect(page.locator(".order-code")).to_have_text(code)
