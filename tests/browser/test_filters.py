"""A category's filters and sorts, in Chromium against the demo store: what they show is what the
catalogue says (asked of the companion's API before the shopper starts, never hard-coded), the
url carries the choices (reload and Back), and nothing is asked of the API while filtering or
sorting (counted where the key is spent, as test_page_requests counts a page)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import lxml.html
import pytest
from playwright.sync_api import Browser, Page, expect

from companion.seed.demo import DEMO_KEY
from tests.browser.test_page_requests import counting, settled, split

pytestmark = pytest.mark.browser


@dataclass(frozen=True)
class Listed:
    name: str
    brand: str | None
    price: int | None  # effective


def _money(value: object) -> int | None:
    return None if value is None else round(float(str(value)))


def _walk(
    client: httpx.Client, path: str, params: dict[str, object]
) -> Iterator[dict[str, object]]:
    cursor = None
    while True:
        page = client.get(path, params={**params, **({"cursor": cursor} if cursor else {})})
        page.raise_for_status()
        body = page.json()
        yield from body["items"]
        cursor = body.get("next_cursor")
        if not body.get("has_more") or not cursor:
            return


@dataclass(frozen=True)
class Category:
    path: str
    products: tuple[Listed, ...]  # in the API's list order


@pytest.fixture(scope="module")
def category(origin: str, demo_output: Path) -> Category:
    """The first category page of the demo output, and its products as the API lists them."""
    file = sorted((demo_output / "danh-muc").glob("*.html"))[0]
    island = lxml.html.parse(str(file)).getroot().xpath('//*[@data-island="load-more"]')[0]
    with httpx.Client(base_url=origin + "/public/v1", headers={"X-Service-Key": DEMO_KEY}) as api:
        cards = list(
            _walk(api, "/products", {"category": island.get("data-category-id"), "limit": 100})
        )
        products = []
        for card in cards:
            detail = api.get(f"/products/{card['id']}").json()
            price = _money(card.get("effective_price"))
            products.append(
                Listed(
                    card["name"],
                    (detail.get("brand") or {}).get("name"),
                    price if price is not None else _money(card.get("price")),
                )
            )
    return Category("/" + file.relative_to(demo_output).with_suffix("").as_posix(), tuple(products))


def _in(price: int | None, value: str) -> bool:
    low, high = (int(x) if x else None for x in value.split("-"))
    return price is not None and (low is None or price >= low) and (high is None or price < high)


def _names(page: Page) -> list[str]:
    return page.locator("main .grid > li h3").all_text_contents()


def _counts(page: Page, param: str) -> dict[str, int]:
    """The counts a facet shows, by value."""
    found = {}
    for label in page.locator(f"input[name={param}]").all():
        count = label.locator("xpath=../span[contains(@class,'count')]").text_content() or ""
        found[label.get_attribute("value") or ""] = int(count.strip("()"))
    return found


def _step(page: Page) -> int:
    """How many products a listing shows at once: its first page's."""
    return int(page.locator("[data-island=load-more]").get_attribute("data-shown") or 0)


def _opened(page: Page, origin: str, path: str) -> None:
    page.goto(origin + path)
    page.wait_for_load_state("networkidle")
    page.locator(".filter-open").click()
    expect(page.locator(".filters")).to_be_visible()


def test_a_brand_and_a_price_range_show_what_the_catalogue_says_and_the_url_round_trips(
    browser: Browser, origin: str, category: Category
) -> None:
    context = browser.new_context(locale="vi-VN", viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        with counting() as counter:
            _opened(page, origin, category.path)
            brand_param = page.locator(".filters").get_attribute("data-param-brand")
            price_param = page.locator(".filters").get_attribute("data-param-price")
            assert brand_param and price_param
            # The brand with most products here, then the range holding most of them.
            brands = Counter(p.brand for p in category.products if p.brand)
            brand = min(brands, key=lambda b: (-brands[b], b))
            ranges = [
                box.get_attribute("value") or ""
                for box in page.locator(f"input[name={price_param}]").all()
            ]
            mine = [p for p in category.products if p.brand == brand]
            price = max(ranges, key=lambda r: sum(_in(p.price, r) for p in mine))
            page.locator(f"input[name={brand_param}][value='{brand}']").check()
            page.locator(f"input[name={price_param}][value='{price}']").check()

            expected = [p.name for p in mine if _in(p.price, price)]
            assert expected, "the chosen brand and range hold products"
            expect(page.locator("main .grid > li")).to_have_count(min(len(expected), _step(page)))
            assert _names(page) == expected[: _step(page)]
            # Each facet counted with the other's choice applied.
            assert _counts(page, brand_param) == {
                value: sum(p.brand == value and _in(p.price, price) for p in category.products)
                for value in _counts(page, brand_param)
            }
            assert _counts(page, price_param) == {
                value: sum(_in(p.price, value) for p in mine) for value in ranges
            }
            query = parse_qs(urlsplit(page.url).query)
            assert query[brand_param] == [brand] and query[price_param] == [price]
            expect(page.locator("meta[name=robots][data-filters]")).to_have_count(1)

            page.reload()
            page.wait_for_load_state("networkidle")
            expect(page.locator("main .grid > li")).to_have_count(min(len(expected), _step(page)))
            assert _names(page) == expected[: _step(page)]

            page.go_back()  # the price range was the last choice
            brand_only = [p.name for p in mine]
            expect(page.locator("main .grid > li")).to_have_count(min(len(brand_only), _step(page)))
            assert _names(page) == brand_only[: _step(page)]
            assert parse_qs(urlsplit(page.url).query) == {brand_param: [brand]}
            page.close()
            showing, activity = split(settled(counter, origin))
    finally:
        context.close()
    assert showing == [], showing
    assert len(activity) <= 2, activity  # the page's view, once per load


def test_sorting_a_category_asks_nothing(browser: Browser, origin: str, category: Category) -> None:
    context = browser.new_context(locale="vi-VN", viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        fetched: list[str] = []
        page.on("request", lambda request: fetched.append(urlsplit(request.url).path))
        with counting() as counter:
            page.goto(origin + category.path)
            page.wait_for_load_state("networkidle")
            # The first load costs neither the filters' code nor the listing's data.
            assert not [p for p in fetched if p.endswith("/filters.js") or "/_data/" in p]
            page.locator("#sort").select_option("price_asc")
            ordered = sorted(
                category.products, key=lambda p: p.price if p.price is not None else 10**15
            )
            shown = min(len(ordered), _step(page))
            expect(page.locator("main .grid > li h3").first).to_have_text(ordered[0].name)
            assert _names(page) == [p.name for p in ordered[:shown]]
            assert any(p.endswith("/filters.js") for p in fetched)  # loaded once used
            page.close()
            showing, _activity = split(settled(counter, origin))
    finally:
        context.close()
    assert showing == [], showing


def test_on_a_phone_the_drawer_opens_and_clear_all_clears(
    browser: Browser, origin: str, category: Category
) -> None:
    context = browser.new_context(locale="vi-VN", viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        _opened(page, origin, category.path)
        drawer = page.locator(".filters")
        box = drawer.bounding_box()
        assert box is not None and box["x"] == 0 and box["height"] >= 800  # over the page
        drawer.locator("input[type=checkbox]:not([disabled])").first.check()
        assert urlsplit(page.url).query
        drawer.locator(".filters-clear").click()
        expect(drawer.locator("input:checked")).to_have_count(0)
        assert urlsplit(page.url).query == ""
        expect(page.locator("meta[name=robots][data-filters]")).to_have_count(0)
        expect(page.locator("main .grid > li")).to_have_count(
            min(len(category.products), _step(page))
        )
        drawer.locator(".filters-done").click()
        expect(drawer).to_be_hidden()
    finally:
        context.close()
