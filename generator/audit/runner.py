"""``audit_site``: every check over one output folder, gathered into one AuditReport.

Reads the folder once (pages, sitemaps, robots.txt), then runs the pure checks. The site origin
comes from ``--site-url`` when given, else from the sitemap's locs (the origin most of them use).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path

from generator.audit.api_sections import ApiSection
from generator.audit.build_checks import check_build_warnings
from generator.audit.canonical_links import check_canonical_links
from generator.audit.csp_checks import check_policy
from generator.audit.findings import AuditReport, Finding
from generator.audit.island_checks import check_islands
from generator.audit.jsonld_checks import check_jsonld
from generator.audit.link_checks import check_links
from generator.audit.page_checks import check_duplicates, check_page
from generator.audit.reachability import MAX_DEPTH, check_reachability
from generator.audit.section_checks import check_sections
from generator.audit.site import path_of_url, read_pages
from generator.audit.sitemap_checks import (
    check_lastmods,
    check_listed_pages,
    check_locs,
    check_robots,
    check_unlisted_pages,
)
from generator.audit.sitemap_files import SitemapRead, SitemapSchemas, read_sitemaps
from generator.audit.stylesheet_checks import check_stylesheets
from generator.audit.urls import base_of, origin_of, sitemap_base
from generator.serve.static import resolve_decoded_path

# The same broken menu link on every page is one problem: past this many places, one finding.
_REPEATS_SHOWN = 3


def audit_site(
    out: Path,
    *,
    now: datetime,
    site_url: str | None = None,
    api_sections: Sequence[ApiSection] | None = None,
    max_depth: int = MAX_DEPTH,
) -> AuditReport:
    """Audit the output folder ``out``; ``now`` (aware) is when lastmod may not be after."""
    sitemaps = read_sitemaps(out, SitemapSchemas.load())
    origin = origin_of(site_url) if site_url else _sitemap_origin(sitemaps)
    # A site published under a path prefix: its pages, links and locs all carry it.
    base = base_of(site_url) if site_url else sitemap_base([e.loc for e in sitemaps.urls])
    pages = read_pages(out, base)
    by_path = {page.path: page for page in pages}
    listed = frozenset(
        path_of_url(entry.loc) or "/" for entry in sitemaps.urls if origin_of(entry.loc)
    )
    robots = out / "robots.txt"

    findings: list[Finding] = list(sitemaps.findings)
    if sitemaps.found:
        findings += check_locs(sitemaps.index_entries, origin)
        findings += check_locs(sitemaps.urls, origin)
        findings += check_lastmods([*sitemaps.index_entries, *sitemaps.urls], now)
        findings += check_listed_pages(sitemaps.urls, by_path)
        findings += check_unlisted_pages(pages, listed, origin)
    findings += check_robots(
        robots.read_text(encoding="utf-8", errors="replace") if robots.is_file() else None,
        origin + base if origin else None,
    )
    file_at = _file_at(out, base)
    served = _served(file_at)
    for page in pages:
        findings += check_page(page, by_path, origin)
        findings += check_policy(page, origin)
        findings += check_jsonld(page)
        findings += check_links(page, served, origin)
    findings += check_stylesheets(pages, served, file_at, origin)
    findings += check_islands(pages)
    findings += check_canonical_links(by_path, origin)
    findings += check_duplicates(pages)
    findings += check_reachability(
        by_path, listed, home=base + "/", origin=origin, max_depth=max_depth
    )
    findings += check_build_warnings(out)
    if api_sections is not None:
        unprefixed = frozenset(p[len(base) :] for p in listed if p.startswith(base + "/"))
        findings += check_sections(api_sections, unprefixed if base else listed)
    return AuditReport.of(
        root=str(out),
        pages=len(pages),
        sitemap_urls=len(sitemaps.urls),
        findings=collapse_repeats(findings),
    )


def _sitemap_origin(sitemaps: SitemapRead) -> str | None:
    origins = Counter(
        o for o in (origin_of(e.loc) for e in [*sitemaps.urls, *sitemaps.index_entries]) if o
    )
    return origins.most_common(1)[0][0] if origins else None


def _file_at(out: Path, base: str = "") -> Callable[[str], Path | None]:
    """The file served at a decoded path under the site's prefix ``base``, or None."""

    def file_at(path: str) -> Path | None:
        if base and not path.startswith(base + "/"):
            return None
        return resolve_decoded_path(out, path[len(base) :])

    return file_at


def _served(file_at: Callable[[str], Path | None]) -> Callable[[str], bool]:
    """Whether a decoded path is served, remembered: the same header links repeat on every
    page."""
    known: dict[str, bool] = {}

    def served(path: str) -> bool:
        if path not in known:
            known[path] = file_at(path) is not None
        return known[path]

    return served


def collapse_repeats(findings: Iterable[Finding]) -> list[Finding]:
    """One finding for a problem found in many places (same severity, check and message)."""
    places: defaultdict[tuple[object, str, str], list[Finding]] = defaultdict(list)
    for finding in findings:
        places[(finding.severity, finding.check, finding.message)].append(finding)
    collapsed: list[Finding] = []
    for group in places.values():
        if len(group) <= _REPEATS_SHOWN:
            collapsed += group
            continue
        wheres = sorted({f.where for f in group})
        where = ", ".join(wheres[:_REPEATS_SHOWN])
        if len(wheres) > _REPEATS_SHOWN:
            where += f" and {len(wheres) - _REPEATS_SHOWN} more"
        first = group[0]
        collapsed.append(Finding(first.severity, first.check, where, first.message))
    return collapsed
