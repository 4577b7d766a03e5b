"""The header, pagers and menus measured as a shopper's thumb meets them: at 390 px a search
button opens a full-width field tall enough to tap with its hint readable, the content still
starts near the top; every header tool, pager link and menu item is a 44 px target; the pager
goes once "Xem thêm sản phẩm" has shown every product."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
TAP = 44  # px, the least height (and width for the header's icons) of a tap target
CONTENT_TOP = 80  # px from the top of the page where its content starts, at most
#: A first page of a category with more products than it shows (the static pager to page 2).
LONG_CATEGORY = "/danh-muc/thoi-trang-nu"


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(locale="vi-VN", viewport=PHONE)
    context.set_default_timeout(15_000)
    yield context
    context.close()


@pytest.fixture
def desktop(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(locale="vi-VN", viewport=DESKTOP)
    context.set_default_timeout(15_000)
    yield context
    context.close()


def _box(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not drawn"
    return box


def _placeholder_shows(field: Locator) -> bool:
    """The field's hint is drawn: not transparent, and wholly inside the field."""
    return bool(
        field.evaluate(
            """(input) => {
              const colour = getComputedStyle(input, '::placeholder').color
              if (/rgba\\(.*, 0\\)$/.test(colour) || colour === 'transparent') return false
              const probe = document.createElement('span')
              probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;font:'
                + getComputedStyle(input).font
              probe.textContent = input.placeholder
              document.body.append(probe)
              const wide = probe.getBoundingClientRect().width
              probe.remove()
              const style = getComputedStyle(input)
              return wide <= input.clientWidth - parseFloat(style.paddingLeft)
                - parseFloat(style.paddingRight)
            }"""
        )
    )


def _content_top(page: Page) -> float:
    return float(page.evaluate("document.querySelector('main').getBoundingClientRect().top"))


def _small_header_tools(page: Page) -> list[str]:
    """The header's visible links, buttons and labels smaller than a tap target."""
    return list(
        page.evaluate(
            """(tap) => [...document.querySelectorAll(
                 'header .bar a, header .bar button, header .bar label')]
               .filter((el) => el.checkVisibility() && el.getBoundingClientRect().width > 1)
               .filter((el) => {
                 const box = el.getBoundingClientRect()
                 return box.height < tap || box.width < tap
               })
               .map((el) => {
                 const box = el.getBoundingClientRect()
                 return `${el.className || el.tagName} ${box.width}x${box.height}`
               })""",
            TAP,
        )
    )


def test_a_phone_opens_a_full_width_search_field_from_a_button(
    phone: BrowserContext, origin: str
) -> None:
    page = phone.new_page()
    page.goto(f"{origin}/", wait_until="networkidle")
    assert _content_top(page) <= CONTENT_TOP
    assert _small_header_tools(page) == []
    field = page.locator("header form[role=search] input[name=q]")
    opener = page.get_by_role("search").locator("label[for=q]")
    expect(opener).to_be_visible()
    assert min(_box(opener)["width"], _box(opener)["height"]) >= TAP
    opener.click()
    expect(field).to_be_focused()
    expect(field).to_be_visible()
    box = _box(field)
    assert box["height"] >= TAP
    assert box["width"] >= PHONE["width"] * 0.6, box
    assert _placeholder_shows(field)
    submit = page.locator("header form[role=search] button")
    expect(submit).to_be_visible()
    assert min(_box(submit)["width"], _box(submit)["height"]) >= TAP
    # Opening the field does not push the page down.
    assert _content_top(page) <= CONTENT_TOP
    # A query typed stays on screen while the shopper reaches for the search button.
    field.fill("áo thun")
    submit.click()
    page.wait_for_url("**/tim-kiem?q=*")
    assert "q=%C3%A1o+thun" in page.url


def test_the_phone_search_works_without_javascript(browser: Browser, origin: str) -> None:
    context = browser.new_context(locale="vi-VN", viewport=PHONE, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{origin}/")
        field = page.locator("header form[role=search] input[name=q]")
        page.get_by_role("search").locator("label[for=q]").click()
        expect(field).to_be_focused()
        assert _box(field)["height"] >= TAP and _placeholder_shows(field)
        field.type("giày")
        field.press("Enter")
        page.wait_for_url("**/tim-kiem?q=*")
        assert "q=gi%C3%A0y" in page.url
    finally:
        context.close()


def test_the_wide_screen_keeps_its_search_field_in_the_header(
    desktop: BrowserContext, origin: str
) -> None:
    page = desktop.new_page()
    page.goto(f"{origin}/", wait_until="networkidle")
    field = page.locator("header form[role=search] input[name=q]")
    expect(field).to_be_visible()
    assert _box(field)["height"] >= TAP and _box(field)["width"] >= 300
    assert _placeholder_shows(field)
    # The field's own label is for screen readers here: the field is already on screen.
    assert _box(page.locator("header label[for=q]"))["width"] <= 1
    assert _small_header_tools(page) == []
    # As short as it was: the bar (72 px) and the menu's row (44 px) with their borders.
    assert page.evaluate("document.querySelector('header').getBoundingClientRect().height") <= 120


def _short_links(page: Page, selector: str) -> list[str]:
    return list(
        page.evaluate(
            """([selector, tap]) => [...document.querySelectorAll(selector)]
               .filter((el) => el.checkVisibility())
               .filter((el) => el.getBoundingClientRect().height < tap)
               .map((el) => `${el.textContent.trim()} ${el.getBoundingClientRect().height}`)""",
            [selector, TAP],
        )
    )


def test_pager_links_and_menu_items_are_tap_targets_on_a_phone(
    phone: BrowserContext, origin: str
) -> None:
    page = phone.new_page()
    page.goto(f"{origin}{LONG_CATEGORY}", wait_until="networkidle")
    links = page.locator(".pagination a")
    assert links.count() >= 2
    assert _short_links(page, ".pagination a") == []
    narrow = [
        text for text, box in ((a.inner_text(), _box(a)) for a in links.all()) if box["width"] < TAP
    ]
    assert narrow == []
    page.locator("header button[aria-controls=nav]").click()
    expect(page.locator("#nav")).to_be_visible()
    for parent in page.locator("#nav button[aria-expanded]").all():
        parent.click()
    assert page.locator("#nav a").count() > 5
    assert _short_links(page, "#nav a, #nav button, #nav span") == []
    # The footer's menus too: a column of links a thumb walks down.
    assert page.locator(".site-footer li a").count() > 5
    assert _short_links(page, ".site-footer li a") == []


def test_menu_items_are_tap_targets_on_a_wide_screen(desktop: BrowserContext, origin: str) -> None:
    page = desktop.new_page()
    page.goto(f"{origin}/", wait_until="networkidle")
    assert _short_links(page, "#nav > ul > li > a, #nav > ul > li > button") == []
    parent = page.locator("#nav > ul > li").filter(has=page.locator("ul")).first
    parent.hover()
    expect(parent.locator("ul a").first).to_be_visible()
    assert _short_links(page, "#nav li ul a") == []


def test_the_pager_goes_once_load_more_has_shown_every_product(
    desktop: BrowserContext, origin: str
) -> None:
    page = desktop.new_page()
    page.goto(f"{origin}{LONG_CATEGORY}", wait_until="networkidle")
    pager = page.locator(".pagination")
    more = page.get_by_role("button", name="Xem thêm sản phẩm")
    cards = page.locator(".grid > .card")
    expect(pager).to_be_visible()
    pages = sorted(
        set(pager.locator("a[aria-label]").evaluate_all("(links) => links.map((a) => a.href)"))
    )
    shown = cards.count()
    for _ in range(10):
        if not more.is_visible():
            break
        more.click()
        expect(cards).not_to_have_count(shown)
        shown = cards.count()
        # While more products remain, the pager still leads to them.
        if more.is_visible():
            expect(pager).to_be_visible()
    expect(more).to_be_hidden()
    expect(pager).to_be_hidden()
    # Every product the pager's pages hold is on this one now: the pager has nothing more.
    first = page.evaluate("document.querySelectorAll('.card').length")
    assert first == shown
    static = page.context.new_page()
    total = 0
    for url in [f"{origin}{LONG_CATEGORY}", *pages]:
        static.goto(url)
        total += static.locator(".card").count()
    assert pages and shown == total
