"""The search from the index the build publishes (islands/find.js): suggestions as the shopper
types in the header, tone-insensitive and one typo tolerant, worked by the keyboard; the search
page's every result and its sorts; none of it asks the API, and the module loads only once the
field is used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_page_requests import counting, settled, split
from tests.generator.test_search_index import _postings

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


def _holding(site: Path) -> dict[str, set[int]]:
    """Every word of the index and the products that have it (name or other words)."""
    found: dict[str, set[int]] = {}
    for shard in (site / "_search" / "t").glob("*.json"):
        for word, lists in _postings(shard.read_bytes()).items():
            found.setdefault(word, set()).update(*lists)
    return found


FIND_PAGE = """<!doctype html><main></main><script type=module>
import { find } from '/_assets/find.js'
window.find = find
window.ready = true
</script>"""


def test_a_store_of_many_skus_is_searched_from_small_shards(
    browser: Browser, tmp_path: Path
) -> None:
    """3,000 SKUs that share their first letters: split into small shards, each word found
    whole where the island looks, and a query ending in a split prefix still suggests some."""
    from benchmarks.search import catalogue, serving
    from generator.search_index.fold import words
    from generator.search_index.store import write_search_index
    from generator.shipped import THEME_DIR

    catalog, plan = catalogue(3000)
    limit = 8 * 1024
    sites = {}
    for name, shard_bytes in (("split", limit), ("whole", 2**40)):
        site = sites[name] = tmp_path / name
        (site / "_assets").mkdir(parents=True)
        for module in ("main.js", "find.js"):
            shutil.copy(THEME_DIR / "islands" / module, site / "_assets" / module)
        (site / "index.html").write_text(FIND_PAGE, encoding="utf-8")
        cache = tmp_path / f"{name}-cache"
        cache.mkdir()
        write_search_index(catalog, plan, site, cache, scratch=cache, shard_bytes=shard_bytes)
    prefixes = json.loads((sites["split"] / "_search" / "index.json").read_bytes())["s"]
    assert "sp1" in prefixes
    # The whole index's manifest as a format 3 one has it, without the split prefixes: what a
    # browser may hold across a deploy.
    manifest = sites["whole"] / "_search" / "index.json"
    whole = json.loads(manifest.read_bytes())
    assert whole.pop("s") == {}
    manifest.write_text(json.dumps(whole), encoding="utf-8")
    holding = _holding(sites["whole"])
    queries = ["sp1234", "sp123", "ao sp20", "sp1"]

    def results(site: Path) -> tuple[dict[str, list[int]], list[int]]:
        found, shards = {}, []
        with serving(site) as origin:
            context = browser.new_context()
            try:
                page = context.new_page()
                page.on(
                    "response",
                    lambda r: "/_search/t/" in r.url and shards.append(len(r.body())),
                )
                page.goto(origin + "/")
                page.wait_for_function("window.ready")
                for query in queries:
                    found[query] = page.evaluate("(q) => window.find(q)", query)
            finally:
                context.close()
        return found, shards

    (split_found, split_shards), (whole_found, whole_shards) = (
        results(sites["split"]),
        results(sites["whole"]),
    )
    assert max(split_shards) <= limit * 1.25 < max(whole_shards), (split_shards, whole_shards)
    for query in queries:
        assert split_found[query], query
        assert set(split_found[query]) <= set(whole_found[query]), query
        *first, last = words(query)
        exact_or_prefix = set.intersection(
            *(holding.get(w, set()) for w in first),
            *[set().union(*(ids for w, ids in holding.items() if w.startswith(last)))],
        )
        if last not in prefixes:  # a split prefix's shard: the likeliest of its words only
            # Every product with the words (the last one begun); the whole index's matches one
            # typo off (sp1334 for sp1234) may be in shards the split one skips.
            assert exact_or_prefix <= set(split_found[query]), query
