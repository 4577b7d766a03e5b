"""A standalone HTML report (no scripts, no external assets), built with lxml so every value
from the audited site is escaped."""

from __future__ import annotations

import lxml.html
from lxml.html import builder as E

from generator.audit.findings import AuditReport, Severity

_CSS = """
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#111}
table{border-collapse:collapse;width:100%;margin-bottom:2rem}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
td{overflow-wrap:anywhere}
h2.error{color:#a40000}h2.warning{color:#7a5200}h2.info{color:#004f7a}
.failed{color:#a40000}.passed{color:#0a6b00}
"""
_HEADINGS = {Severity.ERROR: "Errors", Severity.WARNING: "Warnings", Severity.INFO: "Information"}


def report_to_html(report: AuditReport, *, strict: bool = False) -> str:
    verdict = "failed" if report.exit_code(strict=strict) else "passed"
    body = [
        E.H1("Storefront audit"),
        E.P("Output folder: ", E.CODE(report.root)),
        E.P(E.STRONG(f"Audit {verdict}", E.CLASS(verdict)), f": {report.summary()}"),
    ]
    for severity in Severity:
        findings = report.of_severity(severity)
        if not findings:
            continue
        rows = [E.TR(E.TD(E.CODE(f.check)), E.TD(f.where), E.TD(f.message)) for f in findings]
        body.append(E.H2(f"{_HEADINGS[severity]} ({len(findings)})", E.CLASS(severity.value)))
        body.append(
            E.TABLE(E.THEAD(E.TR(E.TH("check"), E.TH("where"), E.TH("message"))), E.TBODY(*rows))
        )
    document = E.HTML(
        E.HEAD(
            E.META(charset="utf-8"),
            E.META(name="viewport", content="width=device-width, initial-scale=1"),
            E.TITLE("Storefront audit"),
            E.STYLE(_CSS),
        ),
        E.BODY(*body),
        lang="en",
    )
    html: str = lxml.html.tostring(document, encoding="unicode", doctype="<!DOCTYPE html>")
    return html + "\n"
