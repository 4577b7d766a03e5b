"""Url facts the checks share: origins, percent-encoding, and which links stay on the site."""

from __future__ import annotations

import re
from urllib.parse import unquote, urljoin, urlsplit

# RFC 3986 characters; anything else (spaces, non-ASCII, quotes, <>) must be percent-encoded.
_URI_CHARS = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` (lower-cased) of an absolute http(s) url, else None."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def base_of(site_url: str) -> str:
    """The decoded path prefix of a site url: "" at a host's root, else e.g. "/shop"."""
    return unquote(urlsplit(site_url).path).rstrip("/")


def sitemap_base(locs: list[str]) -> str:
    """The path prefix a sitemap's locs share, read from its home page (the shortest loc ending
    in "/"): "" for a site at a host's root."""
    homes = sorted((unquote(urlsplit(loc).path) for loc in locs), key=len)
    home = next((path for path in homes if path.endswith("/")), "/")
    base = home.rstrip("/")
    if base and all(unquote(urlsplit(loc).path).startswith(base + "/") for loc in locs):
        return base
    return ""


def is_percent_encoded(url: str) -> bool:
    """True when the url uses only URI characters and every % starts a valid escape."""
    return bool(_URI_CHARS.match(url)) and not _BAD_PERCENT.search(url)


def same_url(a: str, b: str) -> bool:
    """Equal as a crawler compares them: case-insensitive origin, decoded path, same query."""
    pa, pb = urlsplit(a), urlsplit(b)
    return (
        origin_of(a) == origin_of(b)
        and unquote(pa.path or "/") == unquote(pb.path or "/")
        and pa.query == pb.query
    )


def internal_path(href: str, *, page_path: str, origin: str | None) -> str | None:
    """The decoded path a link leads to on this site, or None when it leaves the site.

    Relative links resolve against the page's own path; absolute ones count as internal only
    under the site's origin (unknown origin: only relative links are internal).
    """
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        if parts.scheme and parts.scheme.lower() not in ("http", "https"):
            return None
        absolute = href if parts.scheme else f"http:{href}"
        if origin is None or (origin_of(absolute) or "").split("://")[1] != origin.split("://")[1]:
            return None
        return unquote(parts.path) or "/"
    resolved = urljoin("http://site.invalid" + _quoted(page_path), href)
    return unquote(urlsplit(resolved).path) or "/"


def _quoted(path: str) -> str:
    """A decoded page path made safe to join against (only the characters urljoin cares about)."""
    return path.replace("%", "%25").replace("?", "%3F").replace("#", "%23")
