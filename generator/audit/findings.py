"""What an audit says: findings with a severity, and the report that gathers them.

A finding names the check that produced it (a stable, kebab-case id that a CI log can grep),
where it was found (a file and line of the output folder, or an API section) and one line of
explanation. Errors fail the audit; warnings fail it only under ``--strict`` (like MkDocs);
infos never do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from generator.audit.checks import CHECKS


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Sort key: errors first."""
        return _RANKS[self]


_RANKS = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    check: str
    where: str
    message: str

    def __post_init__(self) -> None:
        if self.check not in CHECKS:
            raise ValueError(f"unknown audit check {self.check!r}: add it to audit/checks.py")


def error(check: str, where: str, message: str) -> Finding:
    return Finding(Severity.ERROR, check, where, message)


def warning(check: str, where: str, message: str) -> Finding:
    return Finding(Severity.WARNING, check, where, message)


def info(check: str, where: str, message: str) -> Finding:
    return Finding(Severity.INFO, check, where, message)


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Everything one audit found, sorted: errors first, then by check and place."""

    root: str
    pages: int
    sitemap_urls: int
    findings: tuple[Finding, ...]

    @classmethod
    def of(
        cls, *, root: str, pages: int, sitemap_urls: int, findings: Iterable[Finding]
    ) -> AuditReport:
        ordered = sorted(
            set(findings), key=lambda f: (f.severity.rank, f.check, f.where, f.message)
        )
        return cls(root=root, pages=pages, sitemap_urls=sitemap_urls, findings=tuple(ordered))

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    def of_severity(self, severity: Severity) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity is severity)

    def checks(self) -> frozenset[str]:
        return frozenset(f.check for f in self.findings)

    def exit_code(self, *, strict: bool) -> int:
        """1 when the audit fails: any error, or any warning under --strict."""
        if self.count(Severity.ERROR) or (strict and self.count(Severity.WARNING)):
            return 1
        return 0

    def summary(self) -> str:
        parts = [
            _plural(self.count(Severity.ERROR), "error"),
            _plural(self.count(Severity.WARNING), "warning"),
            _plural(self.count(Severity.INFO), "info", "infos"),
        ]
        return (
            f"{', '.join(parts)} in {_plural(self.pages, 'page')} "
            f"and {_plural(self.sitemap_urls, 'sitemap url')}"
        )


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"
