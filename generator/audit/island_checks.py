"""The islands' markup (``render.island_markup``): what an island reads that its page lacks.

Pages of one type come from one template, so one gap shows on each of them: one finding per
gap, at the first page that has it, saying how many more do.
"""

from __future__ import annotations

from collections.abc import Iterable

from generator.audit.findings import Finding, warning
from generator.audit.site import Page


def check_islands(pages: Iterable[Page]) -> list[Finding]:
    first: dict[str, str] = {}
    count: dict[str, int] = {}
    for page in pages:
        for gap in page.island_gaps:
            first.setdefault(gap, page.file)
            count[gap] = count.get(gap, 0) + 1
    return [
        warning("island-markup", file, gap + _more(count[gap] - 1)) for gap, file in first.items()
    ]


def _more(pages: int) -> str:
    if not pages:
        return ""
    return f" (and {pages} more page{'s' if pages > 1 else ''} of the type)"
