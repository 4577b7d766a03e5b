"""Links to duplicates: internal links that lead to a page naming another as its canonical.

A custom path (``/gioi-thieu-cong-ty``) shows an entity again and names the entity's own page
as canonical. Links to it still work, and a crawler follows the canonical, but the link's weight
goes to the duplicate: the canonical page may have no internal link at all. One finding per
such page, as information (the merchant's menu chose the path; it is not a broken site).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from generator.audit.findings import Finding, info
from generator.audit.site import Page, path_of_url
from generator.audit.urls import internal_path, origin_of


def check_canonical_links(pages: Mapping[str, Page], origin: str | None) -> list[Finding]:
    linkers: defaultdict[str, set[str]] = defaultdict(set)  # target -> the pages linking it
    first: dict[str, str] = {}  # target -> where it is first linked
    for page in pages.values():
        for anchor in page.anchors:
            if anchor.href is None:
                continue
            target = internal_path(anchor.href.strip(), page_path=page.path, origin=origin)
            if target is not None and target != page.path:
                linkers[target].add(page.path)
                first.setdefault(target, page.at(anchor.line))
    findings = []
    for target in sorted(t for t in linkers if _elsewhere(pages.get(t))):
        canonical = path_of_url(pages[target].canonicals[0]) or "/"
        findings.append(
            info(
                "link-to-duplicate",
                first[target],
                f"{_pages(len(linkers[target]))} link to {target}, which names {canonical} as "
                f"its canonical (linked from {_pages(len(linkers.get(canonical, ())))}): link "
                f"{canonical} itself",
            )
        )
    return findings


def _elsewhere(page: Page | None) -> bool:
    """The page names another page of the site as its canonical."""
    if page is None or len(page.canonicals) != 1 or origin_of(page.canonicals[0]) is None:
        return False
    return (path_of_url(page.canonicals[0]) or "/") != page.path


def _pages(count: int) -> str:
    return f"{count} page{'' if count == 1 else 's'}"
