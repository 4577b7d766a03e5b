"""The machine-readable report, for CI annotations and dashboards."""

from __future__ import annotations

import json
from typing import Any

from generator.audit.findings import AuditReport, Severity


def report_to_json(report: AuditReport, *, strict: bool = False) -> str:
    data: dict[str, Any] = {
        "root": report.root,
        "passed": report.exit_code(strict=strict) == 0,
        "strict": strict,
        "pages": report.pages,
        "sitemap_urls": report.sitemap_urls,
        "counts": {severity.value: report.count(severity) for severity in Severity},
        "findings": [
            {
                "severity": f.severity.value,
                "check": f.check,
                "where": f.where,
                "message": f.message,
            }
            for f in report.findings
        ],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
