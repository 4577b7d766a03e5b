"""The layout faults a shopper met on a phone and with a keyboard, measured on every page
type of the demo store at 390 px (and the menu at 1366 px).

Written against the header's markup contract: a search form in the header (role="search", or
an action ending in /tim-kiem); a menu button in the header with aria-expanded and
aria-controls naming the menu's nav, closed at first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.visual.menu_walk import MENU_BUTTON, unreachable_menu_items
from tests.visual.pages import StorePage, open_settled, store_pages
from tests.visual.states import Served, StorageState, new_context

PHONE, DESKTOP = 390, 1366
HEADER_LIMIT = 80  # CSS pixels, menu closed

_MEASURE = """() => {
  const header = [...document.querySelectorAll('header')].find((h) => !h.closest('main'))
  const searches = header ? [...header.querySelectorAll('form')].filter((form) =>
    form.getAttribute('role') === 'search' || (form.hasAttribute('action') &&
      /\\/tim-kiem(\\.html)?$/.test(new URL(form.getAttribute('action'), location.href).pathname))
  ) : []
  return {
    scroll_width: document.scrollingElement.scrollWidth,
    inner_width: window.innerWidth,
    header_height: header ? header.getBoundingClientRect().height : null,
    search_forms: searches.length,
  }
}"""


@dataclass
class Visit:
    """What one page showed at 390 px."""

    scroll_width: int
    inner_width: int
    header_height: float | None
    search_forms: int
    drawer_faults: list[str] = field(default_factory=list)


def drawer_faults(page: Page) -> list[str]:
    """Open the menu with its button and Tab through it: what went wrong, if anything."""
    buttons = page.locator(MENU_BUTTON + ":visible")
    if buttons.count() == 0:
        return ["no visible menu button (aria-controls, aria-expanded) in the header"]
    button = buttons.first
    if button.get_attribute("aria-expanded") != "false":
        return ['the menu button is not aria-expanded="false" before it is pressed']
    target = button.evaluate(
        "(b) => { const t = document.getElementById(b.getAttribute('aria-controls'));"
        " return t ? t.matches('nav') || !!t.querySelector('nav') : null }"
    )
    if not target:
        return ["the menu button's aria-controls does not name the menu's nav"]
    button.click()
    try:
        expect(button).to_have_attribute("aria-expanded", "true", timeout=2_000)
    except AssertionError:
        return ['the menu button is not aria-expanded="true" once pressed']
    missing = unreachable_menu_items(page, button.element_handle())
    return [f"Tab does not reach {', '.join(missing)}"] if missing else []


@pytest.fixture(scope="module")
def phone_visits(
    browser: Browser, served: Served, states: dict[str, StorageState]
) -> Iterator[dict[str, Visit]]:
    """Every page type once at 390 px, as its shopper (measured, then the menu opened)."""
    contexts: dict[str, BrowserContext] = {}
    visits: dict[str, Visit] = {}
    try:
        for name, store_page in store_pages(served.out).items():
            if store_page.state not in contexts:
                contexts[store_page.state] = new_context(browser, PHONE, states[store_page.state])
            page = contexts[store_page.state].new_page()
            open_settled(page, served.origin, store_page, served.opened_at.get(name))
            visits[name] = Visit(**page.evaluate(_MEASURE))
            visits[name].drawer_faults = drawer_faults(page)
            page.close()
        yield visits
    finally:
        for context in contexts.values():
            context.close()


def test_no_page_scrolls_sideways_at_390px(phone_visits: dict[str, Visit]) -> None:
    wide = {
        name: f"{visit.scroll_width} px wide in {visit.inner_width}"
        for name, visit in phone_visits.items()
        if visit.scroll_width > visit.inner_width
    }
    assert wide == {}, f"pages that scroll sideways at {PHONE} px: {wide}"


def test_the_header_is_under_80px_at_390px_with_the_menu_closed(
    phone_visits: dict[str, Visit],
) -> None:
    tall = {
        name: visit.header_height
        for name, visit in phone_visits.items()
        if visit.header_height is None or visit.header_height >= HEADER_LIMIT
    }
    assert tall == {}, f"header heights (px) at {PHONE} px, not under {HEADER_LIMIT}: {tall}"


def test_every_page_has_a_search_form_in_its_header(phone_visits: dict[str, Visit]) -> None:
    without = sorted(name for name, visit in phone_visits.items() if visit.search_forms == 0)
    assert without == [], f"no <form role=search> (or action …/tim-kiem) in the header: {without}"


def test_on_a_phone_the_menu_button_opens_a_menu_whose_items_tab_reaches(
    phone_visits: dict[str, Visit],
) -> None:
    faults = {name: visit.drawer_faults for name, visit in phone_visits.items()}
    failing = {name: found for name, found in faults.items() if found}
    assert failing == {}, f"the phone menu at {PHONE} px: {failing}"


@pytest.fixture
def desktop_page(browser: Browser, states: dict[str, StorageState]) -> Iterator[Page]:
    context = new_context(browser, DESKTOP, states["guest"])
    yield context.new_page()
    context.close()


def test_on_a_desktop_tab_reaches_every_menu_item(desktop_page: Page, served: Served) -> None:
    open_settled(desktop_page, served.origin, StorePage("home", "/", "guest"))
    missing = unreachable_menu_items(desktop_page)
    assert missing == [], f"menu items Tab never reaches at {DESKTOP} px: {missing}"
