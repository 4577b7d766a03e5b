"""What the islands draw and say comes from the theme: a layer that overrides the price
partial and every word of words.toml with a marker sees its markup on the cards the islands
draw (search results, a sorted listing, a variant's price) and its words in everything they
say, and no default word."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from generator.config import BUNDLED_THEME
from tests.browser.live_server import live_server
from tests.browser.shopper import open_product, pick_other_variant, products_with_variants
from tests.support.demo_build import BUILD_TIMEOUT, DEMO_SITE_URL, REPO

pytestmark = pytest.mark.browser

PRICE = """{% macro price(item, save=False) -%}
{% set p = price_of(item) %}
<p class="price"><b>PRICE-MARK</b> <span class="price-now">{{ p.now | vnd }}</span>
{%- if save and p.was is not none %} <i>{{ p.off }}</i>{% endif %}</p>
{%- endmacro %}
"""


def default_words() -> dict[str, dict[str, str]]:
    with (BUNDLED_THEME / "words.toml").open("rb") as file:
        return tomllib.load(file)


def marker(table: str, key: str) -> str:
    return f"W-{table}-{key}-W"


@pytest.fixture(scope="module")
def themed_origin(demo_output: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo store built again from its crawl with the marking layer."""
    base = tmp_path_factory.mktemp("words")
    theme = base / "theme"
    (theme / "partials").mkdir(parents=True)
    (theme / "partials" / "price.html").write_text(PRICE, encoding="utf-8")
    lines = []
    for table, texts in default_words().items():
        lines.append(f"[{table}]")
        for key, text in texts.items():
            names = " ".join(re.findall(r"\{\w+\}", text))
            lines.append(f'{key} = "{marker(table, key)} {names}"')
    (theme / "words.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copytree(demo_output.parent / "demo-cache", base / "cache")
    out = base / "out"
    command = [
        sys.executable, "-m", "generator", "build", "--from-cache", "--theme", str(theme),
        "--out", str(out), "--cache-dir", str(base / "cache"), "--site-url", DEMO_SITE_URL,
    ]  # fmt: skip
    result = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with live_server(out, base / "companion.sqlite3") as served:
        yield served


def no_default_island_word(text: str) -> None:
    for table in ("islands", "stock"):
        for word in default_words()[table].values():
            for fragment in re.split(r"\{\w+\}", word):
                fragment = fragment.strip(' :.,"')
                assert len(fragment) < 6 or fragment not in text, fragment


def test_the_islands_are_given_the_layer_s_words(page: Page, themed_origin: str) -> None:
    page.goto(themed_origin + "/")
    main = page.locator("script[type=module]").first.get_attribute("src")
    given = page.evaluate("(src) => import(src).then((m) => m.words)", main)
    expected = {key: f"{marker('islands', key)} " for key in default_words()["islands"]}
    assert {k: v.split("{")[0] for k, v in given.items() if k != "stock"} == expected
    assert given["stock"] == {k: f"{marker('stock', k)} " for k in default_words()["stock"]}


def test_search_results_are_drawn_by_the_layer_s_price_partial(
    page: Page, themed_origin: str
) -> None:
    page.goto(themed_origin + "/tim-kiem?q=ao")
    cards = page.locator(".search-results .card")
    expect(cards.first).to_be_visible()
    assert cards.count() == page.locator(".search-results .card b", has_text="PRICE-MARK").count()
    results = page.locator(".search-results").inner_text()
    no_default_island_word(results)
    if page.locator(".search-results .more").count():
        assert marker("islands", "more") in page.locator(".search-results .more").inner_text()
    page.goto(themed_origin + "/tim-kiem?q=khongcosanphamnaynhe")
    expect(page.locator(".search-results p")).to_contain_text(marker("islands", "no_results"))


def test_a_sorted_listing_s_cards_and_words_are_the_layer_s(page: Page, themed_origin: str) -> None:
    page.goto(themed_origin + "/danh-muc/ao-dai")
    sort = page.locator("p.sort")
    expect(sort).to_contain_text(marker("islands", "sort"))
    options = page.locator("#sort option").all_inner_texts()
    assert [o.strip() for o in options] == [
        marker("islands", k)
        for k in ("sort_default", "sort_newest", "sort_price_asc", "sort_price_desc")
    ]
    page.locator("#sort").select_option("price_desc")
    page.wait_for_load_state("networkidle")
    cards = page.locator(".grid .card")
    assert cards.count() >= 5
    assert cards.count() == page.locator(".grid .card b", has_text="PRICE-MARK").count()
    no_default_island_word(page.locator("main").inner_text())


def test_a_variant_s_price_stock_and_statuses_are_the_layer_s(
    page: Page, themed_origin: str, demo_output: Path
) -> None:
    product = products_with_variants(demo_output, 1)[0]
    form = open_product(page, themed_origin, product)
    pick_other_variant(form, set())
    info = page.locator(".product-info")
    expect(info.locator(".price b")).to_have_text("PRICE-MARK")
    expect(info.locator(".stock")).to_contain_text("W-stock-")
    form.locator("button[type=submit]").click()
    expect(form.locator(".cart-status")).to_contain_text(marker("islands", "added"))
    expect(form.locator(".cart-status a")).to_have_text(marker("islands", "see_cart"))
    no_default_island_word(info.inner_text())
