"""The search from the index the build publishes (islands/find.js): suggestions as the shopper
types in the header, tone-insensitive and one typo tolerant, worked by the keyboard; the search
page's every result and its sorts; none of it asks the API, and the module loads only once the
field is used."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_page_requests import counting, settled, split

pytestmark = pytest.mark.browser


def _names(out: Path) -> dict[int, str]:
    return {
        r["id"]: r["n"]
        for chunk in (out / "_search" / "r").glob("*.json")
        for r in json.loads(chunk.read_bytes())
    }


def _suggested(page: Page) -> list[str]:
    listbox = page.locator("#q-list")
    expect(listbox).to_be_visible()
    return listbox.locator("ul[aria-label='Sản phẩm'] [role=option] > span").all_inner_texts()


def test_typing_without_tones_suggests_products_and_asks_the_api_nothing(
    browser: Browser, origin: str, demo_output: Path
) -> None:
    context = browser.new_context(locale="vi-VN")
    try:
        page = context.new_page()
        loaded: list[str] = []
        page.on("request", lambda r: loaded.append(urlsplit(r.url).path))
        with counting() as counter:
            page.goto(origin + "/")
            page.wait_for_load_state("networkidle")
            # The page loads neither the module nor the index until the field is used.
            assert not [p for p in loaded if p.endswith("/find.js") or "/_search/" in p]
            field = page.locator("#q")
            field.click()
            field.press_sequentially("ao th")
            expect(
                page.locator("#q-list ul[aria-label='Sản phẩm'] [role=option]")
            ).not_to_have_count(0)
            first_five = _suggested(page)[:5]
            assert any(name.startswith("Áo thun") for name in first_five), first_five
            # The keyboard: the arrows move the active option, Escape closes the list.
            field.press("ArrowDown")
            active = field.get_attribute("aria-activedescendant")
            assert active and page.locator(f"#{active}").get_attribute("aria-selected") == "true"
            expect(field).to_have_attribute("aria-expanded", "true")
            field.press("Escape")
            expect(page.locator("#q-list")).to_be_hidden()
            expect(field).to_have_attribute("aria-expanded", "false")
            # One typo in a longer word ("khaoc" for "khoác") still finds it.
            field.fill("")
            field.press_sequentially("ao khaoc")
            expect(
                page.locator("#q-list ul[aria-label='Sản phẩm'] [role=option]")
            ).not_to_have_count(0)
            assert all("khoác" in name for name in _suggested(page)), _suggested(page)
            # Nothing matches: the top categories are suggested.
            field.fill("")
            field.press_sequentially("zzzzqqq")
            expect(page.locator(".suggest-none")).to_be_visible()
            expect(
                page.locator("#q-list ul[aria-label='Danh mục'] [role=option]")
            ).not_to_have_count(0)
            page.close()
            showing, _activity = split(settled(counter, origin))
    finally:
        context.close()
    assert showing == [], showing
    assert [p for p in loaded if p.endswith("/find.js")], "the module loads once the field is used"


def test_the_search_page_lists_every_result_and_sorts_them_without_asking(
    browser: Browser, origin: str, demo_output: Path
) -> None:
    names = _names(demo_output)
    from generator.search_index.fold import words

    expected = {i for i, n in names.items() if {"ao", "thun"} <= set(words(n))}
    context = browser.new_context(locale="vi-VN")
    try:
        page = context.new_page()
        with counting() as counter:
            page.goto(origin + "/tim-kiem?q=ao+thun&sap-xep=price_asc")
            grid = page.locator(".search-results .grid > li")
            expect(grid).not_to_have_count(0)
            more = page.locator(".search-results .more")
            while more.is_visible():
                shown = grid.count()
                more.click()
                expect(grid).not_to_have_count(shown)
            titles = grid.locator("h3").all_inner_texts()
            prices = page.locator(".search-results .grid .price-now").all_inner_texts()
            page.close()
            showing, _activity = split(settled(counter, origin))
    finally:
        context.close()
    assert showing == [], showing
    # Every product named "áo thun" is listed (others may match by their category or options).
    assert {names[i] for i in expected} <= set(titles)
    amounts = [int("".join(c for c in p if c.isdigit())) for p in prices]
    assert amounts == sorted(amounts)
