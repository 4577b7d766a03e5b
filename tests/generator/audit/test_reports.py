"""The three reporters: text grouped by severity, JSON, and escaped HTML."""

from __future__ import annotations

import io
import json

import lxml.html

from generator.audit.findings import AuditReport, error, info, warning
from generator.audit.report_html import report_to_html
from generator.audit.report_json import report_to_json
from generator.audit.report_text import print_report

REPORT = AuditReport.of(
    root="output",
    pages=3,
    sitemap_urls=2,
    findings=[
        info("sitemap-section-count", "API /sitemap/products", "section products: declared 3"),
        warning("page-description", "a.html", "page /a has no meta description"),
        error("link-broken", "b.html:9", "link to /x: no page is written at /x"),
        error("page-title", "c.html", 'page /<script>alert("t")</script> has no [b]title[/b]'),
    ],
)


def test_text_groups_by_severity_errors_first() -> None:
    out = io.StringIO()
    print_report(REPORT, out)
    text = out.getvalue()
    assert text.index("Errors (2)") < text.index("Warnings (1)") < text.index("Information (1)")
    assert text.index("link-broken") < text.index("page-description")
    assert "[b]title[/b]" in text  # merchant text is not read as console markup
    assert text.rstrip().endswith(
        "audit FAILED: 2 errors, 1 warning, 1 info in 3 pages and 2 sitemap urls"
    )


def test_text_of_a_clean_report_passes() -> None:
    out = io.StringIO()
    print_report(AuditReport.of(root="o", pages=1, sitemap_urls=1, findings=[]), out)
    assert "audit passed" in out.getvalue()
    assert "Errors" not in out.getvalue()


def test_json_lists_every_finding_with_counts() -> None:
    data = json.loads(report_to_json(REPORT, strict=True))
    assert data["passed"] is False
    assert data["counts"] == {"error": 2, "warning": 1, "info": 1}
    assert data["findings"][0] == {
        "severity": "error",
        "check": "link-broken",
        "where": "b.html:9",
        "message": "link to /x: no page is written at /x",
    }
    assert [f["severity"] for f in data["findings"]] == ["error", "error", "warning", "info"]


def test_html_escapes_text_from_the_site() -> None:
    html = report_to_html(REPORT)
    assert "<script>" not in html
    doc = lxml.html.document_fromstring(html)
    assert doc.get("lang") == "en"
    cells = [td.text_content() for td in doc.iter("td")]
    assert 'page /<script>alert("t")</script> has no [b]title[/b]' in cells
    headings = [h.text_content() for h in doc.iter("h2")]
    assert headings == ["Errors (2)", "Warnings (1)", "Information (1)"]


def test_text_keeps_colons_as_written() -> None:
    found = error("sitemap-loc", "sitemap.xml:100", "loc :smile: is not on the site")
    out = io.StringIO()
    print_report(AuditReport.of(root="o", pages=1, sitemap_urls=1, findings=[found]), out)
    # "sitemap.xml:100:" is a file and a line; rich would read ":100:" as an emoji code.
    assert "sitemap.xml:100: loc :smile: is not on the site" in out.getvalue()
