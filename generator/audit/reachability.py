"""Reachability: every page in the sitemap can be found by following plain links from home.

A crawler that runs no JavaScript sees only ``<a href>``. Starting at the home page it follows
every internal link to a written page, breadth first, so each page gets its click depth (the
fewest clicks from home). A page's canonical link counts as a link: a custom path that shows
an entity again names the entity's own page there, and a crawler follows it. A page that is
written and in the sitemap but never reached is an orphan (``reach-orphan``); a reached page
deeper than ``max_depth`` clicks is ``reach-depth``. Each is one finding naming the count and
the worst examples (the deepest first).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping

from generator.audit.findings import Finding, warning
from generator.audit.site import Page
from generator.audit.urls import internal_path

#: Clicks from the home page a page may be, by default.
MAX_DEPTH = 4
#: Examples one finding names.
_EXAMPLES = 5


def click_depths(pages: Mapping[str, Page], home: str, origin: str | None) -> dict[str, int]:
    """The fewest clicks from ``home`` to each page reached by links, by decoded path."""
    if home not in pages:
        return {}
    depths = {home: 0}
    queue = deque([home])
    resolve = _resolver(origin)
    while queue:
        path = queue.popleft()
        depth = depths[path] + 1
        page = pages[path]
        # A page that names another as its canonical (a custom path showing an entity again)
        # leads a crawler there as a link does.
        hrefs = [a.href for a in page.anchors if a.href is not None] + list(page.canonicals[:1])
        for href in hrefs:
            target = resolve(href.strip(), path)
            if target is not None and target not in depths and target in pages:
                depths[target] = depth
                queue.append(target)
    return depths


def check_reachability(
    pages: Mapping[str, Page],
    listed: Iterable[str],
    *,
    home: str,
    origin: str | None,
    max_depth: int = MAX_DEPTH,
) -> list[Finding]:
    """``reach-orphan`` for listed pages no link reaches, ``reach-depth`` past ``max_depth``."""
    depths = click_depths(pages, home, origin)
    findings: list[Finding] = []
    orphans = sorted(
        path
        for path in set(listed)
        if path in pages and path not in depths and not pages[path].is_not_found_page
    )
    if orphans:
        findings.append(
            warning(
                "reach-orphan",
                pages[orphans[0]].file,
                f"{len(orphans)} pages in the sitemap cannot be reached from the home page by "
                f"links: {_named(orphans)}",
            )
        )
    deep = sorted(
        ((depth, path) for path, depth in depths.items() if depth > max_depth),
        key=lambda item: (-item[0], item[1]),
    )
    if deep:
        examples = ", ".join(f"{path} ({depth})" for depth, path in deep[:_EXAMPLES])
        more = f" and {len(deep) - _EXAMPLES} more" if len(deep) > _EXAMPLES else ""
        findings.append(
            warning(
                "reach-depth",
                pages[deep[0][1]].file,
                f"{len(deep)} pages are more than {max_depth} clicks from the home page, the "
                f"deepest first: {examples}{more}",
            )
        )
    return findings


def _named(paths: list[str]) -> str:
    more = f" and {len(paths) - _EXAMPLES} more" if len(paths) > _EXAMPLES else ""
    return ", ".join(paths[:_EXAMPLES]) + more


def _resolver(origin: str | None) -> Callable[[str, str], str | None]:
    """``internal_path`` remembered for root-absolute hrefs, the same on every page (menus,
    footer, cards)."""
    known: dict[str, str | None] = {}

    def resolve(href: str, page_path: str) -> str | None:
        if not href.startswith("/") or href.startswith("//"):
            return internal_path(href, page_path=page_path, origin=origin)
        if href not in known:
            known[href] = internal_path(href, page_path=page_path, origin=origin)
        return known[href]

    return resolve
