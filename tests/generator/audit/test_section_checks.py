from __future__ import annotations

from pathlib import Path

from generator.audit import Severity
from generator.audit.api_sections import ApiSection
from generator.audit.section_checks import check_sections
from tests.generator.audit.fixture_site import run_audit


def test_declared_more_than_emitted_is_information(site: Path) -> None:
    sections = [ApiSection("products", 3, ("/san-pham/ao-thun",))]
    report = run_audit(site, api_sections=sections)
    [finding] = report.findings
    assert (finding.check, finding.severity) == ("sitemap-section-count", Severity.INFO)
    assert finding.message == ("section products: declared 3, emitted 1 (the API serves 1 paths)")
    assert finding.where == "API /sitemap/products"
    assert report.exit_code(strict=True) == 0


def test_served_path_missing_from_the_sitemap_is_a_warning(site: Path) -> None:
    sections = [ApiSection("pages", 2, ("/%C3%A1o-d%C3%A0i", "/gioi-thieu"))]
    report = run_audit(site, api_sections=sections)
    assert report.checks() == {"sitemap-section-count", "sitemap-section-missing"}
    [missing] = report.of_severity(Severity.WARNING)
    assert missing.message == ("section pages: 1 served paths are not in the sitemap: /gioi-thieu")


def test_matching_section_has_no_finding(site: Path) -> None:
    sections = [ApiSection("articles", 1, ("/bai-viet/chao-mung",))]
    assert run_audit(site, api_sections=sections).findings == ()


def test_many_missing_paths_are_named_five_at_most() -> None:
    paths = tuple(f"/p{i}" for i in range(8))
    [count, missing] = check_sections([ApiSection("products", 8, paths)], frozenset())
    assert count.message.startswith("section products: declared 8, emitted 0")
    assert missing.message.endswith("/p0, /p1, /p2, /p3, /p4 and 3 more")
