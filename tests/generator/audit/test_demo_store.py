"""The demo store, as `storefront build` writes it, passes the audit with no error."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from generator.audit import Severity, audit_site
from tests.support.demo_build import DEMO_SITE_URL, build_demo_site


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_site(tmp_path_factory.getbasetemp())


def test_demo_store_has_no_audit_errors(demo_site: Path) -> None:
    report = audit_site(demo_site, now=datetime.now(UTC), site_url=DEMO_SITE_URL)
    errors = [f"{f.check} {f.where}: {f.message}" for f in report.of_severity(Severity.ERROR)]
    assert errors == []
    assert report.pages > 10
    assert report.sitemap_urls > 10
