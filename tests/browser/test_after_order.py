"""After the order, in Chromium: the confirmation kept on this device (and gone on logout), the
account's orders in Vietnam's dates whatever the browser's zone, order again, the address
book's pickers, the payment result's amount, and guest orders joined only by proof."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Route, expect

from tests.browser.shopper import add_variants, fill_checkout, products_with_variants, register

pytestmark = pytest.mark.browser
PASSWORD = "mat-khau-dai"


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A shopper abroad: the browser's zone is not Vietnam's."""
    context = browser.new_context(locale="vi-VN", timezone_id="America/Los_Angeles")
    context.set_default_timeout(15_000)
    yield context
    context.close()


def email() -> str:
    return f"khach-{uuid.uuid4().hex[:8]}@example.vn"


def place_cod(page: Page, origin: str, product: str) -> str:
    add_variants(page, origin, product, 1)
    fill_checkout(page, origin, payment="cod")
    done = page.locator(".order-done")
    expect(done).to_have_attribute("data-status", "pending")
    return done.locator(".order-code").inner_text()


def vietnam_day(page: Page, code: str) -> str:
    """The order's day in Vietnam (dd/mm/yyyy) from the time the API gave this device."""
    wire = page.evaluate(
        "(code) => JSON.parse(localStorage.sf_orders).find((o) => o.code === code).placed_at", code
    )
    placed = datetime.fromisoformat(wire) + timedelta(hours=7)  # UTC+7, no daylight saving
    return placed.strftime("%d/%m/%Y")


def test_the_confirmation_says_all_is_kept_on_reload_and_goes_on_logout(
    page: Page, origin: str, demo_output: Path
) -> None:
    code = place_cod(page, origin, products_with_variants(demo_output, 1)[0])
    done = page.locator(".order-done")
    expect(done.locator(".done-items li")).to_have_count(1)
    expect(done.locator(".next")).to_contain_text("tiền mặt")
    expect(done.locator(".order-info")).to_contain_text("12 Lê Lợi")
    expect(done.locator(".order-info")).to_contain_text("Thanh toán khi nhận hàng")
    # The shipping chosen, with its delivery estimate as words of their own.
    expect(done.locator("[data-field=shipping]")).to_have_text(
        re.compile(r"\S Dự kiến giao trong \d")
    )
    expect(page).to_have_url(re.compile(r"\?don=" + code))
    page.reload()
    expect(page.locator(".order-done .order-code")).to_have_text(code)
    expect(page.locator(".order-done .done-items li")).to_have_count(1)

    register(page, origin, "Lê Văn Cường", email(), PASSWORD)  # joins the order: it has the proof
    order = page.locator(f'.order[data-code="{code}"]')
    expect(order).to_contain_text(vietnam_day(page, code))
    expect(order.locator(".order-here")).to_be_hidden()
    order.get_by_role("button", name="Chi tiết").click()
    expect(order.locator(".done-items li")).to_have_count(1)
    expect(order.locator(".order-info")).to_contain_text("12 Lê Lợi")
    page.get_by_role("button", name="Đăng xuất").click()
    # Logged out once the login form is back: leaving before could cut the logout short.
    expect(page.locator('form[data-form="login"]')).to_be_visible()
    page.goto(f"{origin}/thanh-toan?don={code}")
    expect(page.locator(".order-done")).to_have_count(0)
    expect(page.locator("[data-island=checkout]")).not_to_contain_text(code)


def test_order_again_puts_the_items_back_in_the_cart(
    page: Page, origin: str, demo_output: Path
) -> None:
    register(page, origin, "Phạm Thu", email(), PASSWORD)
    code = place_cod(page, origin, products_with_variants(demo_output, 2)[1])
    page.goto(origin + "/tai-khoan")
    order = page.locator(f'.order[data-code="{code}"]')
    order.get_by_role("button", name="Chi tiết").click()
    order.get_by_role("link", name="Đặt lại các sản phẩm này").click()
    page.wait_for_url(re.compile(r"/gio-hang$"))
    expect(page.locator(".cart-line")).to_have_count(1)


def test_without_this_devices_memory_the_detail_says_why_there_is_no_order_again(
    browser: Browser, page: Page, origin: str, demo_output: Path
) -> None:
    address = email()
    register(page, origin, "Võ Minh", address, PASSWORD)
    code = place_cod(page, origin, products_with_variants(demo_output, 3)[2])
    other = browser.new_context(locale="vi-VN").new_page()  # the customer's other device
    other.goto(origin + "/tai-khoan")
    login = other.locator('form[data-form="login"]')
    login.locator("#li-email").fill(address)
    login.locator("#li-password").fill(PASSWORD)
    login.locator("button").click()
    order = other.locator(f'.order[data-code="{code}"]')
    order.get_by_role("button", name="Chi tiết").click()
    expect(order.locator(".reorder-none")).to_be_visible()
    expect(order.get_by_role("link", name="Đặt lại các sản phẩm này")).to_have_count(0)
    other.context.close()


def test_registering_with_a_guests_email_does_not_show_their_orders(
    browser: Browser, page: Page, origin: str, demo_output: Path
) -> None:
    code = place_cod(page, origin, products_with_variants(demo_output, 1)[0])
    squatter = browser.new_context(locale="vi-VN").new_page()  # another device, the same e-mail
    register(squatter, origin, "Kẻ Gian", "an@example.vn", PASSWORD)  # the e-mail checkout used
    orders = squatter.locator("[data-list=orders]")
    expect(orders).to_contain_text("Chưa có.")
    expect(orders).not_to_contain_text(code)
    squatter.context.close()


def test_the_address_book_picks_province_and_ward(page: Page, origin: str) -> None:
    register(page, origin, "Đỗ Hà", email(), PASSWORD)
    form = page.locator("form.address")
    form.locator("#ad-name").fill("Đỗ Hà")
    form.locator("#ad-phone").fill("0912345678")
    form.locator("#ad-city").select_option(index=1)
    province = form.locator("#ad-city option:checked").inner_text()
    expect(form.locator("#ad-ward option")).not_to_have_count(1)
    form.locator("#ad-ward").select_option(index=1)
    ward = form.locator("#ad-ward option:checked").inner_text()
    form.locator("#ad-street").fill("5 Hàng Bài")
    form.locator("button").click()
    expect(page.locator("[data-list=addresses] li")).to_contain_text(f"{ward}, {province}")


def test_the_payment_result_shows_its_amount(page: Page, origin: str, demo_output: Path) -> None:
    add_variants(page, origin, products_with_variants(demo_output, 3)[2], 1)
    fill_checkout(page, origin, payment="vnpay")
    page.wait_for_url(re.compile(r"/sandbox/vnpay/pay\?"))
    charged = re.sub(r"\D", "", page.locator(".amount").inner_text())  # what the gateway took
    page.get_by_role("button", name="Thanh toán (thành công)").click()
    page.wait_for_url(re.compile(r"/thanh-toan/ket-qua\?"))
    done = page.locator(".order-done")
    expect(done).to_have_attribute("data-status", "paid")
    expect(done.locator(".order-total")).to_have_text(re.compile(r"^[\d.]+\s₫$"))
    assert re.sub(r"\D", "", done.locator(".order-total").inner_text()) == charged
    expect(done.locator(".done-items li")).to_have_count(1)


def test_against_a_backend_that_cannot_join_the_order_stays_this_devices(
    page: Page, origin: str, demo_output: Path
) -> None:
    code = place_cod(page, origin, products_with_variants(demo_output, 2)[1])
    claims: list[str] = []

    def no_such_endpoint(route: Route) -> None:  # as a backend without the companion's claim
        claims.append(route.request.method)
        route.fulfill(status=404, json={"code": "not_found", "title": "Not Found", "status": 404})

    page.route("**/session/api/customer/orders/claim", no_such_endpoint)
    register(page, origin, "Hoàng Yến", email(), PASSWORD)
    order = page.locator(f'.order[data-code="{code}"]')
    expect(order.locator(".order-here")).to_be_visible()
    expect(order).to_contain_text(vietnam_day(page, code))
    order.get_by_role("button", name="Chi tiết").click()
    expect(order.locator(".done-items li")).to_have_count(1)
    expect(order.get_by_role("link", name="Đặt lại các sản phẩm này")).to_be_visible()
    page.reload()  # asked once: the order is this device's from now on
    expect(page.locator(f'.order[data-code="{code}"] .order-here')).to_be_visible()
    assert claims == ["POST"]


def _reads_clearly(line: Locator) -> None:
    """An ordered line: "2 × unit price" in one place, the line's total in another."""
    expect(line.locator("span")).to_have_text(re.compile(r"^2 × [\d.]+\s₫$"))
    unit = int(re.sub(r"\D", "", line.locator("span").inner_text().split("×")[1]))
    assert int(re.sub(r"\D", "", line.locator("b").inner_text())) == 2 * unit


def test_an_ordered_line_reads_its_quantity_unit_price_and_total_apart(
    page: Page, origin: str, demo_output: Path
) -> None:
    add_variants(page, origin, products_with_variants(demo_output, 1)[0], 1)
    page.goto(origin + "/gio-hang")
    page.locator(".cart-line .stepper button").last.click()  # two of it
    expect(page.locator(".cart-line input[type=number]")).to_have_value("2")
    fill_checkout(page, origin, payment="cod")
    done = page.locator(".order-done")
    expect(done).to_be_visible()
    code = done.locator(".order-code").inner_text()
    _reads_clearly(done.locator(".done-items li"))
    register(page, origin, "Trịnh Lan", email(), PASSWORD)  # the account's detail, joined
    order = page.locator(f'.order[data-code="{code}"]')
    order.get_by_role("button", name="Chi tiết").click()
    _reads_clearly(order.locator(".done-items li"))


def test_the_order_detail_leaves_out_a_discount_and_a_note_it_has_not(
    page: Page, origin: str, demo_output: Path
) -> None:
    code = place_cod(page, origin, products_with_variants(demo_output, 1)[0])
    register(page, origin, "Đỗ Thị Hoa", email(), PASSWORD)
    order = page.locator(f'.order[data-code="{code}"]')
    order.get_by_role("button", name="Chi tiết").click()
    info = order.locator(".order-info")
    expect(info.locator("div", has_text="Tạm tính")).to_be_visible()
    expect(info.locator("div", has_text="Giảm giá")).to_be_hidden()
    expect(info.locator("div", has_text="Ghi chú")).to_be_hidden()
    expect(info.locator("div", has_text="Giao đến")).to_contain_text("12 Lê Lợi")
