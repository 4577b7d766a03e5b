"""The search page's filters, in Chromium against the demo store: the results of a query get the
facets of a category's page (the same island), their counts follow the other choices, the url
carries them beside the query (reload and Back), and nothing is asked of the API: the facet
values come from the build's index. What they show is checked against the catalogue as the
companion's API gives it, never hard-coded."""

from __future__ import annotations

from collections import Counter
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from companion.seed.demo import DEMO_KEY
from tests.browser.test_filters import Listed, _counts, _in, _money, _walk
from tests.browser.test_page_requests import counting, settled, split

pytestmark = pytest.mark.browser

QUERY = "ao"
STEP = 24  # the search page shows its results 24 at a time


def _catalogue(origin: str) -> dict[str, Listed]:
    """Every listed product by name, with its brand and effective price, as the API says. A
    product without a url has no page for the crawl to read: the build knows it by its card
    alone, without a brand (generator/search_index/records.py), and so do the facets."""
    found: dict[str, Listed] = {}
    with httpx.Client(base_url=origin + "/public/v1", headers={"X-Service-Key": DEMO_KEY}) as api:
        for card in _walk(api, "/products", {"limit": 100}):
            detail = api.get(f"/products/{card['id']}").json() if card.get("url") else {}
            brand = (detail.get("brand") or {}).get("name")
            price = _money(card.get("effective_price"))
            name = str(card["name"])
            assert name not in found, f"two products named {name!r}"
            found[name] = Listed(name, brand, price if price is not None else _money(card["price"]))
    return found


def _shown(page: Page) -> list[str]:
    return page.locator(".search-results .grid > li h3").all_text_contents()


def _every_result(page: Page) -> list[str]:
    grid = page.locator(".search-results .grid > li")
    expect(grid).not_to_have_count(0)
    more = page.locator(".search-results .more")
    while more.is_visible():
        count = grid.count()
        more.click()
        expect(grid).not_to_have_count(count)
    return _shown(page)


def _open(page: Page) -> None:
    page.locator(".filter-open").click()
    expect(page.locator(".filters")).to_be_visible()


def test_a_query_filtered_by_a_brand_and_a_price_range_shows_what_the_catalogue_says(
    browser: Browser, origin: str
) -> None:
    catalogue = _catalogue(origin)
    context = browser.new_context(locale="vi-VN", viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        with counting() as counter:
            page.goto(origin + "/tim-kiem")
            page.locator("#search-q").fill(QUERY)
            page.locator("#search-q").press("Enter")
            # Every result, in the search's order, before any filter.
            results = [catalogue[name] for name in _every_result(page)]
            assert len(results) > STEP, "the query has results past the first page"
            _open(page)
            panel = page.locator(".filters")
            brand_param = panel.get_attribute("data-param-brand")
            price_param = panel.get_attribute("data-param-price")
            assert brand_param and price_param
            brands = Counter(p.brand for p in results if p.brand)
            assert len(brands) > 1, "the results hold several brands"
            brand = min(brands, key=lambda b: (-brands[b], b))
            mine = [p for p in results if p.brand == brand]
            ranges = [
                box.get_attribute("value") or ""
                for box in page.locator(f"input[name={price_param}]").all()
            ]
            price = max(ranges, key=lambda r: sum(_in(p.price, r) for p in mine))
            page.locator(f"input[name={brand_param}][value='{brand}']").check()
            page.locator(f"input[name={price_param}][value='{price}']").check()

            expected = [p.name for p in mine if _in(p.price, price)]
            assert expected and len(expected) < len(mine) < len(results)
            grid = page.locator(".search-results .grid > li")
            expect(grid).to_have_count(min(len(expected), STEP))
            assert _shown(page) == expected[:STEP]
            # Each facet counted over the query's results with the other's choice applied.
            assert _counts(page, brand_param) == {
                value: sum(p.brand == value and _in(p.price, price) for p in results)
                for value in _counts(page, brand_param)
            }
            assert set(_counts(page, brand_param)) == set(brands)
            assert _counts(page, price_param) == {
                value: sum(_in(p.price, value) for p in mine) for value in ranges
            }
            query = parse_qs(urlsplit(page.url).query)
            assert query == {"q": [QUERY], brand_param: [brand], price_param: [price]}
            expect(page.locator("meta[name=robots][content=noindex]")).not_to_have_count(0)

            page.reload()
            expect(grid).to_have_count(min(len(expected), STEP))
            assert _shown(page) == expected[:STEP]
            expect(page.locator("#search-q")).to_have_value(QUERY)

            page.go_back()  # the price range was the last choice
            brand_only = [p.name for p in mine]
            expect(grid).to_have_count(min(len(brand_only), STEP))
            assert _shown(page) == brand_only[:STEP]
            assert parse_qs(urlsplit(page.url).query) == {"q": [QUERY], brand_param: [brand]}
            expect(page.locator("meta[name=robots][content=noindex]")).not_to_have_count(0)
            page.close()
            showing, activity = split(settled(counter, origin))
    finally:
        context.close()
    assert showing == [], showing
    assert len(activity) <= 3, activity  # the page's view, once per load


def test_on_a_phone_the_search_pages_drawer_clears_all_but_the_query(
    browser: Browser, origin: str
) -> None:
    context = browser.new_context(locale="vi-VN", viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(origin + f"/tim-kiem?q={QUERY}")
        everything = _every_result(page)
        _open(page)
        drawer = page.locator(".filters")
        box = drawer.bounding_box()
        assert box is not None and box["x"] == 0 and box["height"] >= 800  # over the page
        drawer.locator("input[type=checkbox]:not([disabled])").first.check()
        assert set(parse_qs(urlsplit(page.url).query)) > {"q"}
        drawer.locator(".filters-clear").click()
        expect(drawer.locator("input:checked")).to_have_count(0)
        assert parse_qs(urlsplit(page.url).query) == {"q": [QUERY]}
        expect(page.locator(".search-results .grid > li")).to_have_count(min(len(everything), STEP))
        assert _shown(page) == everything[:STEP]
        drawer.locator(".filters-done").click()
        expect(drawer).to_be_hidden()
    finally:
        context.close()
