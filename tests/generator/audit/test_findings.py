from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.audit.checks import CHECKS
from generator.audit.findings import AuditReport, Finding, error, info, warning


def _report(*findings: Finding) -> AuditReport:
    return AuditReport.of(root="out", pages=2, sitemap_urls=1, findings=findings)


def test_error_fails_the_audit() -> None:
    assert _report(error("link-broken", "w", "m")).exit_code(strict=False) == 1


def test_warning_fails_only_under_strict() -> None:
    report = _report(warning("robots-txt", "w", "m"))
    assert report.exit_code(strict=False) == 0
    assert report.exit_code(strict=True) == 1


def test_info_never_fails() -> None:
    assert _report(info("sitemap-section-count", "w", "m")).exit_code(strict=True) == 0


def test_summary_counts_each_severity() -> None:
    report = _report(
        error("page-title", "w", "m"), error("page-lang", "w", "m"), warning("robots-txt", "w", "m")
    )
    assert report.summary() == "2 errors, 1 warning, 0 infos in 2 pages and 1 sitemap url"


def test_identical_findings_are_reported_once() -> None:
    assert len(_report(error("page-lang", "w", "m"), error("page-lang", "w", "m")).findings) == 1


def test_unknown_check_id_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown audit check 'page-titel'"):
        error("page-titel", "w", "m")


def test_every_check_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "audit.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", doc, flags=re.MULTILINE))
    assert documented == set(CHECKS)
