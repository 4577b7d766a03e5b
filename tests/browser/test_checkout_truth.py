"""One truth from cart to order: the coupon the cart's checkout holds on the server is the one
every tab, every later visit and every device of the customer shows (and can take off), and the
place-order button, the summary and the order agree. Then the checkout's layout: two columns on
a desktop, the summary folded above the form on a phone, line items that read clearly."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.browser.shopper import add_variants, products_with_variants, register

COUPON = "GIAM10"
DAY_MS = 24 * 3600 * 1000


def apply_in_cart(page: Page, origin: str) -> None:
    page.goto(origin + "/gio-hang")
    page.locator("#coupon-code").fill(COUPON)
    page.locator("form.coupon button[type=submit]").click()
    expect(page.locator(".coupon-ok")).to_contain_text(COUPON)


def open_checkout(page: Page, origin: str) -> Locator:
    """The checkout with its amount priced (the shipping chosen and quoted)."""
    page.goto(origin + "/thanh-toan")
    form = page.locator("form.checkout")
    expect(form.locator("button.place-order")).to_have_attribute("data-amount", re.compile(r"\d"))
    expect(form.locator("button.place-order")).to_be_enabled()
    return form


def holds_coupon(form: Locator, held: bool) -> None:
    """The coupon shown (with its remove button) in the summary and its line in the totals."""
    if held:
        expect(form.locator(".co-coupon")).to_contain_text(COUPON)
        expect(form.locator(".totals")).to_contain_text(COUPON)
    else:
        expect(form.locator(".co-coupon")).to_be_hidden()
        expect(form.locator(".totals")).not_to_contain_text(COUPON)


def place(page: Page, form: Locator) -> int:
    """Places a COD order; the amount the button said, checked against the order's total."""
    form.locator("#co-name").fill("Nguyễn Văn An")
    form.locator("#co-phone").fill("0901234567")
    form.locator("#co-city").select_option(index=1)
    expect(form.locator("#co-ward option")).not_to_have_count(1)
    form.locator("#co-ward").select_option(index=1)
    form.locator("#co-street").fill("12 Lê Lợi")
    button = form.locator("button.place-order")
    amount = button.get_attribute("data-amount")
    assert amount is not None
    # The summary's total (the folded line's too) is the button's amount.
    total = form.locator(".totals dd.total").inner_text()
    assert form.locator(".co-summary summary").inner_text().endswith(total)
    assert total.replace(".", "").rstrip("\u00a0₫") == amount
    button.click()
    done = page.locator(".order-done")
    expect(done).to_be_visible()
    assert done.get_attribute("data-total") == amount  # the order charged what the button said
    return int(amount)


def cart_with_two(page: Page, origin: str, out: Path) -> None:
    add_variants(page, origin, products_with_variants(out, 1)[0], 2)


def test_same_tab_the_coupon_is_shown_and_taken_off_at_checkout(
    page: Page, origin: str, demo_output: Path
) -> None:
    cart_with_two(page, origin, demo_output)
    apply_in_cart(page, origin)
    form = open_checkout(page, origin)
    holds_coupon(form, True)
    with_coupon = int(form.locator("button.place-order").get_attribute("data-amount") or 0)
    form.locator(".co-coupon button").click()
    holds_coupon(form, False)
    expect(form.locator("button.place-order")).not_to_have_attribute(
        "data-amount", str(with_coupon)
    )
    assert place(page, form) > with_coupon  # the server dropped the coupon the page dropped


def test_a_new_tab_shows_the_coupon_and_taking_it_off_there_holds(
    context: BrowserContext, page: Page, origin: str, demo_output: Path
) -> None:
    cart_with_two(page, origin, demo_output)
    apply_in_cart(page, origin)
    first = open_checkout(page, origin)
    holds_coupon(first, True)  # the server's checkout holds it now
    with_coupon = int(first.locator("button.place-order").get_attribute("data-amount") or 0)

    tab = context.new_page()  # its own sessionStorage
    holds_coupon(open_checkout(tab, origin), True)
    tab.goto(origin + "/gio-hang")
    expect(tab.locator(".coupon-ok")).to_contain_text(COUPON)
    tab.locator(".coupon-ok button").click()
    expect(tab.locator(".coupon-ok")).to_have_count(0)
    expect(tab.locator(".totals")).not_to_contain_text(COUPON)

    form = open_checkout(page, origin)  # the first tab, again: the coupon is off there too
    holds_coupon(form, False)
    assert place(page, form) > with_coupon


def test_a_return_a_day_later_shows_the_coupon_the_order_is_charged_with(
    context: BrowserContext, page: Page, origin: str, demo_output: Path
) -> None:
    cart_with_two(page, origin, demo_output)
    apply_in_cart(page, origin)
    without = open_checkout(page, origin)
    with_coupon = int(without.locator("button.place-order").get_attribute("data-amount") or 0)
    page.close()
    # A day later: the browser's copies are a day old, the tab (and its session) long gone.
    later = context.new_page()
    later.goto(origin + "/")
    later.evaluate(
        """(day) => {
          const cart = JSON.parse(localStorage.sf_cart)
          localStorage.sf_cart = JSON.stringify({ ...cart, at: cart.at - day })
        }""",
        DAY_MS,
    )
    later.goto(origin + "/gio-hang")
    expect(later.locator(".coupon-ok")).to_contain_text(COUPON)
    form = open_checkout(later, origin)
    holds_coupon(form, True)
    assert place(later, form) == with_coupon


def test_the_customers_other_device_shows_the_coupon_the_order_is_charged_with(
    browser: Browser, page: Page, origin: str, demo_output: Path
) -> None:
    email = "thiet-bi-hai@example.vn"
    register(page, origin, "Lê Văn Hai", email, "mat-khau-dai")
    cart_with_two(page, origin, demo_output)
    apply_in_cart(page, origin)
    holds_coupon(open_checkout(page, origin), True)
    amount = int(page.locator("button.place-order").get_attribute("data-amount") or 0)

    other = browser.new_context(locale="vi-VN")
    other.set_default_timeout(15_000)
    try:
        phone = other.new_page()
        # A guest cart there, merged into the customer's cart by logging in.
        add_variants(phone, origin, products_with_variants(demo_output, 2)[1], 1)
        phone.goto(origin + "/tai-khoan")
        login = phone.locator('form[data-form="login"]')
        login.locator("#li-email").fill(email)
        login.locator("#li-password").fill("mat-khau-dai")
        login.locator('button[type="submit"]').click()
        expect(phone.locator(".greeting")).to_be_visible()
        phone.goto(origin + "/gio-hang")
        expect(phone.locator(".coupon-ok")).to_contain_text(COUPON)
        form = open_checkout(phone, origin)
        holds_coupon(form, True)
        assert place(phone, form) > amount  # three lines now, the coupon still taken off
    finally:
        other.close()


def test_the_checkout_has_a_summary_beside_the_form_and_folded_above_it_on_a_phone(
    page: Page, origin: str, demo_output: Path
) -> None:
    product = products_with_variants(demo_output, 1)[0]
    add_variants(page, origin, product, 1)
    page.goto(origin + "/gio-hang")
    page.locator(".cart-line .stepper button").last.click()  # two of it
    expect(page.locator(".cart-line input[type=number]")).to_have_value("2")

    page.set_viewport_size({"width": 1366, "height": 900})
    form = open_checkout(page, origin)
    summary = form.locator(".co-summary")
    fields = form.locator("fieldset").first
    expect(summary.locator(".co-items li")).to_have_count(1)
    item = summary.locator(".co-items li").first
    expect(item.locator("img")).to_be_visible()
    # Quantity and unit price in one place, the line's total in another.
    expect(item.locator(".co-unit")).to_have_text(re.compile(r"^2 × [\d.]+\u00a0₫$"))
    unit = int(re.sub(r"\D", "", item.locator(".co-unit").inner_text().split("×")[1]))
    line = int(re.sub(r"\D", "", item.locator(".co-line").inner_text()))
    assert line == 2 * unit
    expect(form.locator(".co-shipping")).to_contain_text("ngày")  # the delivery estimate
    expect(summary.locator(".totals dd.total")).to_be_visible()
    side, main = summary.bounding_box(), fields.bounding_box()
    assert side and main
    assert side["x"] >= main["x"] + main["width"], (side, main)  # beside the form
    assert side["y"] < main["y"] + main["height"]

    page.set_viewport_size({"width": 390, "height": 844})
    form = open_checkout(page, origin)
    summary = form.locator(".co-summary")
    fold = summary.locator("summary")
    expect(fold).to_be_visible()
    expect(summary.locator(".totals")).to_be_hidden()  # folded
    expect(fold).to_contain_text(form.locator(".totals dd.total").inner_text())
    side, main = summary.bounding_box(), form.locator("fieldset").first.bounding_box()
    assert side and main
    assert side["y"] + side["height"] <= main["y"], (side, main)  # above the form
    assert side["width"] >= main["width"] - 1
    fold.click()
    expect(summary.locator(".totals dd.total")).to_be_visible()
