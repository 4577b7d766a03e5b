"""One planted page defect per test."""

from __future__ import annotations

from pathlib import Path

from generator.audit import Severity
from tests.generator.audit.fixture_site import ORIGIN, page_html, run_audit, url, write


def _plant(site: Path, file: str, path: str, **changes: object) -> None:
    write(site, file, page_html(path, **changes))  # type: ignore[arg-type]


def test_missing_title_is_an_error(site: Path) -> None:
    _plant(site, "danh-muc/ao.html", "/danh-muc/ao", title=None)
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity, finding.where) == (
        "page-title",
        Severity.ERROR,
        "danh-muc/ao.html",
    )


def test_blank_title_is_an_error(site: Path) -> None:
    _plant(site, "danh-muc/ao.html", "/danh-muc/ao", title="  ")
    assert run_audit(site).checks() == {"page-title"}


def test_missing_meta_description_is_a_warning(site: Path) -> None:
    _plant(site, "danh-muc/ao.html", "/danh-muc/ao", description=None)
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity) == ("page-description", Severity.WARNING)


def test_noindex_page_needs_no_description(site: Path) -> None:
    assert not (site / "gio-hang.html").read_text(encoding="utf-8").count('name="description"')
    assert run_audit(site).findings == ()


def test_duplicate_titles_are_reported_once_naming_the_pages(site: Path) -> None:
    _plant(site, "danh-muc/ao.html", "/danh-muc/ao", title="Cửa hàng mẫu")
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "duplicate-title"
    assert "2 pages share the title 'Cửa hàng mẫu'" in finding.message
    assert "/danh-muc/ao" in finding.message


def test_duplicate_descriptions_are_a_warning(site: Path) -> None:
    _plant(site, "bai-viet.html", "/bai-viet", description="Thời trang cotton cho mọi nhà.")
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.severity) == ("duplicate-description", Severity.WARNING)


def test_title_shared_with_a_noindex_page_is_not_a_duplicate(site: Path) -> None:
    _plant(site, "gio-hang.html", "/gio-hang", title="Cửa hàng mẫu")
    assert run_audit(site).findings == ()


def test_missing_canonical_is_an_error(site: Path) -> None:
    _plant(site, "bai-viet.html", "/bai-viet", canonical=None)
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "page-canonical"
    assert 'no rel="canonical"' in finding.message


def test_two_canonicals_are_an_error(site: Path) -> None:
    extra = f'<link rel="canonical" href="{url("/bai-viet")}?p=1">'
    _plant(site, "bai-viet.html", "/bai-viet", head_extra=extra)
    report = run_audit(site)
    assert report.checks() == {"page-canonical"}
    assert "2 canonicals" in report.findings[0].message


def test_relative_canonical_is_an_error(site: Path) -> None:
    _plant(site, "bai-viet.html", "/bai-viet", canonical="/bai-viet")
    report = run_audit(site)
    assert report.checks() == {"page-canonical"}
    assert "not an absolute" in report.findings[0].message


def test_canonical_on_another_host_is_an_error(site: Path) -> None:
    _plant(site, "bai-viet.html", "/bai-viet", canonical="https://other.example.vn/bai-viet")
    report = run_audit(site)
    assert "page-canonical" in report.checks()
    assert any(f"not on the site {ORIGIN}" in f.message for f in report.findings)


def test_canonical_to_a_page_not_written_is_an_error(site: Path) -> None:
    _plant(site, "bai-viet.html", "/bai-viet", canonical=url("/tin-tuc"))
    report = run_audit(site)
    assert "page-canonical" in report.checks()
    assert any("points to no written page" in f.message for f in report.findings)


def test_canonical_to_the_home_page_from_a_content_page_is_an_error(site: Path) -> None:
    _plant(site, "danh-muc/ao.html", "/danh-muc/ao", canonical=f"{ORIGIN}/")
    report = run_audit(site)
    assert "page-canonical" in report.checks()
    assert any("home page as its canonical" in f.message for f in report.findings)


def test_missing_lang_is_an_error(site: Path) -> None:
    _plant(site, "áo-dài.html", "/áo-dài", lang=None)
    report = run_audit(site)
    [finding] = report.findings
    assert (finding.check, finding.where) == ("page-lang", "áo-dài.html")


def test_image_without_alt_is_an_error_with_its_line(site: Path) -> None:
    _plant(site, "áo-dài.html", "/áo-dài", body='<p>Mẫu mới</p>\n<img src="/_assets/ao-thun.svg">')
    report = run_audit(site)
    [finding] = report.findings
    assert finding.check == "page-img-alt"
    lines = (site / "áo-dài.html").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, start=1) if "<img" in text)
    assert finding.where == f"áo-dài.html:{line}"


def test_empty_alt_marks_a_decorative_image_and_passes(site: Path) -> None:
    _plant(site, "áo-dài.html", "/áo-dài", body='<img src="/_assets/ao-thun.svg" alt="">')
    assert run_audit(site).findings == ()


def test_unparseable_page_is_an_error(site: Path) -> None:
    write(site, "áo-dài.html", "")
    report = run_audit(site)
    assert "page-parse" in report.checks()


def test_page_canonical_to_another_shares_its_title_without_warning(site: Path) -> None:
    # A merchant's custom path renders the product at that path too, canonical to the product.
    alias = page_html("/san-pham/ao-thun", canonical=url("/san-pham/ao-thun"))
    write(site, "ao-thun-he.html", alias)
    assert run_audit(site).findings == ()
