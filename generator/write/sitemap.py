"""sitemap.xml and robots.txt from the pages actually written.

``sitemap_files(pages, site_url, limits)`` is pure: it returns the files as (name, bytes).
Locs are absolute (the site origin plus each page's public path: NFC, percent-encoded), lastmod is
the page's ``updated_at`` as a UTC instant (``2026-11-20T03:04:05+00:00``), and only pages marked
``in_sitemap`` appear (never 404.html, never a custom path whose canonical is elsewhere).

Up to ``limits.max_urls`` urls and ``limits.max_bytes`` bytes it is one ``sitemap.xml``; past
either, ``sitemap.xml`` becomes a sitemap index over ``sitemap-1.xml``, ``sitemap-2.xml``, ...
each within both limits. The XML is written as text, one line per entry (a large store's
sitemap is tens of thousands of them, rewritten by every build); the sitemaps.org schemas
accept it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple, Protocol
from urllib.parse import urlsplit, urlunsplit

from generator.errors import WriteError

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP_FILE = "sitemap.xml"
ROBOTS_FILE = "robots.txt"
PROTOCOL_MAX_URLS = 50_000
PROTOCOL_MAX_BYTES = 50 * 1024 * 1024
_XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8'?>\n"
#: What XML 1.0 cannot carry in text at all.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True, slots=True)
class SitemapLimits:
    """When one sitemap file is full; the protocol's limits unless a test picks small ones."""

    max_urls: int = PROTOCOL_MAX_URLS
    max_bytes: int = PROTOCOL_MAX_BYTES


class SitemapSource(Protocol):
    """What the sitemap reads of a written page."""

    @property
    def path(self) -> str: ...
    @property
    def in_sitemap(self) -> bool: ...
    @property
    def lastmod(self) -> datetime | None: ...


class SitemapEntry(NamedTuple):
    """One url of a sitemap (a tuple: a large store's sitemap has one for every page)."""

    loc: str
    lastmod: datetime | None


def sitemap_entries(pages: Iterable[SitemapSource], site_url: str) -> list[SitemapEntry]:
    """One entry per written page that belongs in the sitemap, in page order, locs unique."""
    origin = ascii_origin(site_url)
    seen: set[str] = set()
    entries = []
    for page in pages:
        if not page.in_sitemap:
            continue
        loc = origin + page.path
        if loc not in seen:
            seen.add(loc)
            entries.append(SitemapEntry(loc, page.lastmod))
    return entries


def sitemap_files(
    pages: Iterable[SitemapSource], site_url: str, limits: SitemapLimits | None = None
) -> list[tuple[str, bytes]]:
    """(file name, content) of the sitemap file(s) and robots.txt; no sitemap without urls."""
    limits = limits or SitemapLimits()
    origin = ascii_origin(site_url)
    entries = sitemap_entries(pages, origin)
    base = urlsplit(origin).path
    if not entries:
        return [(ROBOTS_FILE, robots_txt(None, base))]
    whole = _urlset(entries) if len(entries) <= limits.max_urls else None
    if whole is not None and len(whole) <= limits.max_bytes:
        chunks = [entries]  # what _chunks decides when all fits, without sizing each entry
    else:
        whole = None
        chunks = _chunks(entries, limits)
    files: list[tuple[str, bytes]]
    if len(chunks) == 1:
        files = [(SITEMAP_FILE, whole or _urlset(chunks[0]))]
    else:
        if len(chunks) > limits.max_urls:
            raise WriteError(f"{len(chunks)} sitemap files are more than one index can list")
        names = [f"sitemap-{number}.xml" for number in range(1, len(chunks) + 1)]
        files = [(name, _urlset(chunk)) for name, chunk in zip(names, chunks, strict=True)]
        index = [
            SitemapEntry(f"{origin}/{name}", _latest(chunk))
            for name, chunk in zip(names, chunks, strict=True)
        ]
        files.append((SITEMAP_FILE, _index(index)))
    files.append((ROBOTS_FILE, robots_txt(f"{origin}/{SITEMAP_FILE}", base)))
    return files


def robots_txt(sitemap_url: str | None, base_path: str = "") -> bytes:
    """robots.txt of a site at ``base_path`` ("" or "/shop"); crawlers read it only at a host's
    root, so under a prefix it is the lines to merge into the host's own."""
    lines = ["User-agent: *", f"Allow: {base_path}/"]
    if sitemap_url:
        lines += ["", f"Sitemap: {sitemap_url}"]
    return ("\n".join(lines) + "\n").encode()


def ascii_origin(site_url: str) -> str:
    """The site origin without a trailing slash, its host in IDNA (locs must be ASCII)."""
    parts = urlsplit(site_url.rstrip("/"))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WriteError(f"the site url {site_url!r} is not an absolute http(s) origin")
    netloc = parts.netloc
    if not netloc.isascii():
        host = parts.hostname.encode("idna").decode("ascii")
        netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _chunks(entries: Sequence[SitemapEntry], limits: SitemapLimits) -> list[list[SitemapEntry]]:
    """Greedy split: each chunk within max_urls and, serialized, within max_bytes."""
    frame = len(_XML_DECLARATION) + len(_urlset_frame())
    chunks: list[list[SitemapEntry]] = [[]]
    size = frame
    for entry in entries:
        cost = _entry_size("url", entry)
        if frame + cost > limits.max_bytes:
            raise WriteError(f"one sitemap entry is larger than {limits.max_bytes} bytes")
        current = chunks[-1]
        if current and (len(current) >= limits.max_urls or size + cost > limits.max_bytes):
            chunks.append([])
            size = frame
        chunks[-1].append(entry)
        size += cost
    return chunks


def _urlset(entries: Iterable[SitemapEntry]) -> bytes:
    return _document("urlset", "url", entries)


def _index(entries: Iterable[SitemapEntry]) -> bytes:
    return _document("sitemapindex", "sitemap", entries)


def _document(root_name: str, child_name: str, entries: Iterable[SitemapEntry]) -> bytes:
    lines = [_XML_DECLARATION, _open(root_name)]
    lines.extend(_entry(child_name, entry) for entry in entries)
    lines.append(f"</{root_name}>\n")
    return "".join(lines).encode("utf-8")


def _open(root_name: str) -> str:
    """The root's start tag, the sitemap namespace declared as the default namespace."""
    return f'<{root_name} xmlns="{SITEMAP_NS}">\n'


def _entry(name: str, entry: SitemapEntry) -> str:
    if _NOT_XML.search(entry.loc):
        raise WriteError(f"the sitemap loc {entry.loc!r} has characters XML cannot carry")
    loc = entry.loc.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if entry.lastmod is None:
        return f"<{name}><loc>{loc}</loc></{name}>\n"
    stamp = entry.lastmod
    if stamp.tzinfo is not UTC:  # the API's instants are mostly in UTC already
        stamp = stamp.astimezone(UTC)
    lastmod = stamp.isoformat(timespec="seconds")
    return f"<{name}><loc>{loc}</loc><lastmod>{lastmod}</lastmod></{name}>\n"


def _entry_size(name: str, entry: SitemapEntry) -> int:
    """The bytes one entry adds to its file."""
    return len(_entry(name, entry).encode("utf-8"))


def _urlset_frame() -> str:
    """An empty urlset, i.e. what every file costs besides its urls."""
    return _open("urlset") + "</urlset>\n"


def _latest(entries: Iterable[SitemapEntry]) -> datetime | None:
    return max((e.lastmod for e in entries if e.lastmod is not None), default=None)
