"""The account page's messages: a form's own words for an error code, and a 422 that names the
fields by the page's labels; never the API's text. What the shopper's own input earns (a wrong
password, a coupon that does not apply) is said on the page, never reported as a fault."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Page, Request, expect

from tests.browser.shopper import add_variants, products_with_variants, register


def test_login_and_register_say_what_went_wrong_in_the_pages_words(page: Page, origin: str) -> None:
    register(page, origin, "Lê Văn Cường", "cuong@example.vn", "mat-khau-dai")
    page.get_by_role("button", name="Đăng xuất").click()

    login = page.locator('form[data-form="login"]')
    login.locator("#li-email").fill("cuong@example.vn")
    login.locator("#li-password").fill("sai-mat-khau")
    login.locator('button[type="submit"]').click()
    expect(login.locator("[role=status]")).to_have_text("Email hoặc mật khẩu không đúng.")

    signup = page.locator('form[data-form="register"]')
    signup.locator("#re-name").fill("Lê Văn Cường")
    signup.locator("#re-email").fill("cuong@example.vn")
    signup.locator("#re-password").fill("mat-khau-dai")
    signup.locator('button[type="submit"]').click()
    expect(signup.locator("[role=status]")).to_have_text(
        "Email này đã có tài khoản. Vui lòng đăng nhập."
    )

    # The browser's own checks off, a short password reaches the API: its 422 names the field
    # as the page labels it.
    signup.evaluate("form => { form.noValidate = true }")
    signup.locator("#re-email").fill("moi@example.vn")
    signup.locator("#re-password").fill("ngan")
    signup.locator('button[type="submit"]').click()
    expect(signup.locator("[role=status]")).to_have_text("Vui lòng kiểm tra lại: Mật khẩu.")


def test_a_throttled_login_says_so_in_the_pages_words(page: Page, origin: str) -> None:
    register(page, origin, "Phạm Thu Hà", "ha@example.vn", "mat-khau-dai")
    page.get_by_role("button", name="Đăng xuất").click()
    login = page.locator('form[data-form="login"]')
    status = login.locator("[role=status]")
    for n in range(6):  # five wrong passwords are evaluated; the sixth try is refused
        login.locator("#li-email").fill("ha@example.vn")
        login.locator("#li-password").fill(f"sai-mat-khau-{n}")
        status.evaluate("el => { el.textContent = '' }")
        login.locator('button[type="submit"]').click()
        expect(status).not_to_have_text("")
    expect(status).to_have_text("Bạn đã đăng nhập sai nhiều lần. Vui lòng thử lại sau ít phút.")
    expect(page.locator(".notice")).to_have_count(0)  # not the store's traffic: no busy notice


def test_a_shoppers_own_mistakes_are_not_reported_as_faults(page: Page, origin: str) -> None:
    reported: list[dict[str, object]] = []

    def collect(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/storefront-errors"):
            reported.extend(json.loads(request.post_data or "{}")["events"])

    page.on("request", collect)
    register(page, origin, "Đỗ Minh Khoa", "khoa@example.vn", "mat-khau-dai")
    page.get_by_role("button", name="Đăng xuất").click()
    login = page.locator('form[data-form="login"]')
    status = login.locator("[role=status]")
    for n in range(6):  # wrong passwords (401), then a throttled login (429 login_throttled)
        login.locator("#li-email").fill("khoa@example.vn")
        login.locator("#li-password").fill(f"sai-mat-khau-{n}")
        status.evaluate("el => { el.textContent = '' }")
        login.locator('button[type="submit"]').click()
        expect(status).not_to_have_text("")
    expect(status).to_have_text("Bạn đã đăng nhập sai nhiều lần. Vui lòng thử lại sau ít phút.")
    signup = page.locator('form[data-form="register"]')
    signup.evaluate("form => { form.noValidate = true }")
    signup.locator("#re-name").fill("Đỗ Minh Khoa")
    signup.locator("#re-email").fill("khoa@example.vn")
    signup.locator("#re-password").fill("mat-khau-dai")
    signup.locator('button[type="submit"]').click()  # 409 email_taken
    expect(signup.locator("[role=status]")).to_have_text(
        "Email này đã có tài khoản. Vui lòng đăng nhập."
    )
    signup.locator("#re-email").fill("khoa2@example.vn")
    signup.locator("#re-password").fill("ngan")
    signup.locator('button[type="submit"]').click()  # 422
    expect(signup.locator("[role=status]")).to_have_text("Vui lòng kiểm tra lại: Mật khẩu.")
    # A genuine fault (an endpoint that is not there) is still reported, and sent now.
    with page.expect_request(lambda r: r.url.endswith("/storefront-errors")):
        page.evaluate(
            """async () => {
                const main = await import(document.querySelector('script[type=module]').src)
                await main.api('/no-such-endpoint').catch(() => {})
                main.flush()
            }"""
        )
    assert [(e["status"], e["method"]) for e in reported] == [(404, "GET")], reported


def test_a_coupon_that_does_not_apply_is_not_reported_as_a_fault(
    page: Page, origin: str, demo_output: Path
) -> None:
    reported: list[dict[str, object]] = []

    def collect(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/storefront-errors"):
            reported.extend(json.loads(request.post_data or "{}")["events"])

    page.on("request", collect)
    add_variants(page, origin, products_with_variants(demo_output, 1)[0], 1)
    page.goto(origin + "/gio-hang")
    coupon = page.locator("form.coupon")
    # Expired, not started, used up, under its minimum order, unknown: each said on the page.
    for code in ("HETHAN", "SAPTOI", "HETLUOT", "GIAM50K", "KHONGCO"):
        page.locator(".totals").evaluate("el => { el.textContent = '' }")
        coupon.locator("#coupon-code").fill(code)
        coupon.locator("button").click()
        expect(page.locator(".coupon-bad")).to_be_visible()
        expect(page.locator(".totals")).not_to_have_text("")
    # A coupon this device held, used up since: the checkout takes it off and prices without.
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "service_cart")
    page.evaluate(
        "(token) => { localStorage.sf_coupon = JSON.stringify({ token, code: 'HETLUOT' }) }", token
    )
    page.goto(origin + "/thanh-toan")
    form = page.locator("form.checkout")
    expect(form.locator("button.place-order")).to_be_enabled()
    expect(form.locator(".co-coupon")).to_be_hidden()
    # A genuine fault is still reported, and sent now: the only one.
    with page.expect_request(lambda r: r.url.endswith("/storefront-errors")):
        page.evaluate(
            """async () => {
                const main = await import(document.querySelector('script[type=module]').src)
                await main.api('/no-such-endpoint').catch(() => {})
                main.flush()
            }"""
        )
    assert [(e["status"], e["method"]) for e in reported] == [(404, "GET")], reported
