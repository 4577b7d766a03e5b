"""The demo store, as `storefront build` writes it, passes the audit under --strict: no error,
no warning (no orphan, no page past 4 clicks), and every product page is linked from a listing
(a category, a collection or the all-products listing)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

import lxml.html
import pytest

from generator.audit import Severity, audit_site
from generator.audit.reachability import click_depths
from generator.audit.site import read_pages
from tests.support.demo_build import DEMO_SITE_URL, REPO, build_demo_site

LISTINGS = {"page-category", "page-collection", "page-product-list"}


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_site(tmp_path_factory.getbasetemp())


def _strict_findings(site: Path) -> list[str]:
    report = audit_site(site, now=datetime.now(UTC), site_url=DEMO_SITE_URL)
    assert report.pages > 10 and report.sitemap_urls > 10
    return [
        f"{f.check} {f.where}: {f.message}"
        for f in report.findings
        if f.severity in (Severity.ERROR, Severity.WARNING)
    ]


def _products_not_in_a_listing(site: Path) -> list[str]:
    """Product pages (each its own canonical) no category, collection or all-products page
    links to."""
    products: set[str] = set()
    listed: set[str] = set()
    for file in site.rglob("*.html"):
        if "_assets" in file.parts:
            continue
        doc = lxml.html.document_fromstring(file.read_bytes())
        kind = doc.body.get("class") or ""
        path = "/" + str(file.relative_to(site).with_suffix(""))
        canonical = doc.xpath("//link[@rel='canonical']/@href")
        if kind == "page-product" and unquote(urlsplit(canonical[0]).path) == unquote(path):
            products.add(path)
        elif kind in LISTINGS:
            listed.update(unquote(urlsplit(a.get("href") or "").path) for a in doc.iter("a"))
    assert len(products) > 10
    return sorted(products - listed)


def test_demo_store_passes_the_strict_audit(demo_site: Path) -> None:
    assert _strict_findings(demo_site) == []


def test_every_demo_product_is_linked_from_a_listing(demo_site: Path) -> None:
    assert _products_not_in_a_listing(demo_site) == []


@pytest.mark.slow
def test_the_3000_product_demo_is_reachable_within_4_clicks(tmp_path: Path) -> None:
    out = tmp_path / "output"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("STOREFRONT_")}
    command = [
        sys.executable, "-m", "generator", "build", "--out", str(out),
        "--cache-dir", str(tmp_path / "cache"), "--site-url", DEMO_SITE_URL,
        "--demo-products", "3000", "--xstore", str(tmp_path / "no-xstore.json"),
    ]  # fmt: skip
    result = subprocess.run(
        command, cwd=REPO, env=environ, capture_output=True, text=True, timeout=1800, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert _strict_findings(out) == []
    assert _products_not_in_a_listing(out) == []
    pages = {page.path: page for page in read_pages(out)}
    depths = click_depths(pages, "/", None)
    assert max(depths.values()) <= 4
