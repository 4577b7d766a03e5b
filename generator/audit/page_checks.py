"""Per-page SEO and accessibility basics: lang, title, meta description, canonical, image alt.

Titles and descriptions must also differ between indexable, self-canonical pages: search engines
show them as the result's headline and snippet, so two equal ones look like duplicate content.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from generator.audit.findings import Finding, error, warning
from generator.audit.site import Page, path_of_url
from generator.audit.urls import origin_of

_FILES_NAMED = 5


def check_page(page: Page, pages: Mapping[str, Page], origin: str | None) -> list[Finding]:
    if page.parse_error is not None:
        return [error("page-parse", page.file, f"the HTML cannot be parsed: {page.parse_error}")]
    findings: list[Finding] = []
    if page.lang is None:
        findings.append(error("page-lang", page.file, "<html> has no lang attribute"))
    findings += _title(page)
    findings += _description(page)
    findings += _canonical(page, pages, origin)
    for img in page.images:
        if img.alt is None:
            findings.append(
                error("page-img-alt", page.at(img.line), f"<img src={img.src!r}> has no alt")
            )
    return findings


def _title(page: Page) -> list[Finding]:
    if not page.titles or not page.titles[0]:
        return [error("page-title", page.file, f"page {page.path} has no <title> text")]
    if len(page.titles) > 1:
        return [warning("page-title", page.file, f"page {page.path} has {len(page.titles)} titles")]
    return []


def _description(page: Page) -> list[Finding]:
    if page.noindex or page.is_not_found_page:
        return []
    if not page.descriptions or not page.descriptions[0]:
        return [
            warning(
                "page-description",
                page.file,
                f"page {page.path} has no meta description",
            )
        ]
    if len(page.descriptions) > 1:
        return [
            warning(
                "page-description",
                page.file,
                f"page {page.path} has {len(page.descriptions)} meta descriptions",
            )
        ]
    return []


def _canonical(page: Page, pages: Mapping[str, Page], origin: str | None) -> list[Finding]:
    if not page.canonicals:
        if page.noindex or page.is_not_found_page:
            return []
        return [error("page-canonical", page.file, f'page {page.path} has no rel="canonical"')]
    if len(page.canonicals) > 1:
        return [
            error(
                "page-canonical",
                page.file,
                f"page {page.path} has {len(page.canonicals)} canonicals; exactly one is allowed",
            )
        ]
    canonical = page.canonicals[0]
    canonical_origin = origin_of(canonical)
    if canonical_origin is None:
        return [
            error(
                "page-canonical",
                page.file,
                f"canonical {canonical!r} is not an absolute http(s) url",
            )
        ]
    if origin is not None and canonical_origin != origin:
        return [
            # The other origin, not the url: a site built for another --site-url is one finding.
            error(
                "page-canonical",
                page.file,
                f"canonical is on {canonical_origin}, not on the site {origin}",
            )
        ]
    target = path_of_url(canonical) or "/"
    if target not in pages:
        return [
            error("page-canonical", page.file, f"canonical {canonical} points to no written page")
        ]
    if target == "/" and page.path != "/":
        return [
            error(
                "page-canonical",
                page.file,
                f"page {page.path} names the home page as its canonical",
            )
        ]
    return []


def check_duplicates(pages: Iterable[Page]) -> list[Finding]:
    """Equal titles or descriptions across indexable pages, one finding per shared text."""
    titles: dict[str, list[Page]] = defaultdict(list)
    descriptions: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        if page.noindex or page.is_not_found_page or page.parse_error or _points_away(page):
            continue
        if page.titles and page.titles[0]:
            titles[page.titles[0]].append(page)
        if page.descriptions and page.descriptions[0]:
            descriptions[page.descriptions[0]].append(page)
    findings: list[Finding] = []
    for check, label, groups in (
        ("duplicate-title", "title", titles),
        ("duplicate-description", "meta description", descriptions),
    ):
        for text, sharing in groups.items():
            if len(sharing) < 2:
                continue
            names = ", ".join(p.path for p in sharing[:_FILES_NAMED])
            more = f" and {len(sharing) - _FILES_NAMED} more" if len(sharing) > _FILES_NAMED else ""
            findings.append(
                warning(
                    check,
                    sharing[0].file,
                    f"{len(sharing)} pages share the {label} {_clip(text)!r}: {names}{more}",
                )
            )
    return findings


def _points_away(page: Page) -> bool:
    """A page whose canonical names another page is a declared duplicate (a custom path that
    renders an entity at its own url too): sharing that page's title is expected."""
    return len(page.canonicals) == 1 and (path_of_url(page.canonicals[0]) or "/") != page.path


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
