"""The shoppers a page is seen as, made through the real pages and companion, and the browser
settings every visual test uses (fixed viewport, scale, zone, motion and clock)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

import sqlalchemy
from playwright.sync_api import Browser, BrowserContext

from companion.db import commerce_schema
from companion.seed.timeline import DEMO_NOW
from tests.browser.shopper import add_variants, fill_checkout, products_with_variants, register

StorageState = dict[str, Any]

#: The one random value the pages show, the order code, is set to this after the order is
#: placed, so that the account page is the same on every run.
ORDER_CODE = "DH7K3M9QX2"
VIEWPORT_HEIGHT = {1366: 768, 390: 844}


@dataclass(frozen=True, slots=True)
class Served:
    origin: str
    database: Path
    out: Path


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
        _fix_order_code(served.database, code)
        return context.storage_state()
    finally:
        context.close()


def _fix_order_code(database: Path, code: str) -> None:
    orders = commerce_schema.orders
    engine = sqlalchemy.create_engine(f"sqlite:///{database}")
    try:
        with engine.begin() as conn:
            changed = conn.execute(
                sqlalchemy.update(orders).where(orders.c.code == code).values(code=ORDER_CODE)
            )
        assert changed.rowcount == 1, f"order {code} is not in {database}"
    finally:
        engine.dispose()
