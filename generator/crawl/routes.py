"""Paths: which ones a crawl already explains, and what the rest resolve to.

Pure helpers (``path_key``, ``internal_path``, ``context_links``) plus ``resolve_paths``, which
sends each unexplained path to GET /routes/resolve. A 404 there means the path leads nowhere:
it becomes a dead path (links to it render as plain text). So does a path that resolves to a
type of entity the site has no page for (an implementation may know more types than the five
documented ones): that is reported, not fatal.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import unquote

from generator.crawl.ask import Api, absent_as_none, gather_limited
from generator.crawl.normalize import ENTITY_TYPES, WireValueError, route_target
from generator.crawl.observer import CrawlObserver
from generator.model import EntityType, MenuItem, SiteContext


def path_key(path: str) -> str:
    """The form two spellings of one path share: percent-decoded, NFC, no trailing slash."""
    if path.isascii() and "%" not in path:  # most paths: nothing to decode or normalize
        return path.rstrip("/") or "/"
    decoded = unicodedata.normalize("NFC", unquote(path))
    return decoded.rstrip("/") or "/"


def internal_path(link: str | None) -> str | None:
    """The path of a same-site link ("/a/b?x#y" -> "/a/b"); None for external or empty links."""
    if not link or not link.startswith("/") or link.startswith("//"):
        return None
    path = link.split("#", 1)[0].split("?", 1)[0]
    return path or None


def menu_links(items: Iterable[MenuItem]) -> Iterator[str]:
    for item in items:
        if item.url:
            yield item.url
        yield from menu_links(item.children)


def context_links(site: SiteContext) -> list[str]:
    """Every link of the shared page furniture: menus, banners, promotions."""
    links: list[str] = []
    for menu in site.menus:
        links.extend(menu_links(menu.items))
    links.extend(banner.link_url for banner in site.banners if banner.link_url)
    links.extend(promo.link_url for promo in site.promotions if promo.link_url)
    return links


def unexplained_paths(
    candidates: Iterable[str], known: Iterable[str], known_keys: Iterable[str] = ()
) -> list[str]:
    """Internal paths among ``candidates`` that no known page explains, first spelling kept;
    ``known_keys``: the ``path_key`` of more known pages, worked out already."""
    seen = set(known_keys)
    seen.update(path_key(path) for path in known)
    result: list[str] = []
    for link in candidates:
        path = internal_path(link)
        if path is None:
            continue
        key = path_key(path)
        if key not in seen:
            seen.add(key)
            result.append(path)
    return result


@dataclass(frozen=True, slots=True)
class Resolution:
    path: str
    target: tuple[EntityType, int] | None  # None: nothing the site can render is there
    other_type: str | None = None  # the undocumented type it resolved to, if that is why

    @property
    def reason(self) -> str:
        """Why a path without target leads nowhere, for the build summary."""
        if self.other_type is not None:
            return f"resolves to a {self.other_type!r}, which has no page type here"
        return "GET /routes/resolve answered 404"


def route_or_type(data: object) -> tuple[EntityType, int] | str:
    """The target of a /routes/resolve answer, or the name of an undocumented target type."""
    try:
        return route_target(data)
    except WireValueError:
        kind = data.get("type") if isinstance(data, Mapping) else None
        if isinstance(kind, str) and kind and kind not in ENTITY_TYPES:
            return kind
        raise


async def resolve_paths(
    api: Api, paths: list[str], *, version: str | None, observer: CrawlObserver
) -> list[Resolution]:
    """Each path's resolution; a cached one is reused while ``version`` (what can change a
    path's meaning, see ``versions.paths_version``) has not moved."""
    observer.phase_started("resolve", len(paths))

    async def resolve(path: str) -> Resolution:
        found = await absent_as_none(
            api.one("/routes/resolve", route_or_type, {"path": path}, version=version)
        )
        observer.item_done("resolve")
        if isinstance(found, str):
            return Resolution(path, None, other_type=found)
        return Resolution(path, found)

    return await gather_limited(paths, resolve, limit=api.settings.concurrency)
