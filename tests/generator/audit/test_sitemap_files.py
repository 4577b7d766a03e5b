"""Reading sitemap.xml and its index: schema, limits, index rules."""

from __future__ import annotations

import gzip
from pathlib import Path

from generator.audit.sitemap_files import MAX_URLS, SitemapSchemas, read_sitemaps
from tests.generator.audit.fixture_site import (
    ORIGIN,
    indexed_paths,
    run_audit,
    sitemap_xml,
    url,
    write,
)

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _index(*locs: str) -> str:
    entries = "".join(f"  <sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<sitemapindex xmlns="{NS}">\n{entries}</sitemapindex>\n'
    )


def test_index_of_numbered_files_is_read_and_passes(site: Path) -> None:
    locs = [url(p) for p in indexed_paths()]
    write(site, "sitemap-1.xml", sitemap_xml(locs[:3]))
    write(site, "sitemap-2.xml", sitemap_xml(locs[3:]))
    write(site, "sitemap.xml", _index(f"{ORIGIN}/sitemap-1.xml", f"{ORIGIN}/sitemap-2.xml"))
    report = run_audit(site)
    assert report.findings == ()
    assert report.sitemap_urls == len(locs)


def test_gzipped_numbered_file_is_read(site: Path) -> None:
    locs = [url(p) for p in indexed_paths()]
    (site / "sitemap-1.xml.gz").write_bytes(gzip.compress(sitemap_xml(locs).encode()))
    write(site, "sitemap.xml", _index(f"{ORIGIN}/sitemap-1.xml.gz"))
    report = run_audit(site)
    assert report.findings == ()
    assert report.sitemap_urls == len(locs)


def test_index_inside_an_index_is_an_error(site: Path) -> None:
    locs = [url(p) for p in indexed_paths()]
    write(site, "sitemap-1.xml", sitemap_xml(locs))
    write(site, "sitemap-nested.xml", _index(f"{ORIGIN}/sitemap-1.xml"))
    write(site, "sitemap.xml", _index(f"{ORIGIN}/sitemap-1.xml", f"{ORIGIN}/sitemap-nested.xml"))
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "sitemap-index"
    assert "sitemap-nested.xml is itself a sitemap index" in finding.message


def test_index_entry_without_its_file_is_an_error(site: Path) -> None:
    locs = [url(p) for p in indexed_paths()]
    write(site, "sitemap-1.xml", sitemap_xml(locs))
    write(site, "sitemap.xml", _index(f"{ORIGIN}/sitemap-1.xml", f"{ORIGIN}/sitemap-2.xml"))
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.where) == ("sitemap-index", "sitemap.xml:4")


def test_element_outside_the_protocol_fails_the_schema(site: Path) -> None:
    text = (site / "sitemap.xml").read_text(encoding="utf-8")
    write(site, "sitemap.xml", text.replace("</url>", "<priority>2.0</priority></url>", 1))
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "sitemap-schema"
    assert finding.where == "sitemap.xml:3"
    assert "priority" in finding.message


def test_empty_urlset_fails_the_schema(site: Path) -> None:
    write(site, "sitemap.xml", f'<urlset xmlns="{NS}"></urlset>\n')
    assert "sitemap-schema" in run_audit(site).checks()


def test_root_element_of_another_vocabulary_is_an_error(site: Path) -> None:
    write(site, "sitemap.xml", "<rss><channel/></rss>\n")
    report = run_audit(site)
    assert "sitemap-schema" in report.checks()
    assert "not a sitemaps.org urlset" in next(
        f.message for f in report.findings if f.check == "sitemap-schema"
    )


def test_malformed_xml_is_an_error(site: Path) -> None:
    write(site, "sitemap.xml", f'<urlset xmlns="{NS}"><url><loc>{ORIGIN}/</loc></urlset>')
    assert "sitemap-xml" in run_audit(site).checks()


def test_entity_expansion_is_not_performed(tmp_path: Path) -> None:
    write(
        tmp_path,
        "sitemap.xml",
        '<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY x SYSTEM "file:///etc/hostname">]>\n'
        f'<urlset xmlns="{NS}"><url><loc>https://a.example/&x;</loc></url></urlset>\n',
    )
    read = read_sitemaps(tmp_path, SitemapSchemas.load())
    assert read.urls == []
    assert [f.message for f in read.findings] == ["a sitemap must not have a DOCTYPE"]


def test_more_than_50000_urls_in_one_file_is_an_error(tmp_path: Path) -> None:
    entries = f"<url><loc>{ORIGIN}/p</loc></url>\n" * (MAX_URLS + 1)
    write(tmp_path, "sitemap.xml", f'<urlset xmlns="{NS}">\n{entries}</urlset>\n')
    read = read_sitemaps(tmp_path, SitemapSchemas.load())
    assert [f.check for f in read.findings] == ["sitemap-limits"]
    assert "50,001 urls" in read.findings[0].message


def test_exactly_50000_urls_is_allowed(tmp_path: Path) -> None:
    entries = f"<url><loc>{ORIGIN}/p</loc></url>\n" * MAX_URLS
    write(tmp_path, "sitemap.xml", f'<urlset xmlns="{NS}">\n{entries}</urlset>\n')
    read = read_sitemaps(tmp_path, SitemapSchemas.load())
    assert read.findings == []
    assert len(read.urls) == MAX_URLS


def test_file_over_50_mb_is_an_error(tmp_path: Path) -> None:
    padding = " " * (50 * 1024 * 1024)
    write(
        tmp_path,
        "sitemap.xml",
        f'<urlset xmlns="{NS}"><url><loc>{ORIGIN}/p</loc></url>{padding}</urlset>\n',
    )
    read = read_sitemaps(tmp_path, SitemapSchemas.load())
    assert [f.check for f in read.findings] == ["sitemap-limits"]
    assert "50 MB" in read.findings[0].message
