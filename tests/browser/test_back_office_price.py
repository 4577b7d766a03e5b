"""A price edited in the back office reaches the published site: the edit queues the
content-change webhook, the CI's incremental `storefront build --event` is handed its payload,
and the category card, the product page and the cart all show the new price (Chromium, 390 and
1366 px)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import lxml.html
import pytest
from playwright.sync_api import Browser, Page, expect

from companion.app import create_app
from companion.clock import SystemClock
from companion.demo_published import DEMO_KEY, DEMO_STAFF_EMAIL, DEMO_STAFF_PASSWORD
from companion.seed.demo import seed_demo
from companion.settings import CompanionSettings
from companion.webhooks.subscriptions import add_subscription
from companion.webhooks.worker import deliver_due
from generator.serve.stack import embedded_stack
from tests.support.loopback import loopback_socket, serving_on

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
PRODUCTS = 24
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1366, "height": 768}


def shown(price: int) -> str:
    return f"{price:,}".replace(",", ".") + " ₫"


@dataclass(frozen=True)
class Shop:
    site: str  # where the built site is served, the API proxied beside it
    companion: str  # the companion's own origin: /public/v1 and /admin
    out: Path
    cache: Path
    engine: object


def build(shop_site: str, companion: str, out: Path, cache: Path, *extra: str) -> None:
    command = [
        sys.executable, "-m", "generator", "build",
        "--api-url", f"{companion}/public/v1",
        "--site-url", shop_site, "--out", str(out), "--cache-dir", str(cache), *extra,
    ]  # fmt: skip
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    environ["STOREFRONT_API_KEY"] = DEMO_KEY  # the key is never an argument
    done = subprocess.run(
        command, cwd=REPO, env=environ, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr


def card_product(out: Path, site: str) -> tuple[Path, str, str]:
    """A category page, the path of a product carded on it (a plain price: no sale), and the
    product's name."""
    for page in sorted((out / "danh-muc").rglob("*.html")):
        doc = lxml.html.parse(str(page)).getroot()
        for card in doc.xpath('//li[contains(concat(" ", @class, " "), " card ")]'):
            links = card.xpath(".//a/@href")
            if not links or card.xpath('.//*[contains(@class, "price-was")]'):
                continue
            if not card.xpath('.//*[contains(@class, "price-now")]'):
                continue
            path = links[0].split("#")[0].removeprefix(site)
            target = out / (path.strip("/") + ".html")
            if "san-pham" in path and target.is_file():
                name = lxml.html.parse(str(target)).getroot().xpath("string(//h1)").strip()
                return page, path, name
    raise AssertionError("no category card with a plain price")


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shop]:
    work = tmp_path_factory.mktemp("price-edit")
    database = work / "companion.sqlite3"
    app = create_app(CompanionSettings(database=str(database)))
    engine = app.state.services.engine
    seed_demo(engine, products=PRODUCTS)
    with engine.begin() as conn:
        add_subscription(
            conn,
            store_id=1,
            url="https://ci.example/hooks/storefront",
            events=["product.*"],
            now=SystemClock().now(),
        )
    api_sock, companion = loopback_socket()
    site_sock, site = loopback_socket()
    out, cache = work / "out", work / "cache"
    try:
        with serving_on(api_sock, app, what="the companion"):
            try:
                build(site, companion, out, cache)
            except BaseException:
                site_sock.close()
                raise
            # The built site as `storefront serve` serves it, its API on the same database.
            served = embedded_stack(
                out, database=str(database), public_url=site, seed_products=None
            )
            with serving_on(site_sock, served, what="the site"):
                yield Shop(site, companion, out, cache, engine)
    finally:
        engine.dispose()


def delivered_events(shop: Shop, folder: Path) -> Path:
    """The webhook deliveries due now, sent to a CI endpoint that keeps each payload as the
    file its job hands `storefront build --event`."""
    kept: list[object] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        kept.append(json.loads(request.content))
        return httpx.Response(200)

    with httpx.Client(transport=httpx.MockTransport(endpoint)) as client:
        deliver_due(shop.engine, client, SystemClock())  # type: ignore[arg-type]
    path = folder / "event.json"
    path.write_text(json.dumps(kept), encoding="utf-8")
    return path


def edit_price(page: Page, companion: str, name: str, price: int) -> None:
    page.goto(companion + "/admin/login")
    page.get_by_label("E-mail").fill(DEMO_STAFF_EMAIL)
    page.get_by_label("Mật khẩu").fill(DEMO_STAFF_PASSWORD)
    page.get_by_role("button", name="Đăng nhập").click()
    page.goto(companion + "/admin/products?q=" + name)
    card = page.locator(".products li").filter(has_text=name).first
    card.get_by_label(f"Giá của {name}").fill(shown(price).removesuffix(" ₫"))
    stocks = card.locator('input[name^="stock_"]')
    for n in range(stocks.count()):  # every variant in stock: the shopper can buy any
        stocks.nth(n).fill("50")
    card.get_by_role("button", name="Lưu").click()
    expect(page.locator(".products .saved")).to_contain_text("Đã lưu")


@pytest.mark.parametrize(
    ("screen", "price"), [(PHONE, 1_234_000), (DESKTOP, 1_345_000)], ids=["phone", "desktop"]
)
def test_a_price_edited_in_the_back_office_is_on_the_card_the_page_and_in_the_cart(
    browser: Browser, shop: Shop, screen: dict[str, int], price: int, tmp_path: Path
) -> None:
    category, product, name = card_product(shop.out, shop.site)
    staff = browser.new_context(locale="vi-VN", viewport=screen).new_page()
    edit_price(staff, shop.companion, name, price)
    staff.context.close()
    event = delivered_events(shop, tmp_path)
    payloads = json.loads(event.read_text(encoding="utf-8"))
    assert payloads and {p["type"] for p in payloads} == {"product.updated"}  # price, stock

    build(shop.site, shop.companion, shop.out, shop.cache, "--event", str(event))
    shopper = browser.new_context(locale="vi-VN", viewport=screen).new_page()
    shopper.goto(shop.site + "/" + category.relative_to(shop.out).with_suffix("").as_posix())
    card = shopper.locator("li.card").filter(has_text=name)
    expect(card.first.locator(".price-now")).to_have_text(shown(price))
    shopper.goto(shop.site + product)
    expect(shopper.locator("main .price-now").first).to_have_text(shown(price))
    form = shopper.locator("form.add-to-cart")
    expect(form.locator(".cart-status")).to_have_count(1)
    shopper.wait_for_load_state("networkidle")
    form.locator('button[type="submit"]').click()
    expect(form.locator(".cart-status")).to_contain_text("Đã thêm vào giỏ hàng")
    shopper.goto(shop.site + "/gio-hang")
    expect(shopper.locator(".cart-line").first).to_contain_text(shown(price))
    shopper.context.close()
