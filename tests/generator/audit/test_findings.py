from __future__ import annotations

from generator.audit.findings import AuditReport, Finding, error, info, warning


def _report(*findings: Finding) -> AuditReport:
    return AuditReport.of(root="out", pages=2, sitemap_urls=1, findings=findings)


def test_error_fails_the_audit() -> None:
    assert _report(error("c", "w", "m")).exit_code(strict=False) == 1


def test_warning_fails_only_under_strict() -> None:
    report = _report(warning("c", "w", "m"))
    assert report.exit_code(strict=False) == 0
    assert report.exit_code(strict=True) == 1


def test_info_never_fails() -> None:
    assert _report(info("c", "w", "m")).exit_code(strict=True) == 0


def test_summary_counts_each_severity() -> None:
    report = _report(error("a", "w", "m"), error("b", "w", "m"), warning("c", "w", "m"))
    assert report.summary() == "2 errors, 1 warning, 0 infos in 2 pages and 1 sitemap url"


def test_identical_findings_are_reported_once() -> None:
    assert len(_report(error("a", "w", "m"), error("a", "w", "m")).findings) == 1
