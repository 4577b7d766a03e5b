"""Links and assets: every internal target is served, and no link was built from a null url.

The API's ``url`` may be null, and then the theme must render plain text. A template that
formats a null anyway leaves hrefs like ``/None``, ``/san-pham/null`` or ``undefined``; one that
builds a path from a slug leaves links that nothing serves. Both show up here, as does an
``<a>`` without href (not crawlable: actions belong on a <button>).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote, urlsplit

from generator.audit.findings import Finding, error, warning
from generator.audit.site import Page
from generator.audit.urls import internal_path

# What str(None), JSON null, a missing JS value or float NaN look like once formatted into a path.
_NULL_MARKERS = frozenset({"none", "null", "undefined", "nan"})
_IGNORED_SCHEMES = frozenset({"mailto", "tel", "sms", "data", "blob"})

Served = Callable[[str], bool]


def check_links(page: Page, served: Served, origin: str | None) -> list[Finding]:
    findings: list[Finding] = []
    for anchor in page.anchors:
        where = page.at(anchor.line)
        if anchor.href is None:
            findings.append(
                error(
                    "link-no-href",
                    where,
                    "<a> without href is not a crawlable link (use <button> for an action)",
                )
            )
            continue
        findings += _check_href(anchor.href.strip(), where, page.path, served, origin)
    for resource in page.resources:
        scheme = urlsplit(resource.url).scheme.lower()
        if scheme in _IGNORED_SCHEMES:
            continue
        path = internal_path(resource.url, page_path=page.path, origin=origin)
        if path is not None and not served(path):
            findings.append(
                error(
                    "asset-missing",
                    page.at(resource.line),
                    f"{resource.url} is loaded but the output has no file at {path}",
                )
            )
    return findings


def _check_href(
    href: str, where: str, page_path: str, served: Served, origin: str | None
) -> list[Finding]:
    if is_null_built(href):
        return [
            error(
                "link-null-url",
                where,
                f"href {href!r} was built from a null url (render plain text instead)",
            )
        ]
    if href.startswith("#"):
        return []
    scheme = urlsplit(href).scheme.lower()
    if scheme == "javascript":
        return [error("link-no-href", where, f"href {href!r} is not a crawlable link")]
    if scheme in _IGNORED_SCHEMES:
        return []
    path = internal_path(href, page_path=page_path, origin=origin)
    if path is None:
        return []
    if not served(path):
        return [error("link-broken", where, f"link to {href}: no page is written at {path}")]
    if path.endswith(".html"):
        return [warning("link-html", where, f"link to {href}: links carry paths without .html")]
    return []


def is_null_built(href: str) -> bool:
    """True for an empty href, or one whose last path segment is a formatted null."""
    if not href:
        return True
    if href.lower() in _NULL_MARKERS:
        return True
    path = unquote(urlsplit(href).path).rstrip("/")
    last = path.rsplit("/", 1)[-1].lower()
    return last in _NULL_MARKERS
