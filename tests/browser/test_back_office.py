"""The back office in Chromium, on a phone (390 px) and a desktop (1366 px): a shopper places a
cash-on-delivery order on the static site; staff sign in at /admin on the companion's own host,
find the order at the top of the list, send it, and the shopper's account shows it on its way.
/admin is the companion's: the static site's server does not hand it on."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from companion.app import create_app
from companion.demo_published import DEMO_STAFF_EMAIL, DEMO_STAFF_PASSWORD
from companion.settings import CompanionSettings
from tests.browser.live_server import live_server
from tests.browser.shopper import add_variants, fill_checkout, products_with_variants, register
from tests.support.loopback import loopback_socket, serving_on

pytestmark = pytest.mark.browser

PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1366, "height": 768}


@pytest.fixture(scope="module")
def served(
    demo_output: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """(the static site's origin, the companion's own origin), one database behind both."""
    database = tmp_path_factory.mktemp("back-office") / "companion.sqlite3"
    with live_server(demo_output, database) as site:
        app = create_app(CompanionSettings(database=str(database)))
        sock, companion = loopback_socket()
        try:
            with serving_on(sock, app, what="the companion"):
                yield site, companion
        finally:
            app.state.services.engine.dispose()


def place_cod_order(page: Page, site: str, product: str) -> str:
    add_variants(page, site, product, 1)
    fill_checkout(page, site, payment="cod")
    done = page.locator(".order-done")
    expect(done).to_have_attribute("data-status", "pending")
    return done.locator(".order-code").inner_text()


def sign_in(page: Page, companion: str) -> None:
    page.goto(companion + "/admin")
    expect(page).to_have_url(companion + "/admin/login")
    page.get_by_label("E-mail").fill(DEMO_STAFF_EMAIL)
    page.get_by_label("Mật khẩu").fill(DEMO_STAFF_PASSWORD)
    page.get_by_role("button", name="Đăng nhập").click()
    expect(page.get_by_role("heading", name="Hôm nay")).to_be_visible()


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] if page.viewport_size else True, width


@pytest.mark.parametrize("screen", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_staff_send_the_order_a_shopper_just_placed(
    browser: Browser,
    served: tuple[str, str],
    demo_output: Path,
    screen: dict[str, int],
) -> None:
    site, companion = served
    shopper = browser.new_context(locale="vi-VN").new_page()
    register(shopper, site, "Lê Hoa", f"hoa-{uuid.uuid4().hex[:8]}@example.vn", "mat-khau-dai")
    code = place_cod_order(shopper, site, products_with_variants(demo_output, 1)[0])

    staff_context = browser.new_context(locale="vi-VN", viewport=screen)
    staff_context.set_default_timeout(15_000)
    staff = staff_context.new_page()
    problems: list[str] = []
    staff.on("console", lambda message: problems.append(message.text))  # a CSP refusal, say
    staff.on("requestfailed", lambda request: problems.append(request.url))
    sign_in(staff, companion)
    no_sideways_scroll(staff)
    staff.get_by_role("link", name="Đơn hàng").first.click()
    first = staff.locator("table.orders tbody tr").first
    expect(first).to_contain_text(code)
    expect(first).to_contain_text("Chờ xử lý")
    no_sideways_scroll(staff)
    first.get_by_role("link", name=code).click()
    staff.get_by_label("Lý do / ghi chú (tuỳ chọn)").fill("Đã giao cho GHN")
    staff.get_by_role("button", name="Gửi hàng").click()
    expect(staff.locator("h1 .status")).to_have_text("Đã gửi hàng")
    expect(staff.locator(".history")).to_contain_text("Đã giao cho GHN")
    no_sideways_scroll(staff)
    staff.get_by_role("link", name="Phiếu đóng gói (in)").click()
    expect(staff.locator(".slip h1")).to_contain_text(code)
    staff.emulate_media(media="print")
    expect(staff.locator(".top")).to_be_hidden()
    assert problems == []
    staff_context.close()

    shopper.goto(site + "/tai-khoan")
    expect(shopper.locator(f'.order[data-code="{code}"]')).to_contain_text("Đang giao hàng")
    shopper.context.close()


def test_the_static_site_does_not_hand_admin_on(served: tuple[str, str]) -> None:
    site, companion = served
    assert httpx.get(companion + "/admin/login").status_code == 200
    on_site = httpx.get(site + "/admin/login")
    assert on_site.status_code == 404 and "Đăng nhập quản trị" not in on_site.text
