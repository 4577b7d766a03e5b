"""What a shopper does on the demo store, step by step, through the real pages and islands."""

from __future__ import annotations

from pathlib import Path

import lxml.html
from playwright.sync_api import Locator, Page, expect


def products_with_variants(out: Path, wanted: int) -> list[str]:
    """Paths of product pages with at least two options on sale (radios not disabled)."""
    found = []
    for file in sorted((out / "san-pham").glob("*.html")):
        doc = lxml.html.parse(str(file)).getroot()
        radios = doc.xpath('//form[@data-island="add-to-cart"]//input[@type="radio"]')
        if len([r for r in radios if r.get("disabled") is None]) >= 2:
            found.append("/" + file.relative_to(out).with_suffix("").as_posix())
            if len(found) == wanted:
                break
    assert len(found) == wanted, "the demo store has too few products with two variants"
    return found


def open_product(page: Page, origin: str, product_path: str) -> Locator:
    """The product page with its island live and its variants' live prices in."""
    page.goto(origin + product_path)
    form = page.locator("form.add-to-cart")
    expect(form.locator(".cart-status")).to_have_count(1)  # the island is live
    page.wait_for_load_state("networkidle")  # and has the variants
    return form


def chosen_variant(form: Locator) -> str:
    return form.locator('input[name="variant_id"]').input_value()


def chosen_variant_name(form: Locator) -> str:
    """The demo store names a variant by its option values: "M / Kem"."""
    checked = form.locator("fieldset input[type=radio]:checked")
    return " / ".join(checked.evaluate_all("radios => radios.map((r) => r.value)"))


def pick_other_variant(form: Locator, taken: set[str]) -> str:
    """Check options naming a variant in stock that is not in ``taken``; its id."""
    radios = form.locator("fieldset input[type=radio]")
    for n in range(radios.count()):
        radio = radios.nth(n)
        if radio.is_disabled() or radio.is_checked():
            continue
        radio.check()
        variant = chosen_variant(form)
        if variant and variant not in taken and form.locator("[type=submit]").is_enabled():
            return variant
    raise AssertionError("no other variant in stock to choose")


def add_variants(page: Page, origin: str, product_path: str, count: int) -> None:
    """Open the product page and add ``count`` variants on sale, one each: the one the page
    starts on, then others chosen by their options."""
    form = open_product(page, origin, product_path)
    taken: set[str] = set()
    for n in range(count):
        variant = chosen_variant(form) if n == 0 else pick_other_variant(form, taken)
        form.locator('button[type="submit"]').click()
        expect(form.locator(".cart-status")).to_contain_text("Đã thêm vào giỏ hàng")
        form.locator(".cart-status").evaluate("el => el.textContent = ''")
        taken.add(variant)


def fill_checkout(page: Page, origin: str, *, payment: str) -> None:
    page.goto(origin + "/thanh-toan")
    form = page.locator("form.checkout")
    form.locator("#co-name").fill("Nguyễn Văn An")
    form.locator("#co-phone").fill("0901234567")
    form.locator("#co-email").fill("an@example.vn")
    form.locator("#co-city").select_option(index=1)
    expect(form.locator("#co-ward option")).not_to_have_count(1)
    form.locator("#co-ward").select_option(index=1)
    form.locator("#co-street").fill("12 Lê Lợi")
    form.locator(f'input[name="payment"][value="{payment}"]').check()
    form.locator('button[type="submit"]').click()


def register(page: Page, origin: str, name: str, email: str, password: str) -> None:
    """A new customer through the account page's form, greeted by name once logged in."""
    page.goto(origin + "/tai-khoan")
    form = page.locator('form[data-form="register"]')
    form.locator("#re-name").fill(name)
    form.locator("#re-email").fill(email)
    form.locator("#re-password").fill(password)
    form.locator('button[type="submit"]').click()
    expect(page.locator(".greeting")).to_contain_text(name)


def cookie_names_in_script(page: Page) -> str:
    return str(page.evaluate("document.cookie"))
