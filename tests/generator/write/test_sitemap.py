"""sitemap.xml: schema-valid, parseable, exactly the written canonical pages; index past limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from lxml import etree
from usp.objects.sitemap import AbstractSitemap
from usp.tree import sitemap_from_str
from usp.web_client.abstract_client import (
    AbstractWebClient,
    AbstractWebClientResponse,
    LocalWebClientSuccessResponse,
    WebClientErrorResponse,
)

from generator.render.pages import RenderedPage
from generator.write.output import WriteReport
from generator.write.sitemap import SitemapLimits, sitemap_files
from tests.support.fixture_site import SCHEMAS, build_site, cms_plan, write_plan
from tests.support.fixture_store import SITE_URL

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


def written_sitemap_urls(report: WriteReport) -> set[str]:
    return {SITE_URL + p.path for p in report.pages if p.in_sitemap}


class FolderWebClient(AbstractWebClient):
    """Serves the output folder at SITE_URL, so usp follows an index offline."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def set_max_response_data_length(self, max_response_data_length: int | None) -> None:
        pass

    def get(self, url: str) -> AbstractWebClientResponse:
        file = self.root / urlsplit(url).path.lstrip("/")
        if not url.startswith(SITE_URL) or not file.is_file():
            return _Missing(f"no file for {url}", retryable=False)
        return LocalWebClientSuccessResponse(url=url, data=file.read_text())


class _Missing(WebClientErrorResponse):
    pass


def parsed_with_usp(out: Path) -> AbstractSitemap:
    from usp.fetch_parse import SitemapFetcher

    fetcher = SitemapFetcher(
        url=f"{SITE_URL}/sitemap.xml", recursion_level=0, web_client=FolderWebClient(out)
    )
    return fetcher.sitemap()


def page(path: str, *, in_sitemap: bool = True, lastmod: datetime | None = None) -> RenderedPage:
    return RenderedPage(
        path=path, html="x", kind="cms_page", in_sitemap=in_sitemap, lastmod=lastmod
    )


def test_sitemap_validates_against_the_sitemaps_org_schema(tmp_path: Path) -> None:
    build_site(tmp_path / "out")
    sitemap = schema("sitemap.xsd")
    doc = etree.parse(str(tmp_path / "out" / "sitemap.xml"))
    assert sitemap.validate(doc), sitemap.error_log


def test_sitemap_parses_to_exactly_the_written_canonical_pages(tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = build_site(out)
    parsed = sitemap_from_str((out / "sitemap.xml").read_text())
    urls = {p.url for p in parsed.all_pages()}
    assert urls == written_sitemap_urls(report)
    assert f"{SITE_URL}/404" not in urls
    assert f"{SITE_URL}/khuyen-mai-he" not in urls  # canonical elsewhere
    assert f"{SITE_URL}/doi-tra" in urls  # custom path of a url-less page
    for url in urls:
        assert url.isascii() and not url.endswith(".html"), url


def test_locs_are_absolute_and_percent_encoded(tmp_path: Path) -> None:
    build_site(tmp_path / "out")
    doc = etree.parse(str(tmp_path / "out" / "sitemap.xml"))
    locs = doc.xpath("//sm:loc/text()", namespaces=NS)
    assert f"{SITE_URL}/%C3%A1o-thun" in locs
    assert f"{SITE_URL}/qu%E1%BA%A7n-jean" in locs
    assert all(loc.startswith(SITE_URL + "/") for loc in locs)


def test_lastmod_is_a_utc_instant_with_an_offset(tmp_path: Path) -> None:
    build_site(tmp_path / "out")
    doc = etree.parse(str(tmp_path / "out" / "sitemap.xml"))
    url = doc.xpath("//sm:url[sm:loc='https://shop.example.vn/%C3%A1o-thun']", namespaces=NS)[0]
    assert url.findtext("sm:lastmod", namespaces=NS) == "2026-11-01T08:30:00+00:00"
    home = doc.xpath("//sm:url[sm:loc='https://shop.example.vn/']", namespaces=NS)[0]
    assert home.find("sm:lastmod", namespaces=NS) is None


def test_lastmod_in_another_zone_is_written_as_the_same_utc_instant() -> None:
    hanoi = timezone(timedelta(hours=7))
    files = dict(
        sitemap_files([page("/a", lastmod=datetime(2026, 1, 2, 7, 0, tzinfo=hanoi))], SITE_URL)
    )
    assert b"<lastmod>2026-01-02T00:00:00+00:00</lastmod>" in files["sitemap.xml"]


def test_robots_txt_points_to_the_sitemap(tmp_path: Path) -> None:
    build_site(tmp_path / "out")
    robots = (tmp_path / "out" / "robots.txt").read_text()
    assert f"Sitemap: {SITE_URL}/sitemap.xml" in robots.splitlines()
    assert "User-agent: *" in robots


def test_usp_reads_the_sitemap_through_robots_txt(tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = build_site(out)
    from usp.fetch_parse import SitemapFetcher

    robots = SitemapFetcher(
        url=f"{SITE_URL}/robots.txt", recursion_level=0, web_client=FolderWebClient(out)
    ).sitemap()
    assert {p.url for p in robots.all_pages()} == written_sitemap_urls(report)


def test_past_the_url_limit_the_sitemap_becomes_an_index(tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = build_site(out, limits=SitemapLimits(max_urls=5))
    assert report.sitemap_files == (
        "sitemap-1.xml",
        "sitemap-2.xml",
        "sitemap-3.xml",
        "sitemap.xml",
        "robots.txt",
    )
    index = etree.parse(str(out / "sitemap.xml"))
    assert schema("siteindex.xsd").validate(index)
    locs = index.xpath("//sm:sitemap/sm:loc/text()", namespaces=NS)
    assert locs == [f"{SITE_URL}/sitemap-{n}.xml" for n in (1, 2, 3)]
    urlset = schema("sitemap.xsd")
    for n in (1, 2, 3):
        part = etree.parse(str(out / f"sitemap-{n}.xml"))
        assert urlset.validate(part), urlset.error_log
        assert len(part.xpath("//sm:url", namespaces=NS)) <= 5
    assert {p.url for p in parsed_with_usp(out).all_pages()} == written_sitemap_urls(report)


def test_index_lastmod_is_the_latest_of_its_file() -> None:
    pages = [page(f"/p{n}", lastmod=datetime(2026, 1, n, tzinfo=UTC)) for n in range(1, 5)]
    files = dict(sitemap_files(pages, SITE_URL, SitemapLimits(max_urls=2)))
    index = etree.fromstring(files["sitemap.xml"])
    assert index.xpath("//sm:lastmod/text()", namespaces=NS) == [
        "2026-01-02T00:00:00+00:00",
        "2026-01-04T00:00:00+00:00",
    ]


def test_past_the_byte_limit_each_file_stays_within_it() -> None:
    pages = [page(f"/san-pham-{n:03d}") for n in range(40)]
    limit = 1000
    files = dict(sitemap_files(pages, SITE_URL, SitemapLimits(max_bytes=limit)))
    parts = [name for name in files if name.startswith("sitemap-")]
    assert len(parts) > 1
    urlset = schema("sitemap.xsd")
    seen: list[str] = []
    for name in parts:
        assert len(files[name]) <= limit, name
        doc = etree.fromstring(files[name])
        assert urlset.validate(doc)
        seen += doc.xpath("//sm:loc/text()", namespaces=NS)
    assert seen == [f"{SITE_URL}/san-pham-{n:03d}" for n in range(40)]


def test_a_file_exactly_at_the_byte_limit_is_not_split() -> None:
    pages = [page(f"/p{n}") for n in range(10)]
    whole = dict(sitemap_files(pages, SITE_URL))["sitemap.xml"]
    files = dict(sitemap_files(pages, SITE_URL, SitemapLimits(max_bytes=len(whole))))
    assert files["sitemap.xml"] == whole
    split = dict(sitemap_files(pages, SITE_URL, SitemapLimits(max_bytes=len(whole) - 1)))
    assert "sitemap-2.xml" in split


def test_only_pages_marked_for_the_sitemap_are_listed() -> None:
    files = dict(sitemap_files([page("/"), page("/dup", in_sitemap=False)], SITE_URL))
    assert b"/dup" not in files["sitemap.xml"]


def test_no_sitemap_without_urls_and_robots_txt_still_written() -> None:
    files = dict(sitemap_files([page("/404", in_sitemap=False)], SITE_URL))
    assert list(files) == ["robots.txt"]
    assert b"Sitemap:" not in files["robots.txt"]


def test_non_ascii_site_host_is_written_in_idna() -> None:
    files = dict(sitemap_files([page("/")], "https://cửahàng.vn/"))
    host = "cửahàng.vn".encode("idna")
    assert host.startswith(b"xn--")
    assert b"<loc>https://" + host + b"/</loc>" in files["sitemap.xml"]


def test_ampersand_in_a_path_is_escaped_in_xml(tmp_path: Path) -> None:
    write_plan(cms_plan("/", "/a&b"), tmp_path / "out")
    doc = etree.parse(str(tmp_path / "out" / "sitemap.xml"))
    assert doc.xpath("//sm:loc/text()", namespaces=NS) == [f"{SITE_URL}/", f"{SITE_URL}/a&b"]


@pytest.mark.parametrize("site_url", ["shop.example.vn", "ftp://shop.example.vn"])
def test_site_url_must_be_an_http_origin(site_url: str) -> None:
    from generator.errors import WriteError

    with pytest.raises(WriteError, match="origin"):
        sitemap_files([page("/")], site_url)


def test_markup_characters_in_a_loc_are_escaped_and_read_back_as_written() -> None:
    paths = ["/a&b", "/c<d>e", "/s%C3%A1ch", "/đồng-hồ"]
    stamp = datetime(2026, 11, 20, 3, 4, 5, tzinfo=UTC)
    files = dict(sitemap_files([page(p, lastmod=stamp) for p in paths], SITE_URL))
    doc = etree.fromstring(files["sitemap.xml"])
    assert schema("sitemap.xsd").validate(doc.getroottree())
    assert doc.xpath("//sm:loc/text()", namespaces=NS) == [SITE_URL + p for p in paths]
    assert set(doc.xpath("//sm:lastmod/text()", namespaces=NS)) == {"2026-11-20T03:04:05+00:00"}


def test_a_loc_xml_cannot_carry_is_a_clear_error() -> None:
    from generator.errors import WriteError

    with pytest.raises(WriteError, match="XML cannot carry"):
        sitemap_files([page("/bad\x01path")], SITE_URL)
