"""Per API section: "declared N, emitted M", and served paths the sitemap lacks.

Declared-but-not-served rows are normal (a row without a url counts but is not served), so a
count difference is information. A path the API serves for a section but the sitemap does not
list is a warning: the build skipped a page it could have written.
"""

from __future__ import annotations

from collections.abc import Iterable

from generator.audit.api_sections import ApiSection
from generator.audit.findings import Finding, info, warning
from generator.audit.site import path_of_url

_PATHS_NAMED = 5


def check_sections(sections: Iterable[ApiSection], listed_paths: frozenset[str]) -> list[Finding]:
    findings: list[Finding] = []
    for section in sections:
        where = f"API /sitemap/{section.name}"
        served = list(dict.fromkeys(path_of_url(p) or "/" for p in section.paths))
        missing = [p for p in served if p not in listed_paths]
        emitted = len(served) - len(missing)
        if emitted != section.declared:
            findings.append(
                info(
                    "sitemap-section-count",
                    where,
                    f"section {section.name}: declared {section.declared}, emitted {emitted} "
                    f"(the API serves {len(served)} paths)",
                )
            )
        if missing:
            named = ", ".join(missing[:_PATHS_NAMED])
            more = f" and {len(missing) - _PATHS_NAMED} more" if len(missing) > _PATHS_NAMED else ""
            findings.append(
                warning(
                    "sitemap-section-missing",
                    where,
                    f"section {section.name}: {len(missing)} served paths are not in the "
                    f"sitemap: {named}{more}",
                )
            )
    return findings
