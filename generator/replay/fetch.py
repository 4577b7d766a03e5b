"""The crawl's ``Api`` (``crawl.ask``) as a build implements it: asked, replayed or revalidated.

Asks through the client (``ask_waiting``: 429s waited out), decoding each answer with the
phase's ``parse``. With a crawl cache (``replay.cache``) it also: answers a request whose
``version`` matches the cached one from the cache without asking the API (a detail whose list
entry has not moved); asks everything else with ``If-None-Match`` when an ETag is known (a 304
reuses the cached body); stores every answer for the next build; and digests the unversioned
answers (context, lists, sitemap) so phases can version what depends on them (``read_so_far``).
Offline (``--from-cache``) every answer comes from the cache, and a missing one is a
``CacheMiss``. A cached body is read (decoded and normalized) at most once per build, and what
reading it gave is kept in the cache with it, so the next build replays it without decoding
(``_memo``). A list whose version is a function of its items is replayed page by page while
that function of what it listed last time still gives the version stored with it
(``_versioned``).

Does NOT: retry 5xx (the client does), decide what to fetch (the crawl phases do).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar, cast

import anyio
import anyio.lowlevel

from generator.client import (
    ApiResponse,
    ListBound,
    Page,
    Params,
    describe_endpoint,
    walk_parsed_pages,
)
from generator.crawl.ask import (
    ListVersion,
    Walked,
    ask_waiting,
    first_page_of,
    is_absent,
    page_of,
    reading,
)
from generator.crawl.settings import CrawlSettings
from generator.errors import ApiStatusError, RateLimited
from generator.replay.cache import (
    NO_READING,
    CachedAnswer,
    CacheMiss,
    CrawlCache,
    encode_body,
)
from generator.replay.events import EventScope

if TYPE_CHECKING:  # the client brings httpx, which a crawl from the cache alone never needs
    from generator.client.api import ApiClient

T = TypeVar("T")
R = TypeVar("R")


class Fetcher:
    def __init__(
        self,
        client: ApiClient | None,
        settings: CrawlSettings,
        *,
        cache: CrawlCache | None = None,
        scope: EventScope | None = None,
        replay_kept: bool = False,
        fresh: frozenset[str] = frozenset(),
    ) -> None:
        """``client`` None means offline: every answer comes from ``cache``. ``scope``: the
        content-change events of a rebuild, whose unmoved list pages are replayed as they are.
        ``replay_kept``: every answer the cache holds is replayed as it is, whatever its version
        (a continued crawl's first pass, see ``resume``). ``fresh``: the keys of unversioned
        answers (lists, context) this process asked already, replayed as they are."""
        self._client = client
        self._settings = settings
        self._scope = scope
        self._replay_kept = replay_kept
        self._fresh = fresh
        #: The keys this fetcher asked the API about.
        self.asked: set[str] = set()
        self._cache = cache
        self._unversioned: dict[str, str] = {}
        #: (key, reading name) -> (the digest of the body read, what reading it gave).
        self._values: dict[tuple[str, str], tuple[str, object]] = {}

    @property
    def _max_pages(self) -> int:
        """The longest cursor walk; offline, the cached walk is as long as it was."""
        return self._client.settings.max_pages if self._client is not None else 1_000_000

    @property
    def settings(self) -> CrawlSettings:
        return self._settings

    def read_so_far(self) -> str:
        """A digest of every unversioned answer read so far (context, lists, sitemap).

        Whatever the crawl derives from those answers alone - category and collection product
        pages, route resolutions - can use it as its version: when no list moved, neither did
        they."""
        digest = hashlib.sha1(usedforsecurity=False)
        for key, body_digest in sorted(self._unversioned.items()):
            digest.update(f"{key}\0{body_digest}\n".encode())
        return digest.hexdigest()

    async def response(
        self, path: str, params: Params | None = None, *, version: str | None = None
    ) -> ApiResponse:
        """One answer (from the cache when ``version`` has not moved), waiting out 429s."""
        if self._cache is None:
            assert self._client is not None  # no cache means a live crawl
            return await ask_waiting(self._client, self._settings, path, params, None)
        key, answer = await self._cached(path, params, version)
        return ApiResponse(key, answer.status, answer.data, answer.etag)

    async def _cached(
        self, path: str, params: Params | None, version: str | None
    ) -> tuple[str, CachedAnswer]:
        """The answer as the cache keeps it: the cached one when ``version`` has not moved
        (or offline), else asked again (with ``If-None-Match``) and stored."""
        assert self._cache is not None
        key = describe_endpoint(path, params)
        known = self._cache.lookup(key)
        if known is not None and version is None and key in self._fresh:
            return key, self._remember(key, version, known)  # asked moments ago, kept already
        if (
            self._client is None
            or (self._replay_kept and known is not None)
            or (
                not self._asked_anew(key)
                and (
                    (
                        version is not None
                        and known is not None
                        and known.version == version
                        and known.status == 200
                    )
                    or self._unmoved(key, version, known)
                )
            )
        ):
            if known is None:
                raise CacheMiss(
                    f"--from-cache: the last crawl has no answer for {key}; "
                    "run a build with the API first"
                )
            self._cache.carry_over(key, known)
            if self._client is not None:
                # A replay gives the other jobs their turn: a listing waiting to send its
                # next request does not wait for every other listing's replay.
                await anyio.lowlevel.checkpoint()
            return key, self._remember(key, version, known)
        headers = {"If-None-Match": known.etag} if known is not None and known.etag else None
        try:
            answer = await self._ask(path, params, headers)
        except ApiStatusError as exc:
            if is_absent(exc) and not isinstance(exc, RateLimited):
                self._cache.store(key, CachedAnswer(exc.status, version, None, b"null"))
                self.asked.add(key)
            raise
        self.asked.add(key)
        if answer.not_modified and known is not None and known.status == 200:
            cached = known.with_version(version)
        else:
            body = encode_body(answer.data)
            cached = CachedAnswer(answer.status, version, answer.etag, body, decoded=answer.data)
        self._cache.store(key, cached)
        return key, self._remember(key, version, cached)

    def _asked_anew(self, key: str) -> bool:
        """An answer the rebuild's events name (a product whose stock moved): asked again, with
        its ETag, whatever its version says (its list entry may not have moved)."""
        return self._client is not None and self._scope is not None and self._scope.asks(key)

    def _unmoved(self, key: str, version: str | None, known: CachedAnswer | None) -> bool:
        """A list page the rebuild's events cannot have moved (see ``events``), whatever its
        version says."""
        return (
            self._scope is not None
            and known is not None
            and known.status == 200
            and self._scope.replays(key, lambda: known.data)
        )

    def _remember(self, key: str, version: str | None, answer: CachedAnswer) -> CachedAnswer:
        if answer.status != 200:  # an absent answer replayed offline
            raise ApiStatusError("not offered (cached answer)", endpoint=key, status=answer.status)
        if version is None:
            self._unversioned[key] = answer.digest
        return answer

    async def _read(
        self,
        path: str,
        params: Params | None,
        version: str | None,
        name: str | None,
        read: Callable[[str, object], R],
    ) -> R:
        """``read(endpoint, data)`` of one answer. A cached body is decoded and read at most
        once per build and ``name`` (the reading's stable name; None: not memoized)."""
        if self._cache is None:
            assert self._client is not None
            response = await ask_waiting(self._client, self._settings, path, params, None)
            return read(response.endpoint, response.data)
        key, answer = await self._cached(path, params, version)
        return self._memo(key, answer, name, read)

    def _memo(
        self, key: str, answer: CachedAnswer, name: str | None, read: Callable[[str, object], R]
    ) -> R:
        if name is None:
            return read(key, answer.data)
        slot = (key, name)
        found = self._values.get(slot)
        if found is not None and found[0] == answer.digest:
            return cast(R, found[1])
        stored = NO_READING if self._cache is None else self._cache.reading(key, answer, name)
        if stored is not NO_READING:
            value = cast(R, stored)
        else:
            value = read(key, answer.data)
            if self._cache is not None:
                self._cache.add_reading(key, answer, name, value)
        self._values[slot] = (answer.digest, value)
        return value

    async def _versioned(
        self,
        path: str,
        params: Params,
        version: Callable[[list[T] | None], str],
        name: str | None,
        read: Callable[[str, object], R],
        items_of: Callable[[R], list[T]],
    ) -> R:
        """One list page whose version is ``version`` of the items it held: replayed while
        that still matches the version stored with it; asked again, it is stored with
        ``version`` of its new items."""
        assert self._cache is not None
        key = describe_endpoint(path, params)
        known = self._cache.lookup(key)
        held = (
            items_of(self._memo(key, known, name, read))
            if known is not None and known.status == 200
            else None
        )
        before = version(held)
        found = await self._read(path, params, before, name, read)
        after = version(items_of(found))
        stored = self._cache.lookup(key)
        if after != before and stored is not None:
            self._cache.store(key, stored.with_version(after))
        return found

    async def _ask(
        self, path: str, params: Params | None, headers: dict[str, str] | None
    ) -> ApiResponse:
        assert self._client is not None
        return await ask_waiting(self._client, self._settings, path, params, headers)

    def expect(self, paths: Iterable[str]) -> None:
        """Read ahead, in one query, what the crawl cache keeps with the answers of ``paths``
        (``kept`` is about to be asked for each)."""
        if self._cache is not None:
            self._cache.prefetch_readings(describe_endpoint(path, None) for path in paths)

    def kept(
        self, path: str, name: str, *, version: str | None
    ) -> tuple[object, tuple[str, ...]] | None:
        """What this crawl cache keeps as ``name`` with the answer of ``path``, when that answer
        and those of the keys kept alongside can be replayed as they are (see ``keep``); the
        body is not read. None when they cannot, or there is no such reading."""
        found = self._replayable(describe_endpoint(path, None), version)
        if found is None or self._cache is None:
            return None
        stored = self._cache.reading(found[0], found[1], name)
        if stored is NO_READING or not isinstance(stored, tuple) or len(stored) != 2:
            return None
        value, alongside = stored
        if not isinstance(alongside, tuple):
            return None
        if not all(self._replayable(key, version) is not None for key in alongside):
            return None
        return value, alongside

    def keep(self, path: str, name: str, value: object, *, alongside: tuple[str, ...]) -> None:
        """Keep ``value`` as reading ``name`` of the answer this crawl has for ``path``, with
        the keys whose answers it was derived from as well (``kept`` replays it with them)."""
        key = describe_endpoint(path, None)
        answer = self._cache.lookup(key) if self._cache is not None else None
        if self._cache is not None and answer is not None:
            self._cache.add_reading(key, answer, name, (value, alongside))

    def _replayable(self, key: str, version: str | None) -> tuple[str, CachedAnswer] | None:
        if self._cache is None:
            return None
        known = self._cache.lookup(key)
        if known is None or known.status != 200:
            return None
        moved = version is None or known.version != version or self._asked_anew(key)
        if self._client is not None and moved and not self._replay_kept:
            return None
        self._cache.carry_over(key, known)
        return key, self._remember(key, version, known)

    async def one(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
        keep_reading: bool = True,
    ) -> T:
        """One record; ``keep_reading`` False: what it gave is not kept in the crawl cache (the
        caller keeps a reading of its own)."""

        def read(endpoint: str, data: object) -> T:
            with reading(endpoint):
                return parse(data)

        name = _reading_name("one", parse) if keep_reading else None
        return await self._read(path, params, version, name, read)

    async def walk(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: ListVersion[T] = None,
        keep_reading: bool = True,
        on_items: Callable[[Sequence[T]], None] | None = None,
        bound: ListBound | None = None,
    ) -> Walked[T]:
        """Every item of a list, cursor after cursor, with the keys of the pages it read.

        A list whose ``version`` is a function of its items has each page versioned by that
        function of its own items: a cached page is replayed (its cursor with it) while that
        still matches, so an unchanged listing costs no request, and a changed one asks again
        only from the first page whose items moved."""
        read = page_of(parse)
        keys: list[str] = []
        fetch_page: Callable[[Params], Awaitable[tuple[str, Page]]]
        if callable(version) and self._cache is not None:
            by_items = version
            listed = _reading_name("page", parse)

            def items_of(read_page: tuple[str, Page]) -> list[T]:
                return list(cast(tuple[T, ...], read_page[1].items))

            async def fetch_page(page_params: Params) -> tuple[str, Page]:
                keys.append(describe_endpoint(path, page_params))
                return await self._versioned(path, page_params, by_items, listed, read, items_of)

        else:
            fixed = None if callable(version) else version
            name = _reading_name("page", parse) if keep_reading else None

            async def fetch_page(page_params: Params) -> tuple[str, Page]:
                keys.append(describe_endpoint(path, page_params))
                return await self._read(path, page_params, fixed, name, read)

        items: list[T] = []
        pages = walk_parsed_pages(fetch_page, params, max_pages=self._max_pages, bound=bound)
        async for page in pages:
            found = cast(tuple[T, ...], page.items)
            items.extend(found)
            if on_items is not None:
                on_items(found)
        return Walked(items, tuple(keys))

    async def first_page(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: ListVersion[T] = None,
    ) -> tuple[list[T], bool]:
        """The items of the first page only, and whether the list has more. A ``version``
        that is a function of the items is worked out from the items the page held last time:
        the cached page is replayed while it still gives the version stored with it; a page
        asked again is stored with the version of its new items."""
        name = _reading_name("first", parse)
        read = first_page_of(parse)
        if callable(version) and self._cache is not None:
            return await self._versioned(
                path, params or {}, version, name, read, lambda page: page[0]
            )
        fixed = None if callable(version) else version
        return await self._read(path, params, fixed, name, read)


def _reading_name(kind: str, parse: Callable[[object], object]) -> str | None:
    """A stable name for reading an answer with ``parse`` (None for a lambda or a local
    function, which two readings could share by name)."""
    qualname = getattr(parse, "__qualname__", "<")
    if "<" in qualname:
        return None
    return f"{kind} {parse.__module__}.{qualname}"
