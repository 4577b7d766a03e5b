"""The demo store's pages under the policies its build wrote: nothing they load is refused, and
a product description's scripts do not run on the checkout page.

Chromium reports each refusal as a `securitypolicyviolation` event; a script added before any
page script gathers them. A control page first shows that a refusal is seen at all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree
from playwright.sync_api import Page, Route

from generator.serve.static import serving
from generator.write.host_files import read_policies
from tests.generator.write.test_csp_pages import EVIL, IN_SVG, INLINE, build

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
GATHER = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__violations.push(e.effectiveDirective + ' ' + (e.blockedURI || 'inline'));
});
"""
#: The pages no sitemap lists: the islands' own pages, a search and the not-found page.
SHELLS = ["/gio-hang", "/thanh-toan", "/thanh-toan/ket-qua", "/tai-khoan", "/tim-kiem?q=ao"]


def _pages(out: Path) -> list[str]:
    """The home page and the first sitemap url under each first path segment."""
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    first: dict[str, str] = {}
    for loc in root.iter(f"{SITEMAP_NS}loc"):
        path = urlsplit(loc.text or "").path
        first.setdefault(path.split("/")[1] if path.count("/") > 1 else path, path)
    return sorted(set(first.values())) + SHELLS + ["/khong-co-trang-nay"]


def _violations(page: Page, url: str) -> list[str]:
    page.goto(url, wait_until="networkidle")
    return list(page.evaluate("window.__violations"))


def test_demo_pages_load_with_no_policy_violation(
    page: Page, origin: str, demo_output: Path
) -> None:
    policies = read_policies(demo_output)
    assert policies is not None and "'unsafe-inline'" not in policies.site
    page.add_init_script(GATHER)
    # Control: an inline script the policy does not name is refused, and the refusal is seen.
    page.goto(f"{origin}/khong-co-trang-nay", wait_until="networkidle")
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.ran = 1';"
        " document.head.append(s); }"
    )
    page.wait_for_function("window.__violations.length > 0")
    assert page.evaluate("window.ran") is None

    pages = _pages(demo_output)
    assert len(pages) > 8
    seen: dict[str, list[str]] = {}
    for path in pages:
        response = page.request.get(origin + path)
        served = policies.for_path(urlsplit(origin + path).path)
        assert response.headers["content-security-policy"] == served, path
        found = _violations(page, origin + path)
        if found:
            seen[path] = found
    assert seen == {}


INJECT = """([inline, inSvg, evil]) => {
  for (const text of [inline, inSvg]) {
    const s = document.createElement('script'); s.textContent = text; document.head.append(s);
  }
  for (const src of [evil, '/probe.js']) {
    const s = document.createElement('script'); s.src = src; document.head.append(s);
  }
}"""


def test_a_product_descriptions_scripts_do_not_run_on_checkout(page: Page, tmp_path: Path) -> None:
    """The description's three scripts, put into the checkout page as an injection would:
    none runs, while a script of the site's own origin put there the same way does."""
    out, product = build(tmp_path)

    def script(body: str) -> Callable[[Route], None]:
        return lambda route: route.fulfill(body=body, content_type="text/javascript")

    page.route(f"{EVIL}/x.js", script("window.ranEvil = 1"))
    page.route("**/probe.js", script("window.ranProbe = 1"))
    page.add_init_script(GATHER)
    with serving(out) as base:
        page.goto(f"{base}/{product.removesuffix('.html')}", wait_until="networkidle")
        # The description's own scripts: not allowed on its page either (no theme setting).
        assert page.evaluate("[window.ranInline, window.ranSvg, window.ranEvil]") == [None] * 3
        page.goto(f"{base}/thanh-toan", wait_until="networkidle")
        page.evaluate(INJECT, [INLINE, IN_SVG, f"{EVIL}/x.js"])
        # Functions, not expressions: Playwright evaluates an expression with eval, which the
        # policy refuses too.
        page.wait_for_function("() => window.ranProbe === 1")
        page.wait_for_function("() => window.__violations.length >= 3")
        ran = page.evaluate("[window.ranInline, window.ranSvg, window.ranEvil]")
        violations = page.evaluate("window.__violations")
    assert ran == [None, None, None]
    # Each refusal is reported once per policy refusing it (the header's and the <meta>'s).
    assert set(violations) == {"script-src-elem inline", f"script-src-elem {EVIL}/x.js"}
