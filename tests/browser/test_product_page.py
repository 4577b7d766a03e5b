"""The product page, product cards, sort and cart in Chromium against the live companion:
the option picker for none, one and several options, the gallery, island-drawn cards that
match the static ones, a sort that survives a reload, cart lines with thumbnails and totals."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.shopper import add_variants, chosen_variant, open_product

pytestmark = pytest.mark.browser


def product_pages(out: Path, groups: int) -> list[str]:
    """Paths of product pages whose add-to-cart form has ``groups`` option groups."""
    found = []
    for file in sorted((out / "san-pham").glob("*.html")):
        form = lxml.html.parse(str(file)).getroot().xpath("//form[@data-island='add-to-cart']")
        if form and len(form[0].xpath(".//fieldset")) == groups:
            found.append("/" + file.relative_to(out).with_suffix("").as_posix())
    assert found, f"the demo store has no product with {groups} option groups"
    return found


def live_variants(page: Page, origin: str, form: Locator) -> list[dict[str, Any]]:
    product = form.get_attribute("data-product-id")
    answer = page.request.get(f"{origin}/session/api/products/{product}/variants")
    items: list[dict[str, Any]] = answer.json()["items"]
    return items


def vnd(amount: object) -> str:
    return f"{round(float(str(amount))):,}".replace(",", ".") + "\u00a0₫"


def price_of(variant: dict[str, Any]) -> float:
    now = variant["effective_price"]
    return float(now if now is not None else variant["price"])


def shown_price(page: Page) -> str:
    return page.locator(".product-info .price-now").inner_text()


def test_a_sole_variant_has_no_picker_and_the_button_adds_it(
    page: Page, origin: str, demo_output: Path
) -> None:
    for path in product_pages(demo_output, 0):
        form = open_product(page, origin, path)
        [sole] = live_variants(page, origin, form)
        if sole["in_stock"]:
            break
    else:
        pytest.fail("no product with one variant in stock")
    assert form.locator("fieldset").count() == 0
    assert chosen_variant(form) == str(sole["id"])
    form.locator("[type=submit]").click()
    expect(form.locator(".cart-status")).to_contain_text("Đã thêm vào giỏ hàng")
    expect(page.locator("header .cart-count")).to_have_text("(1)")


def test_one_option_picks_its_variant_with_its_price(
    page: Page, origin: str, demo_output: Path
) -> None:
    form = open_product(page, origin, product_pages(demo_output, 1)[0])
    variants = live_variants(page, origin, form)
    [name] = {k for v in variants for k in v["options"]}
    for variant in variants:
        radio = form.locator(f"fieldset input[value='{variant['options'][name]}']")
        expect(radio).to_be_enabled() if variant["in_stock"] else expect(radio).to_be_disabled()
    on_sale = [v for v in variants if v["in_stock"]]
    for variant in on_sale:
        form.locator(f"fieldset input[value='{variant['options'][name]}']").check()
        assert chosen_variant(form) == str(variant["id"])
        assert shown_price(page) == vnd(price_of(variant))
        expect(form.locator("[type=submit]")).to_be_enabled()


def test_several_options_disable_combinations_not_in_stock_and_show_the_variant(
    page: Page, origin: str, demo_output: Path
) -> None:
    for path in product_pages(demo_output, 2):
        form = open_product(page, origin, path)
        variants = live_variants(page, origin, form)
        prices = {price_of(v) for v in variants if v["in_stock"]}
        if any(not v["in_stock"] for v in variants) and len(prices) > 1:
            break
    else:
        pytest.fail("no product with two options, a sold-out combination and two prices")
    radios = form.locator("fieldset input[type=radio]")
    shown = set()
    for _round in range(12):
        chosen = {
            r.get_attribute("name"): r.get_attribute("value")
            for r in radios.all()
            if r.is_checked()
        }
        for radio in radios.all():
            name, value = radio.get_attribute("name"), radio.get_attribute("value")
            others = {k: v for k, v in chosen.items() if k != name}
            open_ = any(
                v["in_stock"]
                and v["options"].get(name) == value
                and all(v["options"].get(k) == x for k, x in others.items())
                for v in variants
            )
            assert radio.is_enabled() == open_, (name, value, chosen)
        match = next(v for v in variants if v["options"] == chosen)
        assert chosen_variant(form) == str(match["id"])
        if match["in_stock"]:
            assert shown_price(page) == vnd(price_of(match))
            shown.add(price_of(match))
        stock = page.locator(".product-info .stock")
        expect(stock).to_have_text(
            "Còn hàng"
            if match["in_stock"] and (match["stock"] is None or match["stock"] > 5)
            else "Sắp hết"
            if match["in_stock"]
            else "Hết hàng"
        )
        # another open value, to move to a new combination
        closed = [r for r in radios.all() if r.is_enabled() and not r.is_checked()]
        if not closed:
            break
        closed[_round % len(closed)].check()
    assert len(shown) > 1, "the price should have followed the choice"


def test_thumbnails_swap_the_image_without_moving_the_page_and_work_by_keyboard(
    page: Page, origin: str, demo_output: Path
) -> None:
    page.set_viewport_size({"width": 1366, "height": 900})
    for file in sorted((demo_output / "san-pham").glob("*.html")):
        if file.read_text(encoding="utf-8").count('href="#anh-') >= 3:
            break
    page.goto(origin + "/" + file.relative_to(demo_output).with_suffix("").as_posix())
    page.wait_for_load_state("networkidle")
    strip = page.locator("ul.gallery")
    thumbs = page.locator(".thumbs a")
    third = page.locator("#anh-3 img")
    expect(third).not_to_be_in_viewport()
    thumbs.nth(2).click()
    expect(third).to_be_in_viewport(ratio=0.9)
    expect(thumbs.nth(2)).to_have_attribute("aria-current", "true")
    expect(thumbs.nth(0)).to_have_attribute("aria-current", "false")
    assert page.evaluate("scrollY") == 0
    thumbs.nth(0).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#anh-1 img")).to_be_in_viewport(ratio=0.9)
    assert strip.evaluate("el => getComputedStyle(el).scrollSnapType").startswith("x")


def static_card(out: Path, page_path: str, href: str) -> str | None:
    doc = lxml.html.parse(str(out / (page_path.strip("/") + ".html"))).getroot()
    for card in doc.xpath(f"//li[@class='card'][.//a[@href='{href}']]"):
        return normalized(lxml.html.tostring(card, encoding="unicode"))
    return None


def normalized(html: str) -> str:
    """Markup as lxml writes it (the browser writes &nbsp;), without spaces between tags."""
    element = lxml.html.fragment_fromstring(html)
    return re.sub(r">\s+<", "><", lxml.html.tostring(element, encoding="unicode")).strip()


def test_sorted_cards_match_the_static_ones_and_the_sort_survives_a_reload(
    page: Page, origin: str, demo_output: Path
) -> None:
    listing = "/danh-muc/ao-dai"
    page.goto(origin + listing)
    page.locator("#sort").select_option("price_desc")
    expect(page).to_have_url(re.compile(r"\?sap-xep=price_desc$"))
    page.wait_for_load_state("networkidle")
    cards = page.locator(".grid .card")
    drawn = cards.evaluate_all("cs => cs.map((c) => c.outerHTML)")
    compared = struck = 0
    for html in drawn:
        href = re.search(r'href="([^"]+)"', html)
        assert href
        static = static_card(demo_output, listing, href.group(1))
        if static is not None:
            assert normalized(html) == static
            compared += 1
            struck += "price-was" in static
    assert compared >= 5 and struck >= 1, (compared, struck)

    page.reload()
    page.wait_for_load_state("networkidle")
    expect(page.locator("#sort")).to_have_value("price_desc")
    prices = [int(re.sub(r"\D", "", t)) for t in page.locator(".grid .price-now").all_inner_texts()]
    assert prices == sorted(prices, reverse=True) and len(prices) >= 5


def related_headings(page: Page) -> Locator:
    return page.get_by_role("heading", name="Sản phẩm liên quan", exact=True)


def test_the_related_products_are_the_pages_own_and_nothing_is_asked_for_them(
    page: Page, origin: str, demo_output: Path
) -> None:
    path = product_pages(demo_output, 2)[0]
    html = (demo_output / (path.lstrip("/") + ".html")).read_text(encoding="utf-8")
    assert re.search(r'id="?related\b', html)  # a default build writes them into the page
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(origin + path)
    page.wait_for_load_state("networkidle")
    expect(related_headings(page)).to_have_count(1)
    paths = page.locator("#related + .grid .card h3 a").evaluate_all(
        "as => as.map((a) => a.pathname)"
    )
    assert paths and path not in paths and len(paths) <= 4
    assert not [url for url in asked if "/recommendations/" in url or "/variants" in url]


def test_a_variant_sold_out_since_the_build_is_refused_in_the_pages_words(
    page: Page, origin: str, demo_output: Path
) -> None:
    """The page says in stock (its build was before the last one sold); the cart refuses it."""
    for path in product_pages(demo_output, 1):
        html = (demo_output / (path.lstrip("/") + ".html")).read_text(encoding="utf-8")
        if '"in_stock":false' in html:
            break
    else:
        pytest.fail("no product with a sold-out variant")
    stale = html.replace('"in_stock":false', '"in_stock":true')
    page.route(
        origin + path,
        lambda route: route.fulfill(status=200, content_type="text/html", body=stale),
    )
    form = open_product(page, origin, path)
    data = form.evaluate("() => JSON.parse(document.getElementById('product-data').textContent)")
    live = {v["id"]: v for v in live_variants(page, origin, form)}
    [gone] = [v for v in data["variants"] if not live[v["id"]]["in_stock"]][:1]
    [name] = gone["options"]
    form.locator(f"fieldset input[value='{gone['options'][name]}']").check()
    assert chosen_variant(form) == str(gone["id"])
    form.locator("[type=submit]").click()
    expect(form.locator(".cart-status")).to_have_text(
        str(form.get_attribute("data-validation_error"))
    )
    assert "hết hàng" in str(form.get_attribute("data-validation_error"))


def test_cart_lines_show_thumbnails_line_totals_and_steppers(
    page: Page, origin: str, demo_output: Path
) -> None:
    page.set_viewport_size({"width": 1366, "height": 900})
    add_variants(page, origin, product_pages(demo_output, 2)[1], 2)
    page.goto(origin + "/gio-hang")
    lines = page.locator(".cart-line")
    expect(lines).to_have_count(2)
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "service_cart")
    cart = page.request.get(f"{origin}/session/api/cart?token={token}").json()
    for n, item in enumerate(cart["items"]):
        line = lines.nth(n)
        thumb = line.locator("img.cart-thumb")
        expect(thumb).to_have_attribute("width", "80")
        expect(thumb).to_have_attribute("height", "80")
        expect(line.locator(".line-total")).to_have_text(vnd(item["line_total"]))
    first = lines.nth(0)
    unit = float(cart["items"][0]["unit_price"])
    first.get_by_role("button", name="Thêm 1").click()
    expect(first.locator("input[type=number]")).to_have_value("2")
    expect(first.locator(".line-total")).to_have_text(vnd(2 * unit))
    expect(page.locator("header .cart-count")).to_have_text("(3)")
    first.get_by_role("button", name="Bớt 1").click()
    expect(first.locator(".line-total")).to_have_text(vnd(unit))
    summary = page.locator(".cart-summary")
    expect(summary.locator("dd.total")).to_be_visible()
    expect(summary.get_by_role("link", name="Thanh toán")).to_be_visible()
    assert summary.evaluate("el => getComputedStyle(el).position") == "sticky"
