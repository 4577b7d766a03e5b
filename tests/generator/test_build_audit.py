"""The fixture store's build passes the project's own audit: renderer and auditor agree."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from generator.audit.findings import Severity
from generator.audit.runner import audit_site
from generator.write.sitemap import SitemapLimits
from tests.support.fixture_site import build_site
from tests.support.fixture_store import SITE_URL

AFTER_THE_FIXTURE = datetime(2027, 1, 1, tzinfo=UTC)


def test_fixture_build_has_no_audit_errors(tmp_path: Path) -> None:
    out = tmp_path / "output"
    build_site(out)
    report = audit_site(out, now=AFTER_THE_FIXTURE, site_url=SITE_URL)
    assert report.of_severity(Severity.ERROR) == ()
    assert report.pages == 21  # 16 pages (the two listings of its own) and 5 island shells
    assert report.sitemap_urls == 14


def test_fixture_build_with_a_sitemap_index_has_no_audit_errors(tmp_path: Path) -> None:
    out = tmp_path / "output"
    build_site(out, limits=SitemapLimits(max_urls=4))
    report = audit_site(out, now=AFTER_THE_FIXTURE, site_url=SITE_URL)
    assert report.of_severity(Severity.ERROR) == ()
    assert report.sitemap_urls == 14
