"""A site published under a path prefix (https://shop.example.vn/cua-hang): links, assets,
merchant HTML, robots.txt and the islands' base carry it; the audit and `storefront serve`
work under it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx
import lxml.html
import pytest

from generator.audit.findings import Severity
from generator.audit.runner import audit_site
from generator.commands.serve import _built_base
from generator.plan.site_plan import plan_site
from generator.serve.app import mounted, site_app
from tests.support.fixture_site import write_plan
from tests.support.fixture_store import small_catalog

PREFIXED = "https://shop.example.vn/cua-hang"
AFTER_THE_FIXTURE = datetime(2027, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("prefixed") / "output"
    write_plan(plan_site(small_catalog(), PREFIXED), out)
    return out


def _doc(site: Path, file: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring((site / file).read_bytes())


def test_links_assets_and_the_islands_base_carry_the_prefix(site: Path) -> None:
    doc = _doc(site, "áo-thun.html")
    hrefs = [a.get("href") for a in doc.iter("a")]
    internal = [h for h in hrefs if h and h.startswith("/")]
    assert internal and all(h.startswith("/cua-hang/") for h in internal)
    assert "/cua-hang/" in hrefs and "/cua-hang/gio-hang" in hrefs
    sources = [s.get("src") for s in doc.iter("script") if s.get("src")]
    assert sources and all(s.startswith("/cua-hang/_assets/") for s in sources)
    assert doc.get("data-base") == "/cua-hang"
    canonicals = [link.get("href") for link in doc.iter("link") if link.get("rel") == "canonical"]
    assert canonicals == [PREFIXED + "/%C3%A1o-thun"]


def test_root_absolute_links_in_merchant_html_gain_the_prefix(site: Path) -> None:
    prose = _doc(site, "áo-thun.html").find_class("prose")[0]
    assert [a.get("href") for a in prose.iter("a")] == ["/cua-hang/gioi-thieu"]


def test_robots_txt_and_sitemap_live_under_the_prefix(site: Path) -> None:
    robots = (site / "robots.txt").read_text()
    assert "Allow: /cua-hang/" in robots
    assert f"Sitemap: {PREFIXED}/sitemap.xml" in robots
    assert f"<loc>{PREFIXED}/</loc>" in (site / "sitemap.xml").read_text()


def test_the_audit_finds_no_error_under_the_prefix(site: Path) -> None:
    for site_url in (PREFIXED, None):  # given, or read from the sitemap
        report = audit_site(site, now=AFTER_THE_FIXTURE, site_url=site_url)
        assert report.of_severity(Severity.ERROR) == ()
        assert not [f for f in report.findings if f.check == "robots-txt"]


def test_the_audit_reports_a_link_without_the_prefix(site: Path, tmp_path: Path) -> None:
    copy = tmp_path / "output"
    write_plan(plan_site(small_catalog(), PREFIXED), copy)
    page = copy / "gioi-thieu.html"
    page.write_text(page.read_text().replace('href="/cua-hang/"', 'href="/"', 1))
    report = audit_site(copy, now=AFTER_THE_FIXTURE, site_url=PREFIXED)
    broken = [f for f in report.findings if f.check == "link-broken"]
    assert broken and "gioi-thieu.html" in broken[0].where


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_serve_answers_under_the_prefix_only(site: Path) -> None:
    app = mounted(site_app(site), "/cua-hang")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        home = await client.get("/cua-hang/")
        page = await client.get("/cua-hang/%C3%A1o-thun")
        bare = await client.get("/cua-hang")
        outside = await client.get("/%C3%A1o-thun")
    assert home.status_code == page.status_code == 200
    assert page.content == (site / "áo-thun.html").read_bytes()
    assert (bare.status_code, bare.headers["location"]) == (301, "/cua-hang/")
    assert outside.status_code == 404


def test_serve_finds_the_prefix_the_output_was_built_with(site: Path, tmp_path: Path) -> None:
    assert _built_base(site) == "/cua-hang"
    plain = tmp_path / "plain"
    write_plan(plan_site(small_catalog(), "https://shop.example.vn"), plain)
    assert _built_base(plain) == ""
