"""The sale benchmark's recording: what a real view of each page type sends to /session/*.

Debian's Chromium (Playwright, launched as the browser tests launch it) opens the demo store
behind nginx, one fresh visitor per page: home, a category, a collection, a product, an article
and a CMS page, each until its network is idle and the companion's request log has stopped
growing. Then the purchase as the static-host browser test makes it: the product added to the
cart, the cart page with the coupon GIAM10 applied, the checkout filled in and a COD order
placed. Every request to /session/* is kept in order (method, path and query, body, whether it
carried an Idempotency-Key, its answer), and what reached the companion meanwhile is counted.
Nothing here knows which requests the islands make: the replay sends what was recorded.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from benchmarks.sale_stack import api_lines

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
#: The page types recorded, by the class the theme puts on the page's body.
PAGE_TYPES = ("home", "category", "collection", "product", "article", "cms-page")
COUPON = "GIAM10"
#: Activity calls (counted apart from what showing and buying need), as API paths.
ACTIVITY = (
    r"analytics/entity-view",
    r"recommendations/view",
    r"customer/product-views",
    r"banners/[^/]+/click",
    r"storefront-errors",
)
_ACTIVITY = re.compile(r"^/(?:session/api/|public/v1/)?(?:" + "|".join(ACTIVITY) + r")/?(?:\?|$)")
#: Seconds the companion's request log must stay still before a view counts as finished (the
#: companion writes its lines within a second; queued activity calls go out later).
QUIET_SECONDS = 2.5
QUIET_LIMIT = 30.0

Call = dict[str, Any]


def is_activity(path: str) -> bool:
    """Whether a /session/api/... (or /public/v1/...) path is an activity call."""
    return bool(_ACTIVITY.match(path))


def page_of_each_type(out: Path) -> dict[str, list[str]]:
    """Paths of the built pages by type (the body's ``page-<type>`` class), sorted."""
    found: dict[str, list[str]] = {kind: [] for kind in PAGE_TYPES}
    for file in sorted(out.rglob("*.html")):
        head = file.read_text(encoding="utf-8", errors="replace")[:20_000]
        match = re.search(r'<body class="page-([a-z-]+)"', head)
        if match and match.group(1) in found:
            path = "/" + file.relative_to(out).with_suffix("").as_posix()
            found[match.group(1)].append("/" if path == "/index" else path)
    return found


def entity_id(out: Path, path: str) -> str | None:
    file = out / ("index.html" if path == "/" else path.lstrip("/") + ".html")
    match = re.search(r'data-entity-id="(\d+)"', file.read_text(encoding="utf-8")[:20_000])
    return match.group(1) if match else None


class Recorder:
    """The /session/* requests of one page, in the order the browser sent them."""

    def __init__(self, page: Any) -> None:
        self.requests: list[Any] = []
        self.finished: set[int] = set()
        page.on("request", self._seen)
        page.on("requestfinished", lambda request: self.finished.add(id(request)))

    def _seen(self, request: Any) -> None:
        if "/session/" in request.url:
            self.requests.append(request)

    def take(self) -> list[Call]:
        """The calls so far, with their answers; then forgets them."""
        calls = [self._call(request) for request in self.requests]
        self.requests = []
        return calls

    def _call(self, request: Any) -> Call:
        path = re.sub(r"^https?://[^/]+", "", request.url)
        headers = {k.lower(): v for k, v in request.headers.items()}
        call: Call = {
            "method": request.method,
            "path": path,
            "body": request.post_data,
            "idempotent": "idempotency-key" in headers,
            "activity": is_activity(path),
            "status": 0,
            "answer": None,
        }
        response = request.response() if id(request) in self.finished else None
        if response is not None:
            call["status"] = response.status
            try:
                call["answer"] = json.loads(response.body())
            except Exception:  # no body kept (a beacon), or not JSON
                call["answer"] = None
        return call


def settle(api_log: Path, seen: int) -> int:
    """Wait until the companion's request log stops growing; how many lines it holds."""
    deadline = time.monotonic() + QUIET_LIMIT
    count, still_since = seen, time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = len(api_lines(api_log))
        if now != count:
            count, still_since = now, time.monotonic()
        elif time.monotonic() - still_since >= QUIET_SECONDS:
            break
    return count


def _api_counts(api_log: Path, since: int, until: int) -> dict[str, int]:
    lines = api_lines(api_log)[since:until]
    activity = sum(1 for line in lines if is_activity(str(line.get("path", ""))))
    return {"showing": len(lines) - activity, "activity": activity}


def record(out: Path, site: str, api_log: Path) -> dict[str, Any]:
    """Each page type's calls and the purchase's, measured in Chromium on ``site``."""
    from playwright.sync_api import expect, sync_playwright

    candidates = page_of_each_type(out)
    recording: dict[str, Any] = {"pages": {}, "purchase": None}
    seen = settle(api_log, 0)
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for kind in PAGE_TYPES:
                if not candidates[kind]:
                    continue
                path = candidates[kind][0]
                if kind == "product":
                    path = _buyable(browser, site, candidates[kind])
                    seen = settle(api_log, seen)
                context = browser.new_context(locale="vi-VN")
                page = context.new_page()
                recorder = Recorder(page)
                page.goto(site + path)
                page.wait_for_load_state("networkidle")
                calls = recorder.take()
                context.close()
                now = settle(api_log, seen)
                recording["pages"][kind] = {
                    "path": path,
                    "entity_id": entity_id(out, path),
                    "calls": calls,
                    "api": _api_counts(api_log, seen, now),
                }
                seen = now
            product = recording["pages"]["product"]["path"]
            recording["purchase"] = _purchase(browser, site, product, api_log, expect)
        finally:
            browser.close()
    return recording


def _buyable(browser: Any, site: str, paths: list[str]) -> str:
    """The first product page whose add-to-cart button is enabled once its island is live."""
    context = browser.new_context(locale="vi-VN")
    try:
        page = context.new_page()
        for path in paths[:40]:
            page.goto(site + path)
            page.wait_for_load_state("networkidle")
            button = page.locator('form.add-to-cart button[type="submit"]')
            if button.count() == 1 and button.is_enabled():
                return path
    finally:
        context.close()
    raise SystemExit("bench: no product page of the demo store can be bought")


def _purchase(browser: Any, site: str, product: str, api_log: Path, expect: Any) -> dict[str, Any]:
    """Add to cart, cart page and coupon, checkout and a COD order: the calls from the click
    on the add button to the placed order (the product page's own view left out)."""
    context = browser.new_context(locale="vi-VN")
    context.set_default_timeout(30_000)
    page = context.new_page()
    recorder = Recorder(page)
    try:
        page.goto(site + product)
        page.wait_for_load_state("networkidle")
        form = page.locator("form.add-to-cart")
        variant = form.locator('input[name="variant_id"]').input_value()
        recorder.take()
        seen = settle(api_log, len(api_lines(api_log)))
        started = time.monotonic()
        form.locator('button[type="submit"]').click()
        expect(form.locator(".cart-status")).to_contain_text("Đã thêm vào giỏ hàng")
        page.wait_for_load_state("networkidle")
        calls = recorder.take()
        token = {c["name"]: c["value"] for c in context.cookies()}.get("service_cart")
        page.goto(site + "/gio-hang")
        page.locator("#coupon-code").fill(COUPON)
        page.locator("form.coupon button").click()
        expect(page.locator(".coupon-ok")).to_contain_text(COUPON)
        page.wait_for_load_state("networkidle")
        calls += recorder.take()
        page.goto(site + "/thanh-toan")
        checkout = page.locator("form.checkout")
        expect(checkout.locator("button.place-order")).to_be_enabled()
        checkout.locator("#co-name").fill("Nguyễn Văn An")
        checkout.locator("#co-phone").fill("0901234567")
        checkout.locator("#co-email").fill("an@example.vn")
        checkout.locator("#co-city").select_option(index=1)
        expect(checkout.locator("#co-ward option")).not_to_have_count(1)
        checkout.locator("#co-ward").select_option(index=1)
        checkout.locator("#co-street").fill("12 Lê Lợi")
        checkout.locator('input[name="payment"][value="cod"]').check()
        checkout.locator('button[type="submit"]').click()
        expect(page.locator(".order-done")).to_be_visible()
        page.wait_for_load_state("networkidle")
        calls += recorder.take()
        seconds = time.monotonic() - started
    finally:
        context.close()
    now = settle(api_log, seen)
    return {
        "product": product,
        "variant_id": variant,
        "cart_token": token,
        "calls": calls,
        "browser_seconds": round(seconds, 1),
        "api": _api_counts(api_log, seen, now),
    }
