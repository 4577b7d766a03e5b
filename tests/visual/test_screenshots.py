"""The pages a shopper goes through, to the order's confirmation and payment result, at a
desktop and a phone width, against the committed references (see compare.py;
UPDATE_SCREENSHOTS=1 rewrites them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.visual.compare import check_screenshot
from tests.visual.pages import PHOTOGRAPHED, StorePage, open_settled, store_pages
from tests.visual.states import Served, StorageState, new_context

WIDTHS = (1366, 390)
#: Full pages, cut at this height: below it a long listing only repeats what is above.
MAX_HEIGHT = 3000


@pytest.fixture(scope="module")
def pages(served: Served) -> dict[str, StorePage]:
    return store_pages(served.out)


@pytest.fixture(scope="module")
def contexts(
    browser: Browser, states: dict[str, StorageState]
) -> Iterator[dict[tuple[int, str], BrowserContext]]:
    made: dict[tuple[int, str], BrowserContext] = {}
    yield made
    for context in made.values():
        context.close()


def screenshot(page: Page) -> bytes:
    """The whole page down to MAX_HEIGHT, animations stopped and the caret hidden."""
    width = page.viewport_size["width"] if page.viewport_size else 0
    height = page.evaluate("document.scrollingElement.scrollHeight")
    return page.screenshot(
        full_page=True,
        clip={"x": 0, "y": 0, "width": width, "height": min(height, MAX_HEIGHT)},
        animations="disabled",
        caret="hide",
        scale="css",
    )


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PHOTOGRAPHED)
def test_page_looks_like_its_reference(
    name: str,
    width: int,
    pages: dict[str, StorePage],
    browser: Browser,
    states: dict[str, StorageState],
    contexts: dict[tuple[int, str], BrowserContext],
    served: Served,
    tmp_path: Path,
) -> None:
    store_page = pages[name]
    key = (width, store_page.state)
    if key not in contexts:
        contexts[key] = new_context(browser, width, states[store_page.state])
    page = contexts[key].new_page()
    try:
        open_settled(page, served.origin, store_page, served.opened_at.get(name))
        check_screenshot(screenshot(page), f"{name}-{width}", tmp_path)
    finally:
        page.close()
