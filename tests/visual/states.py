"""The shoppers a page is seen as, made through the real pages and companion, and the browser
settings every visual test uses (fixed viewport, scale, zone, motion and clock)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any

import sqlalchemy
from playwright.sync_api import Browser, BrowserContext, Page, expect

from companion.db import commerce_schema
from companion.seed.timeline import DEMO_NOW
from tests.browser.shopper import add_variants, fill_checkout, products_with_variants, register

StorageState = dict[str, Any]

#: The one random value the pages show, the order code, is set to this after the order is
#: placed, so that the account page is the same on every run.
ORDER_CODE = "DH7K3M9QX2"
PAID_CODE = "DH4P8R2VN6"
VIEWPORT_HEIGHT = {1366: 768, 390: 844}


@dataclass(frozen=True, slots=True)
class Served:
    origin: str
    database: Path
    out: Path
    #: Where a page is opened when not at its own path, by page name: the payment result at
    #: the gateway's signed return of the "paid" shopper's payment.
    opened_at: dict[str, str] = field(default_factory=dict)


def new_context(browser: Browser, width: int, state: StorageState | None = None) -> BrowserContext:
    """A context at ``width`` CSS pixels, one device pixel each, whose clock reads the demo's
    fixed date (the date the served companion is stopped at)."""
    context = browser.new_context(
        viewport={"width": width, "height": VIEWPORT_HEIGHT.get(width, 900)},
        device_scale_factor=1,
        locale="vi-VN",
        timezone_id="Asia/Ho_Chi_Minh",
        color_scheme="light",
        reduced_motion="reduce",
        storage_state=state,
    )
    context.set_default_timeout(15_000)
    context.clock.set_fixed_time(DEMO_NOW.replace(tzinfo=UTC))
    return context


def guest_with_cart(browser: Browser, served: Served) -> StorageState:
    """A guest who put two variants of one product in the cart on its page."""
    context = new_context(browser, 1366)
    try:
        page = context.new_page()
        add_variants(page, served.origin, products_with_variants(served.out, 1)[0], 2)
        return context.storage_state()
    finally:
        context.close()


def customer_with_order(browser: Browser, served: Served) -> StorageState:
    """A customer who registered, bought one variant (cash on delivery) and is logged in."""
    context = new_context(browser, 1366)
    try:
        page = context.new_page()
        register(page, served.origin, "Nguyễn Thị Lan", "lan@example.vn", "mat-khau-dai")
        add_variants(page, served.origin, products_with_variants(served.out, 2)[1], 1)
        fill_checkout(page, served.origin, payment="cod")
        code = page.locator(".order-done .order-code").inner_text()
        _fix_order_code(served.database, page, code, ORDER_CODE)
        return context.storage_state()
    finally:
        context.close()


def guest_who_paid(browser: Browser, served: Served) -> StorageState:
    """A guest who bought one variant and paid it through the sandbox gateway; the payment
    result's address (the gateway's signed return) is kept in ``served.opened_at``."""
    context = new_context(browser, 1366)
    try:
        page = context.new_page()
        add_variants(page, served.origin, products_with_variants(served.out, 3)[2], 1)
        fill_checkout(page, served.origin, payment="vnpay")
        page.wait_for_url(re.compile(r"/sandbox/vnpay/pay\?"))
        page.get_by_role("button", name="Thanh toán (thành công)").click()
        page.wait_for_url(re.compile(r"/thanh-toan/ket-qua\?"))
        expect(page.locator(".order-done")).to_have_attribute("data-status", "paid")
        code = page.locator(".order-done .order-code").inner_text()
        _fix_order_code(served.database, page, code, PAID_CODE)
        served.opened_at["payment-result"] = page.url.removeprefix(served.origin)
        return context.storage_state()
    finally:
        context.close()


def _fix_order_code(database: Path, page: Page, code: str, fixed: str) -> None:
    """The order's code set to ``fixed``, in the database and in this device's memory of the
    order (islands/checkout.js)."""
    page.evaluate(
        "([a, b]) => { localStorage.sf_orders = localStorage.sf_orders.replaceAll(a, b) }",
        [code, fixed],
    )
    orders = commerce_schema.orders
    engine = sqlalchemy.create_engine(f"sqlite:///{database}")
    try:
        with engine.begin() as conn:
            changed = conn.execute(
                sqlalchemy.update(orders).where(orders.c.code == code).values(code=fixed)
            )
        assert changed.rowcount == 1, f"order {code} is not in {database}"
    finally:
        engine.dispose()
