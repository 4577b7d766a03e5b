"""The demo store's page types, the shopper each is seen as, and how to wait until a page is
drawn for good: islands done, lazy images loaded, fonts settled."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.shopper import products_with_variants
from tests.visual.states import ORDER_CODE


@dataclass(frozen=True, slots=True)
class StorePage:
    name: str
    path: str
    state: str  # a key of the `states` fixture
    ready: str | None = None  # what the page's island draws once its data is in
    opened: str | None = None  # a button pressed once ready (the first order's details)


def store_pages(out: Path) -> dict[str, StorePage]:
    """One page of every type of the demo build at ``out``, by name. Those named
    in PHOTOGRAPHED are photographed; the product is the one the cart holds."""
    product = products_with_variants(out, 1)[0]
    article = sorted((out / "bai-viet").glob("*.html"))[0].stem
    pages = [
        StorePage("home", "/", "cart"),
        StorePage("category", "/danh-muc/ao-thun-nu", "cart"),
        StorePage("product", product, "cart", "form.add-to-cart .cart-status"),
        StorePage("cart", "/gio-hang", "cart", ".cart-line >> nth=1"),
        StorePage("checkout", "/thanh-toan", "cart", "form.checkout"),
        StorePage("account", "/tai-khoan", "customer", ".order[data-code]", ".order button"),
        StorePage("confirmation", f"/thanh-toan?don={ORDER_CODE}", "customer", ".order-done"),
        StorePage("payment-result", "/thanh-toan/ket-qua", "paid", ".order-done"),
        StorePage("product-list", "/san-pham", "cart"),
        StorePage("collection-list", "/bo-suu-tap", "cart"),
        StorePage("collection", "/bo-suu-tap/ban-chay-nhat", "cart"),
        StorePage("search", "/tim-kiem", "cart"),
        StorePage("article-list", "/bai-viet", "cart"),
        StorePage("article", f"/bai-viet/{article}", "cart"),
        StorePage("cms-page", "/trang/gioi-thieu", "cart"),
        StorePage("not-found", "/khong-co-trang-nay", "cart"),
    ]
    for page in pages:
        file = out / (page.path.split("?")[0].strip("/") or "index")
        assert page.name == "not-found" or file.with_suffix(".html").is_file(), page.path
    return {page.name: page for page in pages}


PHOTOGRAPHED = (
    *("home", "category", "product", "cart", "checkout", "account"),
    *("confirmation", "payment-result"),
)

# Lazy images load now, not when scrolled to; then every image is decoded and the fonts are in.
_SETTLE = """async () => {
  for (const img of document.images) if (img.loading === 'lazy') img.loading = 'eager'
  await Promise.all([...document.images].map((img) => img.decode().catch(() => null)))
  await document.fonts.ready
}"""


def open_settled(page: Page, origin: str, store_page: StorePage, path: str | None = None) -> None:
    """Open the page (at ``path`` when given) and wait until nothing on it will change by
    itself."""
    page.goto(origin + (path or store_page.path), wait_until="load")
    if store_page.ready:
        expect(page.locator(store_page.ready)).to_be_attached()
        if store_page.opened:
            page.locator(store_page.opened).first.click()
    page.wait_for_load_state("networkidle")
    page.evaluate(_SETTLE)
