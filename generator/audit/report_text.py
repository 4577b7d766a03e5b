"""The terminal report: findings grouped by severity (errors first), then a one-line summary.

One finding per line (``check  where: message``) rather than a table: lines stay readable in a
narrow terminal and in CI logs, and grep finds a check by its id.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.markup import escape

from generator.audit.findings import AuditReport, Severity

_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_HEADINGS = {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Information"}


def print_report(report: AuditReport, stream: TextIO, *, strict: bool = False) -> None:
    """Write the report; colours only when ``stream`` is a terminal."""
    # No emoji codes: "sitemap.xml:100:" is a file and a line, not ":100:".
    console = Console(file=stream, highlight=False, soft_wrap=True, emoji=False)
    console.print(f"Audit of {escape(report.root)}")
    for severity in Severity:
        findings = report.of_severity(severity)
        if not findings:
            continue
        style = _STYLES[severity]
        console.print(f"\n[{style}]{_HEADINGS[severity]} ({len(findings)})[/]")
        for finding in findings:
            console.print(
                f"  [{style}]{escape(finding.check)}[/]  {escape(finding.where)}: "
                f"{escape(finding.message)}"
            )
    verdict = "FAILED" if report.exit_code(strict=strict) else "passed"
    style = "bold red" if verdict == "FAILED" else "bold green"
    mode = " (strict: warnings fail)" if strict else ""
    console.print(f"\n[{style}]audit {verdict}[/]{mode}: {escape(report.summary())}")
