"""The demo store's pages under the policy its build wrote: nothing they load is refused.

Chromium reports each refusal as a `securitypolicyviolation` event; a script added before any
page script gathers them. A control page first shows that a refusal is seen at all."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree
from playwright.sync_api import Page

from generator.write.host_files import read_policy

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
    policy = read_policy(demo_output)
    assert policy is not None and "'unsafe-inline'" not in policy
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
        assert response.headers["content-security-policy"] == policy, path
        found = _violations(page, origin + path)
        if found:
            seen[path] = found
    assert seen == {}
