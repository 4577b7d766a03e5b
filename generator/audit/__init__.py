"""`storefront audit`: an SEO and integrity report of a built output folder.

    site.py            read the output folder: which files are pages, parsed once (lxml.html)
    checks.py          the catalogue of check ids, documented in docs/audit.md
    findings.py        Finding(severity, check, where, message) and the AuditReport
    sitemap_files.py   read sitemap.xml or its index of numbered files, schema-validated
    sitemap_checks.py  limits, locs, duplicates, lastmod, pages listed or missing
    page_checks.py     title, meta description, canonical, lang, image alt
    jsonld_checks.py   JSON-LD: Product for merchant listings, BreadcrumbList
    link_checks.py     internal links and assets that nothing serves, links built from null urls
    api_sections.py    with an API: GET /sitemap counts and each section's paths
    section_checks.py  "declared N, emitted M" per API section
    runner.py          audit_site(): every check over one folder, into one AuditReport
    report_*.py        text (rich), JSON and HTML reporters

Every check is a pure function from parsed data to findings; only site.py, sitemap_files.py and
api_sections.py read anything.
"""

from generator.audit.findings import AuditReport, Finding, Severity
from generator.audit.runner import audit_site

__all__ = ["AuditReport", "Finding", "Severity", "audit_site"]
