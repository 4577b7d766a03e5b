"""The header on a phone and on a wide screen: the drawer by keyboard, the mega-menu's
disclosure parents reachable by Tab, the header's height and no sideways scroll."""

from __future__ import annotations

from playwright.sync_api import Browser, expect


def test_the_drawer_opens_and_closes_by_keyboard_on_a_phone(browser: Browser, origin: str) -> None:
    context = browser.new_context(locale="vi-VN", viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{origin}/", wait_until="networkidle")
        header = page.evaluate("document.querySelector('header').getBoundingClientRect().height")
        assert header < 80
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        toggle = page.locator("header button[aria-controls=nav]")
        drawer = page.locator("#nav")
        expect(drawer).to_be_hidden()
        toggle.focus()
        page.keyboard.press("Enter")
        expect(toggle).to_have_attribute("aria-expanded", "true")
        expect(drawer).to_be_visible()
        # Focus moved into the drawer; a parent without a link opens its children by keyboard.
        assert page.evaluate("document.getElementById('nav').contains(document.activeElement)")
        parent = drawer.locator("button", has_text="Giày & Túi")
        parent.focus()
        page.keyboard.press("Enter")
        expect(parent).to_have_attribute("aria-expanded", "true")
        page.keyboard.press("Tab")
        expect(page.locator(":focus")).to_have_text("Giày thể thao")
        # Escape closes the child list first, then the drawer, giving focus back to the button.
        page.keyboard.press("Escape")
        expect(parent).to_have_attribute("aria-expanded", "false")
        page.keyboard.press("Escape")
        expect(toggle).to_have_attribute("aria-expanded", "false")
        expect(drawer).to_be_hidden()
        expect(toggle).to_be_focused()
    finally:
        context.close()


def test_every_menu_item_is_reachable_by_tab_on_a_wide_screen(
    browser: Browser, origin: str
) -> None:
    context = browser.new_context(locale="vi-VN", viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{origin}/", wait_until="networkidle")
        expect(page.locator("header button[aria-controls=nav]")).to_be_hidden()
        wanted = {t.strip() for t in page.locator("#nav a, #nav button").all_text_contents()}
        page.locator("#nav a, #nav button").first.focus()
        reached = set()
        for _ in range(len(wanted) + 2):
            reached.add(page.evaluate("document.activeElement.textContent.trim()"))
            # A child list shows while focus is in its parent (focus-within): Tab walks into it.
            page.keyboard.press("Tab")
        assert wanted <= reached, wanted - reached
    finally:
        context.close()
