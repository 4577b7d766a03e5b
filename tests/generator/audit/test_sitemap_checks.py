"""One planted sitemap defect per test; each must produce exactly its own check."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from generator.audit import Severity
from generator.audit.sitemap_checks import lastmod_problem
from tests.generator.audit.fixture_site import (
    NOW,
    ORIGIN,
    indexed_paths,
    page_html,
    run_audit,
    sitemap_xml,
    url,
    write,
)


def _with_locs(site: Path, locs: list[str], lastmod: str | None = None) -> None:
    write(site, "sitemap.xml", sitemap_xml(locs, lastmod=lastmod))


def _clean_locs() -> list[str]:
    return [url(p) for p in indexed_paths()]


def test_missing_sitemap_is_an_error(site: Path) -> None:
    (site / "sitemap.xml").unlink()
    report = run_audit(site)
    assert report.checks() == {"sitemap-missing"}
    assert report.exit_code(strict=False) == 1


def test_relative_loc_is_an_error(site: Path) -> None:
    _with_locs(site, [*_clean_locs()[1:], "/san-pham/ao-thun-relative-path"])
    report = run_audit(site)
    assert "sitemap-loc" in report.checks()
    assert any("not an absolute" in f.message for f in report.findings)


def test_loc_on_another_host_is_an_error(site: Path) -> None:
    locs = _clean_locs()
    locs[1] = locs[1].replace(ORIGIN, "https://other.example.vn")
    _with_locs(site, locs)
    report = run_audit(site)
    # The page's canonical still names the site's own url, which is right: only the loc is wrong.
    assert report.checks() == {"sitemap-loc", "sitemap-non-canonical"}
    [finding] = [f for f in report.findings if f.check == "sitemap-loc"]
    assert f"not on the site {ORIGIN}" in finding.message


def test_site_url_flag_overrides_the_sitemap_origin(site: Path) -> None:
    report = run_audit(site, site_url="https://www.shop.example.vn")
    # A site built for another url: one finding per check, naming the other origin, not one
    # per loc and per page.
    by_check = {f.check: f for f in report.findings}
    assert len(report.findings) == len(by_check) and {"sitemap-loc", "page-canonical"} <= set(
        by_check
    )
    other = f"is on {ORIGIN}, not on the site https://www.shop.example.vn"
    assert other in by_check["sitemap-loc"].message and "more" in by_check["sitemap-loc"].where
    assert other in by_check["page-canonical"].message


def test_loc_not_percent_encoded_is_an_error(site: Path) -> None:
    locs = [loc for loc in _clean_locs() if "%C3" not in loc] + [f"{ORIGIN}/áo-dài"]
    _with_locs(site, locs)
    report = run_audit(site)
    assert report.checks() == {"sitemap-loc"}
    assert "percent-encoded" in report.findings[0].message


def test_duplicate_loc_is_an_error(site: Path) -> None:
    locs = _clean_locs()
    _with_locs(site, [*locs, locs[2]])
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "sitemap-duplicate"
    assert finding.where == f"sitemap.xml:{len(locs) + 3}"
    assert "first at sitemap.xml:5" in finding.message


def test_loc_without_a_written_page_is_an_error(site: Path) -> None:
    _with_locs(site, [*_clean_locs(), f"{ORIGIN}/san-pham/ao-khoac"])
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "sitemap-not-served"
    assert "/san-pham/ao-khoac" in finding.message


def test_loc_with_html_suffix_is_not_served(site: Path) -> None:
    locs = [loc if not loc.endswith("/bai-viet") else loc + ".html" for loc in _clean_locs()]
    _with_locs(site, locs)
    report = run_audit(site)
    assert {f.check for f in report.findings} == {"sitemap-not-served", "sitemap-missing-page"}
    assert any("without .html" in f.message for f in report.findings)


def test_not_found_page_listed_is_an_error(site: Path) -> None:
    _with_locs(site, [*_clean_locs(), f"{ORIGIN}/404"])
    assert run_audit(site).checks() == {"sitemap-not-served"}


def test_noindex_page_listed_is_an_error(site: Path) -> None:
    _with_locs(site, [*_clean_locs(), url("/gio-hang")])
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "sitemap-noindex"
    assert "gio-hang.html" in finding.message


def test_non_canonical_page_listed_is_an_error(site: Path) -> None:
    write(site, "bai-viet.html", page_html("/bai-viet", canonical=url("/bai-viet/chao-mung")))
    report = run_audit(site)
    # The menu's links to the duplicate are information of their own (link-to-duplicate).
    assert report.checks() == {"sitemap-non-canonical", "link-to-duplicate"}
    [listed] = [f for f in report.findings if f.check == "sitemap-non-canonical"]
    assert url("/bai-viet/chao-mung") in listed.message


@pytest.mark.parametrize("lastmod", ["15/01/2026", "2026-13-01", "2026-02-30", "yesterday"])
def test_invalid_lastmod_is_an_error(site: Path, lastmod: str) -> None:
    _with_locs(site, _clean_locs(), lastmod=lastmod)
    report = run_audit(site)
    assert "sitemap-lastmod" in report.checks()
    assert report.count(Severity.ERROR) > 0


def test_lastmod_time_without_zone_is_an_error(site: Path) -> None:
    _with_locs(site, _clean_locs(), lastmod="2026-01-15T08:30:00")
    report = run_audit(site)
    [finding] = report.findings  # one problem on every url: reported once
    assert finding.check == "sitemap-lastmod"
    assert "time zone" in finding.message
    more = len(_clean_locs()) - 3
    assert finding.where == f"sitemap.xml:3, sitemap.xml:4, sitemap.xml:5 and {more} more"


def test_future_lastmod_is_a_warning(site: Path) -> None:
    _with_locs(site, _clean_locs(), lastmod="2026-03-02T12:00:00+00:00")
    report = run_audit(site)
    assert report.checks() == {"sitemap-lastmod"}
    assert report.count(Severity.WARNING) == 1
    assert report.count(Severity.ERROR) == 0
    assert report.exit_code(strict=False) == 0
    assert report.exit_code(strict=True) == 1


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2026-03-01", None),
        ("2026-03", None),
        ("2026", None),
        ("2026-03-01T12:04:59+00:00", None),  # inside the clock-skew allowance
        ("2026-03-01T19:00+07:00", None),
        ("2026-03-01T12:00:00.123Z", None),
        ("2026-03-02", None),  # already 2 March east of UTC
        ("2026-03-03", "in the future"),
        ("2026-03-01T12:10:00Z", "in the future"),
        ("2026-03-01T12:00:00", "time zone"),
        ("2026-03-01 12:00:00Z", "not a W3C datetime"),
        ("2026-02-29", "not a real date"),
    ],
)
def test_lastmod_rules(value: str, problem: str | None) -> None:
    found = lastmod_problem(value, NOW)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_page_missing_from_sitemap_is_a_warning(site: Path) -> None:
    _with_locs(site, [loc for loc in _clean_locs() if not loc.endswith("/danh-muc/ao")])
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity) == ("sitemap-missing-page", Severity.WARNING)
    assert finding.where == "danh-muc/ao.html"


def test_page_canonical_to_another_page_is_not_expected_in_sitemap(site: Path) -> None:
    write(site, "bai-viet.html", page_html("/bai-viet", canonical=url("/bai-viet/chao-mung")))
    _with_locs(site, [loc for loc in _clean_locs() if not loc.endswith("/bai-viet")])
    assert run_audit(site).checks() == {"link-to-duplicate"}  # information, not a fault


def test_missing_robots_txt_is_a_warning(site: Path) -> None:
    (site / "robots.txt").unlink()
    assert run_audit(site).checks() == {"robots-txt"}


def test_robots_txt_without_sitemap_line_is_a_warning(site: Path) -> None:
    write(site, "robots.txt", "User-agent: *\nAllow: /\n")
    report = run_audit(site)
    assert report.checks() == {"robots-txt"}
    assert "no Sitemap" in report.findings[0].message


def test_robots_txt_naming_another_sitemap_is_a_warning(site: Path) -> None:
    write(site, "robots.txt", "User-agent: *\nSitemap: https://old.example.vn/sitemap.xml\n")
    report = run_audit(site)
    assert report.checks() == {"robots-txt"}
    assert f"{ORIGIN}/sitemap.xml" in report.findings[0].message


def test_robots_txt_blocking_everything_is_an_error(site: Path) -> None:
    write(site, "robots.txt", f"User-agent: *\nDisallow: /\n\nSitemap: {ORIGIN}/sitemap.xml\n")
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity, finding.where) == (
        "robots-txt",
        Severity.ERROR,
        "robots.txt:2",
    )


def test_now_must_be_aware() -> None:
    assert lastmod_problem("2026-03-01", datetime(2026, 3, 1, tzinfo=UTC)) is None
