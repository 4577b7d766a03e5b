"""The terminal report: findings grouped by severity (errors first), then a one-line summary."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from generator.audit.findings import AuditReport, Severity

_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_HEADINGS = {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Information"}


def print_report(report: AuditReport, stream: TextIO, *, strict: bool = False) -> None:
    """Write the report; colours only when ``stream`` is a terminal."""
    console = Console(file=stream, highlight=False, soft_wrap=False)
    console.print(f"Audit of {escape(report.root)}")
    for severity in Severity:
        findings = report.of_severity(severity)
        if not findings:
            continue
        table = Table(
            title=f"{_HEADINGS[severity]} ({len(findings)})",
            title_style=_STYLES[severity],
            title_justify="left",
            show_header=True,
            expand=False,
        )
        table.add_column("check", no_wrap=True)
        table.add_column("where", overflow="fold")
        table.add_column("message", overflow="fold")
        for finding in findings:
            table.add_row(
                escape(finding.check), escape(finding.where), escape(finding.message)
            )
        console.print(table)
    verdict = "FAILED" if report.exit_code(strict=strict) else "passed"
    style = "bold red" if verdict == "FAILED" else "bold green"
    mode = " (strict: warnings fail)" if strict else ""
    console.print(f"[{style}]audit {verdict}[/]{mode}: {escape(report.summary())}")
