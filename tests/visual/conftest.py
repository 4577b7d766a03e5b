"""Visual tests: the demo store's pages in Debian's Chromium at a desktop and a phone width,
compared with committed reference images, and the layout faults a shopper meets measured.

The browser fixtures and the demo build are tests/browser's; the server here is the same
`storefront serve` stack, its companion seeded at the demo's fixed date on a stopped clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from companion.seed.timeline import DEMO_NOW
from tests.browser.conftest import browser, demo_output, mark_browser_tests, playwright
from tests.browser.live_server import live_server
from tests.visual.states import (
    Served,
    StorageState,
    customer_with_order,
    guest_who_paid,
    guest_with_cart,
)

__all__ = ["browser", "demo_output", "playwright"]  # tests/browser's fixtures, shared here

HERE = Path(__file__).parent


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_browser_tests(items, HERE)


@pytest.fixture(scope="session")
def served(demo_output: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    database = tmp_path_factory.mktemp("visual-db") / "companion.sqlite3"
    with live_server(demo_output, database, now=DEMO_NOW) as origin:
        yield Served(origin, database, demo_output)


@pytest.fixture(scope="session")
def _made_states() -> dict[str, StorageState]:
    return {}


@pytest.fixture(scope="module")
def states(
    browser: Browser, served: Served, _made_states: dict[str, Any]
) -> dict[str, StorageState]:
    """The shoppers the pages are seen as (cookies): "guest" (no cart), "cart" (a guest with
    two lines in the cart), "customer" (logged in, one order) and "paid" (a guest whose
    order was paid online). Made once per session,
    through the real pages and companion; the browser that made them is a module's."""
    if not _made_states:
        _made_states["guest"] = {"cookies": [], "origins": []}
        _made_states["cart"] = guest_with_cart(browser, served)
        _made_states["customer"] = customer_with_order(browser, served)
        _made_states["paid"] = guest_who_paid(browser, served)
    return _made_states
