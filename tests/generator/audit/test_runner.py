from __future__ import annotations

from pathlib import Path

from generator.audit import Severity
from generator.audit.findings import Finding, error
from generator.audit.runner import collapse_repeats
from tests.generator.audit.fixture_site import (
    NAV,
    PAGES,
    indexed_paths,
    run_audit,
    write,
)


def test_clean_fixture_site_has_no_findings(site: Path) -> None:
    report = run_audit(site)
    assert report.findings == ()
    assert report.pages == len(PAGES)
    assert report.sitemap_urls == len(indexed_paths())
    assert report.exit_code(strict=True) == 0


def test_broken_menu_link_on_every_page_is_one_finding(site: Path) -> None:
    for spec in PAGES.values():
        text = (site / spec[0]).read_text(encoding="utf-8")
        write(site, spec[0], text.replace(NAV, NAV + '<a href="/khuyen-mai">Khuyến mãi</a>'))
    report = run_audit(site)
    assert len(report.findings) == 1
    finding = report.findings[0]
    assert finding.check == "link-broken"
    assert finding.where.endswith(f"and {len(PAGES) - 3} more")


def test_findings_are_sorted_errors_first(site: Path) -> None:
    (site / "robots.txt").unlink()  # a warning
    write(site, "danh-muc/ao.html", "<html><body><p>no head</p></body></html>")  # errors
    report = run_audit(site)
    ranks = [f.severity.rank for f in report.findings]
    assert ranks == sorted(ranks)
    assert report.findings[0].severity is Severity.ERROR
    assert report.findings[-1].severity is Severity.WARNING


def test_collapse_keeps_few_repeats_apart() -> None:
    few = [error("link-broken", f"p{i}.html:3", "link to /x: no page") for i in range(3)]
    assert sorted(collapse_repeats(few), key=lambda f: f.where) == few
    many = [*few, error("link-broken", "p9.html:3", "link to /x: no page")]
    assert collapse_repeats(many) == [
        Finding(
            Severity.ERROR,
            "link-broken",
            "p0.html:3, p1.html:3, p2.html:3 and 1 more",
            "link to /x: no page",
        )
    ]
