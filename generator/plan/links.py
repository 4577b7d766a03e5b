"""The one rule that decides whether a url from the API becomes a link.

Every link of the theme (menus, breadcrumbs, lists, cards, banners, promotions) goes through
``Links.href``; it returns the ``href`` to write, or ``None`` for plain text:

- ``None`` (the spec's null url) -> plain text;
- an internal path (``/...``) -> a link only when the build writes a page there; paths that
  resolve to nothing (``Catalog.dead_paths``), that are unsafe, or simply have no page, stay
  text so the site never links to its own 404. A page that names another as its canonical (a
  merchant's custom path to a product, say) is linked at that canonical: search engines ask
  sites to link the url they index. A ``#fragment`` is kept;
- an absolute ``http``/``https`` url with a host -> a link, as given;
- anything else (``javascript:``, ``//host``, relative paths, ``mailto:`` from data, a
  backslash anywhere) -> text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from urllib.parse import quote, urlsplit

from generator.errors import UnsafePath
from generator.plan.paths import page_key, public_path

_FRAGMENT_SAFE = "!$&'()*+,;=:@/?"


class Links:
    """Knows the pages a build writes (by ``page_key``) and turns urls into hrefs."""

    __slots__ = ("_keys", "_hrefs", "aliases", "_canonical")

    def __init__(self, page_paths: Iterable[str], aliases: Iterable[tuple[str, str]] = ()) -> None:
        """``aliases``: (path, canonical path) of each page that names another as canonical."""
        self._keys = frozenset(page_key(path) for path in page_paths)
        self.aliases = tuple(aliases)
        self._canonical = {page_key(path): public_path(to) for path, to in self.aliases}
        # Menus and cards repeat the same urls on every page; decide each url once.
        self._hrefs: dict[str, str | None] = {}

    @classmethod
    def of_keys(cls, keys: Iterable[str], aliases: Iterable[tuple[str, str]] = ()) -> Links:
        """The ``Links`` of the pages whose ``page_key`` are ``keys`` (worked out already)."""
        links = cls((), aliases)
        links._keys = frozenset(keys)
        return links

    def href(self, url: str | None) -> str | None:
        if not url:
            return None
        try:
            return self._hrefs[url]
        except KeyError:
            pass
        if url.startswith("/") and not url.startswith("//"):
            found = self._internal(url)
        else:
            found = external_link(url)
        self._hrefs[url] = found
        return found

    def page_keys(self) -> frozenset[str]:
        """The ``page_key`` of every page this build writes."""
        return self._keys

    def is_page(self, url_path: str) -> bool:
        try:
            return page_key(url_path) in self._keys
        except UnsafePath:
            return False

    def _internal(self, url: str) -> str | None:
        path, hash_mark, fragment = url.partition("#")
        if not self.is_page(path):
            return None
        target = self._canonical.get(page_key(path)) if self._canonical else None
        if target is None:
            target = public_path(path)
        if not hash_mark:
            return target
        return target + "#" + quote(fragment, safe=_FRAGMENT_SAFE)


def external_link(url: str) -> str | None:
    """``url`` when it is an http(s) link with a host, as it may be written in an href."""
    # A backslash is a slash to browsers, not to urlsplit: the host they see is another.
    if "\\" in url or any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an invalid IPv6 host
        return None
    if parts.scheme in ("http", "https") and parts.hostname:
        return url
    return None


class RecordingLinks(Links):
    """``Links`` that remembers every url it was asked about (one per page render).

    ``capture()`` also collects the urls asked inside a block (a fragment being rendered for
    the first time), and ``replay(urls)`` records them again for a page that reuses the block's
    output without asking (see ``fragments``)."""

    __slots__ = ("_inner", "asked", "_captures")

    def __init__(self, inner: Links) -> None:  # no super().__init__: it delegates
        self._inner = inner
        self.asked: dict[str, None] = {}
        self._captures: list[dict[str, None]] = []

    def href(self, url: str | None) -> str | None:
        if url:
            self._ask(url)
        return self._inner.href(url)

    def page_keys(self) -> frozenset[str]:
        return self._inner.page_keys()

    def is_page(self, url_path: str) -> bool:
        self._ask(url_path)
        return self._inner.is_page(url_path)

    def _ask(self, url: str) -> None:
        self.asked[url] = None
        for captured in self._captures:
            captured[url] = None

    @contextmanager
    def capture(self) -> Iterator[dict[str, None]]:
        """The urls asked inside the block, in the order first asked."""
        captured: dict[str, None] = {}
        self._captures.append(captured)
        try:
            yield captured
        finally:
            self._captures.pop()  # blocks nest, so the last one opened closes first

    def replay(self, urls: Iterable[str]) -> None:
        """Record ``urls`` as if asked now, in their order (a dict's update keeps the place of
        a url asked before and appends the others in order, as asking each would)."""
        asked = dict.fromkeys(urls)
        self.asked.update(asked)
        for captured in self._captures:
            captured.update(asked)
