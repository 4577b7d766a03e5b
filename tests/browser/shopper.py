"""What a shopper does on the demo store, step by step, through the real pages and islands."""

from __future__ import annotations

from pathlib import Path

import lxml.html
from playwright.sync_api import Page, expect


def products_with_variants(out: Path, wanted: int) -> list[str]:
    """Paths of product pages with at least two variants on sale (radios not disabled)."""
    found = []
    for file in sorted((out / "san-pham").glob("*.html")):
        doc = lxml.html.parse(str(file)).getroot()
        radios = doc.xpath('//form[@data-island="add-to-cart"]//input[@name="variant_id"]')
        if len([r for r in radios if r.get("disabled") is None]) >= 2:
            found.append("/" + file.relative_to(out).with_suffix("").as_posix())
            if len(found) == wanted:
                break
    assert len(found) == wanted, "the demo store has too few products with two variants"
    return found


def add_variants(page: Page, origin: str, product_path: str, count: int) -> None:
    """Open the product page and add its first ``count`` variants on sale, one each."""
    page.goto(origin + product_path)
    form = page.locator("form.add-to-cart")
    expect(form.locator(".cart-status")).to_have_count(1)  # the island is live
    radios = form.locator('input[name="variant_id"]:not([disabled])')
    for n in range(count):
        radios.nth(n).check()
        form.locator('button[type="submit"]').click()
        expect(form.locator(".cart-status")).to_contain_text("Đã thêm vào giỏ hàng")
        form.locator(".cart-status").evaluate("el => el.textContent = ''")


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


def cookie_names_in_script(page: Page) -> str:
    return str(page.evaluate("document.cookie"))
