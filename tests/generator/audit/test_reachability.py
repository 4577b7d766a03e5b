"""Reachability: orphan pages and pages too many clicks from home, one planted defect each."""

from __future__ import annotations

from pathlib import Path

from generator.audit import Severity, audit_site
from generator.audit.reachability import click_depths
from generator.audit.site import read_pages
from tests.generator.audit.fixture_site import (
    NOW,
    indexed_paths,
    page_html,
    run_audit,
    sitemap_xml,
    url,
    write,
)


def _add_pages(site: Path, pages: dict[str, str]) -> None:
    """Pages at ``path`` (file ``path``.html) whose body is the given html, in the sitemap."""
    for path, body in pages.items():
        html = page_html(
            "/áo-dài", canonical=url(path), body=body, title=path, description=f"Mô tả {path}"
        )
        write(site, path.lstrip("/") + ".html", html)
    write(site, "sitemap.xml", sitemap_xml([url(p) for p in [*indexed_paths(), *pages]]))


def test_the_clean_site_has_every_page_within_two_clicks(site: Path) -> None:
    depths = click_depths({p.path: p for p in read_pages(site)}, "/", None)
    assert depths["/"] == 0 and depths["/danh-muc/ao"] == 1
    assert depths["/bai-viet/chao-mung"] == 2
    assert not run_audit(site).checks() & {"reach-orphan", "reach-depth"}


def test_a_page_in_the_sitemap_that_no_link_reaches_is_an_orphan(site: Path) -> None:
    _add_pages(site, {"/bi-an": "<p>Không ai dẫn tới đây.</p>"})
    report = run_audit(site)
    [finding] = [f for f in report.findings if f.check == "reach-orphan"]
    assert finding.severity == Severity.WARNING
    assert finding.where == "bi-an.html"
    assert finding.message.endswith("cannot be reached from the home page by links: /bi-an")
    assert report.checks() == {"reach-orphan"}


def test_pages_past_the_depth_limit_are_reported_deepest_first(site: Path) -> None:
    # /bai-viet/chao-mung is 2 clicks from home; a chain below it goes to 6.
    write(site, "bai-viet/chao-mung.html",
          page_html("/bai-viet/chao-mung", body='<a href="/sau/1">Tiếp</a>'))  # fmt: skip
    chain = {f"/sau/{n}": f'<a href="/sau/{n + 1}">Tiếp</a>' for n in range(1, 4)}
    _add_pages(site, {**chain, "/sau/4": "<p>Cuối</p>"})
    report = run_audit(site)
    [finding] = [f for f in report.findings if f.check == "reach-depth"]
    assert finding.where == "sau/4.html"
    assert finding.message == (
        "2 pages are more than 4 clicks from the home page, the deepest first: "
        "/sau/4 (6), /sau/3 (5)"
    )
    assert "reach-orphan" not in report.checks()
    shallow = audit_site(site, now=NOW, max_depth=6)
    assert "reach-depth" not in shallow.checks()
