"""How the crawler asks: through the client, waiting out 429s, decoding records as it reads.

Does: wait out a 429 (the client has already recorded its Retry-After as the limiter's
"blocked until" instant, so no request of this key goes out inside the window) and ask again,
at most ``rate_limit_waits`` times; treat an absent optional endpoint (404/405/410) as ``None``;
decode each record with a ``normalize`` function and turn a ``WireValueError`` into an
``ApiPayloadError`` naming the endpoint; run many fetches with bounded concurrency.

With a crawl cache (``generator.crawl.cache``) it also: answers a request whose ``version``
matches the cached one from the cache without asking the API (a detail whose list entry has not
moved); asks everything else with ``If-None-Match`` when an ETag is known (a 304 reuses the
cached body); stores every answer for the next build; and digests the unversioned answers
(context, lists, sitemap) so phases can version what depends on them (``stamp``). Offline
(``--from-cache``) every answer comes from the cache, and a missing one is a ``CacheMiss``.
A cached body is read (decoded and normalized) at most once per build, and what reading it gave
is kept in the cache with it, so the next build replays it without decoding (``_memo``).
``listing`` serves the first page of a list whose version depends on what it listed last time
(``versions``).

Does NOT: retry 5xx (the client does), decide what to fetch (the crawl phases do).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from typing import TYPE_CHECKING, Final, Generic, TypeVar, cast

import anyio
import anyio.lowlevel

from generator.client import (
    ApiResponse,
    ListBound,
    Page,
    Params,
    describe_endpoint,
    parse_page,
    walk_parsed_pages,
)
from generator.crawl.cache import (
    NO_READING,
    CachedAnswer,
    CacheMiss,
    CrawlCache,
    encode_body,
)
from generator.crawl.events import EventScope
from generator.crawl.normalize import WireValueError
from generator.crawl.settings import CrawlSettings
from generator.errors import ApiPayloadError, ApiStatusError, RateLimited, StorefrontError

if TYPE_CHECKING:  # the client brings httpx, which a crawl from the cache alone never needs
    from generator.client.api import ApiClient

T = TypeVar("T")
R = TypeVar("R")


class Missing(Enum):
    """``replayed`` found nothing it could replay without asking."""

    MISSING = "missing"


MISSING: Final = Missing.MISSING

#: Statuses by which an implementation says it does not offer something.
ABSENT_STATUSES = frozenset({404, 405, 410})


@contextmanager
def reading(endpoint: str) -> Iterator[None]:
    """Name the endpoint in any wire value error raised while decoding its answer."""
    try:
        yield
    except WireValueError as exc:
        raise ApiPayloadError(str(exc), endpoint=endpoint) from exc


def is_absent(exc: ApiStatusError) -> bool:
    return exc.status in ABSENT_STATUSES


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
        self.client = client
        self.scope = scope
        self.replay_kept = replay_kept
        self.fresh = fresh
        #: The keys this fetcher asked the API about.
        self.asked: set[str] = set()
        self.settings = settings
        self.cache = cache
        #: ``stamp()`` once the lists are read: the version of what derives from them.
        self.lists_stamp: str | None = None
        self._unversioned: dict[str, str] = {}
        #: (key, reading name) -> (the digest of the body read, what reading it gave).
        self._values: dict[tuple[str, str], tuple[str, object]] = {}

    @property
    def max_pages(self) -> int:
        """The longest cursor walk; offline, the cached walk is as long as it was."""
        return self.client.settings.max_pages if self.client is not None else 1_000_000

    def stamp(self) -> str:
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
        if self.cache is None:
            assert self.client is not None  # no cache means a live crawl
            return await self._ask(path, params, None)
        key, answer = await self._cached(path, params, version)
        return ApiResponse(key, answer.status, answer.data, answer.etag)

    async def _cached(
        self, path: str, params: Params | None, version: str | None
    ) -> tuple[str, CachedAnswer]:
        """The answer as the cache keeps it: the cached one when ``version`` has not moved
        (or offline), else asked again (with ``If-None-Match``) and stored."""
        assert self.cache is not None
        key = describe_endpoint(path, params)
        known = self.cache.lookup(key)
        if known is not None and version is None and key in self.fresh:
            return key, self._remember(key, version, known)  # asked moments ago, kept already
        if (
            self.client is None
            or (self.replay_kept and known is not None)
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
            self.cache.carry_over(key, known)
            if self.client is not None:
                # A replay gives the other jobs their turn: a listing waiting to send its
                # next request does not wait for every other listing's replay.
                await anyio.lowlevel.checkpoint()
            return key, self._remember(key, version, known)
        headers = {"If-None-Match": known.etag} if known is not None and known.etag else None
        try:
            answer = await self._ask(path, params, headers)
        except ApiStatusError as exc:
            if is_absent(exc) and not isinstance(exc, RateLimited):
                self.cache.store(key, CachedAnswer(exc.status, version, None, b"null"))
                self.asked.add(key)
            raise
        self.asked.add(key)
        if answer.not_modified and known is not None and known.status == 200:
            cached = known.with_version(version)
        else:
            body = encode_body(answer.data)
            cached = CachedAnswer(answer.status, version, answer.etag, body, decoded=answer.data)
        self.cache.store(key, cached)
        return key, self._remember(key, version, cached)

    def _asked_anew(self, key: str) -> bool:
        """An answer the rebuild's events name (a product whose stock moved): asked again, with
        its ETag, whatever its version says (its list entry may not have moved)."""
        return self.client is not None and self.scope is not None and self.scope.asks(key)

    def _unmoved(self, key: str, version: str | None, known: CachedAnswer | None) -> bool:
        """A list page the rebuild's events cannot have moved (see ``events``), whatever its
        version says."""
        return (
            self.scope is not None
            and known is not None
            and known.status == 200
            and self.scope.replays(key, lambda: known.data)
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
        if self.cache is None:
            assert self.client is not None
            response = await self._ask(path, params, None)
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
        stored = NO_READING if self.cache is None else self.cache.reading(key, answer, name)
        if stored is not NO_READING:
            value = cast(R, stored)
        else:
            value = read(key, answer.data)
            if self.cache is not None:
                self.cache.add_reading(key, answer, name, value)
        self._values[slot] = (answer.digest, value)
        return value

    async def listing(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params,
        *,
        version: Callable[[list[T] | None], str],
    ) -> tuple[list[T], bool]:
        """The first page of a list whose version depends on what it lists.

        ``version(items)`` is its version given the items it held (None: none known). The
        cached page is replayed while ``version`` of its own items still matches the version
        stored with it; a page asked again is stored with ``version`` of its new items."""
        if self.cache is None:
            return await self.first_page(path, parse, params)
        read = _first_page_of(parse)
        name = _reading_name("first", parse)
        return await self._versioned(path, params, version, name, read, lambda page: page[0])

    async def listing_walk(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params,
        *,
        version: Callable[[list[T] | None], str],
        bound: ListBound | None = None,
    ) -> list[T]:
        """Every page of a list whose version depends on what it lists, cursor after cursor.

        Each page is versioned as ``listing`` versions a first page, by ``version`` of its own
        items: a cached page is replayed (its cursor with it) while that still matches, so an
        unchanged listing costs no request, and a changed one asks again only from the first
        page whose items moved."""
        if self.cache is None:
            return await self.all(path, parse, params, bound=bound)
        name = _reading_name("page", parse)
        read = _page_of(parse)

        def items_of(read_page: tuple[str, Page]) -> list[T]:
            return list(cast(tuple[T, ...], read_page[1].items))

        async def fetch_page(page_params: Params) -> tuple[str, Page]:
            return await self._versioned(path, page_params, version, name, read, items_of)

        items: list[T] = []
        pages = walk_parsed_pages(fetch_page, params, max_pages=self.max_pages, bound=bound)
        async for page in pages:
            items.extend(cast(tuple[T, ...], page.items))
        return items

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
        assert self.cache is not None
        key = describe_endpoint(path, params)
        known = self.cache.lookup(key)
        held = (
            items_of(self._memo(key, known, name, read))
            if known is not None and known.status == 200
            else None
        )
        before = version(held)
        found = await self._read(path, params, before, name, read)
        after = version(items_of(found))
        stored = self.cache.lookup(key)
        if after != before and stored is not None:
            self.cache.store(key, stored.with_version(after))
        return found

    async def _ask(
        self, path: str, params: Params | None, headers: dict[str, str] | None
    ) -> ApiResponse:
        """One answer from the API, waiting out up to ``rate_limit_waits`` 429s."""
        assert self.client is not None
        waits = 0
        while True:
            try:
                return await self.client.get(path, params, headers=headers)
            except RateLimited as exc:
                waits += 1
                if waits > self.settings.rate_limit_waits:
                    raise
                if exc.retry_after > self.settings.max_retry_after:
                    raise ApiStatusError(
                        f"rate limited for {exc.retry_after:g} s, longer than the "
                        f"{self.settings.max_retry_after:g} s a build waits; try again later",
                        endpoint=exc.endpoint,
                        status=429,
                    ) from exc
                # No sleep here: the client has set the limiter's blocked-until instant from
                # this answer, so the next attempt (and every other task's request) waits in
                # the limiter until the window has passed.

    def replayed(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None,
    ) -> T | Missing:
        """``one`` of an answer the cache can replay as it is (its version has not moved, or
        offline), without a task switch; ``MISSING`` when it would have to be asked."""
        found = self._replayable(describe_endpoint(path, params), version)
        if found is None:
            return MISSING

        def read(endpoint: str, data: object) -> T:
            with reading(endpoint):
                return parse(data)

        return self._memo(found[0], found[1], _reading_name("one", parse), read)

    def replayed_all(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None,
    ) -> list[T] | Missing:
        """``all`` of a list the cache can replay page after page as it is; ``MISSING`` when a
        page would have to be asked."""
        name, read = _reading_name("page", parse), _page_of(parse)

        def page_at(key: str) -> Page | None:
            found = self._replayable(key, version)
            return None if found is None else self._memo(found[0], found[1], name, read)[1]

        # A cursor seen before ends the walk unfinished: the asking walk reports the loop.
        items, whole = self._cached_walk(path, params, page_at)
        return cast(list[T], items) if whole else MISSING

    def _cached_walk(
        self, path: str, params: Params | None, page_at: Callable[[str], Page | None]
    ) -> tuple[list[object], bool]:
        """The items of a list's pages that ``page_at`` gives from the cache by their key, cursor
        after cursor, and whether the walk reached the list's last page (not: a page missing,
        or a cursor seen before)."""
        base = dict(params or {})
        items: list[object] = []
        sent: set[str] = set()
        cursor: str | None = None
        for _ in range(self.max_pages):
            page_params = base if cursor is None else {**base, "cursor": cursor}
            page = page_at(describe_endpoint(path, page_params))
            if page is None:
                return items, False
            items.extend(page.items)
            if not page.has_more or page.next_cursor is None:
                return items, True
            if page.next_cursor in sent:
                return items, False
            sent.add(page.next_cursor)
            cursor = page.next_cursor
        return items, False

    def replayed_reading(self, path: str, name: str, *, version: str | None) -> object:
        """What this crawl cache keeps as ``name`` with the answer of ``path``, when it can be
        replayed as it is (see ``replayed``); ``MISSING`` when it cannot or has no such reading.
        The body is not read."""
        found = self._replayable(describe_endpoint(path, None), version)
        if found is None or self.cache is None:
            return MISSING
        stored = self.cache.reading(found[0], found[1], name)
        return MISSING if stored is NO_READING else stored

    def prefetch_readings(self, paths: Iterable[str]) -> None:
        """Read ahead, in one query, what the crawl cache keeps with the answers of ``paths``
        (``replayed_reading`` is about to ask for each)."""
        if self.cache is not None:
            self.cache.prefetch_readings(describe_endpoint(path, None) for path in paths)

    def keep_replayable(self, key: str, version: str | None) -> bool:
        """Keep the answer of ``key`` as it is when it can be replayed; False when it cannot."""
        return self._replayable(key, version) is not None

    def add_reading(self, path: str, name: str, value: object) -> None:
        """Keep ``value`` as reading ``name`` of the answer this crawl has for ``path``."""
        key = describe_endpoint(path, None)
        answer = self.cache.lookup(key) if self.cache is not None else None
        if self.cache is not None and answer is not None:
            self.cache.add_reading(key, answer, name, value)

    def _replayable(self, key: str, version: str | None) -> tuple[str, CachedAnswer] | None:
        if self.cache is None:
            return None
        known = self.cache.lookup(key)
        if known is None or known.status != 200:
            return None
        moved = version is None or known.version != version or self._asked_anew(key)
        if self.client is not None and moved and not self.replay_kept:
            return None
        self.cache.carry_over(key, known)
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

    async def optional(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
        keep_reading: bool = True,
    ) -> T | None:
        """Like ``one``, but None when the implementation answers 404/405/410."""
        return await _unless_absent(
            self.one(path, parse, params, version=version, keep_reading=keep_reading)
        )

    async def all(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
        on_items: Callable[[Sequence[T]], None] | None = None,
        bound: ListBound | None = None,
    ) -> list[T]:
        """Every item of a list endpoint, cursor after cursor, each decoded by ``parse``;
        ``on_items`` is handed each page's items as they come; past ``bound`` the walk fails."""
        walked = await self.walk(
            path, parse, params, version=version, on_items=on_items, bound=bound
        )
        return walked[0]

    async def walk(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
        keep_reading: bool = True,
        on_items: Callable[[Sequence[T]], None] | None = None,
        bound: ListBound | None = None,
    ) -> tuple[list[T], tuple[str, ...]]:
        """``all``, with the keys of the pages it read (``keep_replayable`` keeps them);
        ``keep_reading`` as in ``one``."""
        name = _reading_name("page", parse) if keep_reading else None
        read = _page_of(parse)
        keys: list[str] = []

        async def fetch_page(page_params: Params) -> tuple[str, Page]:
            keys.append(describe_endpoint(path, page_params))
            return await self._read(path, page_params, version, name, read)

        items: list[T] = []
        pages = walk_parsed_pages(fetch_page, params, max_pages=self.max_pages, bound=bound)
        async for page in pages:
            found = cast(tuple[T, ...], page.items)
            items.extend(found)
            if on_items is not None:
                on_items(found)
        return items, tuple(keys)

    async def optional_walk(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
        keep_reading: bool = True,
    ) -> tuple[list[T], tuple[str, ...]] | None:
        return await _unless_absent(
            self.walk(path, parse, params, version=version, keep_reading=keep_reading)
        )

    async def optional_all(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
        bound: ListBound | None = None,
    ) -> list[T] | None:
        return await _unless_absent(self.all(path, parse, params, version=version, bound=bound))

    async def optional_first_page(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
    ) -> tuple[list[T], bool] | None:
        return await _unless_absent(self.first_page(path, parse, params, version=version))

    async def first_page(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
    ) -> tuple[list[T], bool]:
        """The items of the first page only, and whether the list has more."""
        return await self._read(
            path, params, version, _reading_name("first", parse), _first_page_of(parse)
        )


def _page_of(parse: Callable[[object], object]) -> Callable[[str, object], tuple[str, Page]]:
    """Reads one page of a walk: (endpoint, the page with its items decoded by ``parse``)."""

    def read(endpoint: str, data: object) -> tuple[str, Page]:
        page = parse_page(data, endpoint=endpoint)
        with reading(endpoint):
            parsed = tuple(parse(item) for item in page.items)
        return endpoint, Page(parsed, page.next_cursor, page.has_more)

    return read


def _first_page_of(parse: Callable[[object], T]) -> Callable[[str, object], tuple[list[T], bool]]:
    def read(endpoint: str, data: object) -> tuple[list[T], bool]:
        page = parse_page(data, endpoint=endpoint)
        with reading(endpoint):
            return [parse(item) for item in page.items], page.has_more

    return read


def _reading_name(kind: str, parse: Callable[[object], object]) -> str | None:
    """A stable name for reading an answer with ``parse`` (None for a lambda or a local
    function, which two readings could share by name)."""
    qualname = getattr(parse, "__qualname__", "<")
    if "<" in qualname:
        return None
    return f"{kind} {parse.__module__}.{qualname}"


def entity_version(entry: object, lists_stamp: str | None = None) -> str:
    """The version of a detail: a digest of the list entry that describes it (a frozen
    dataclass: its card or summary, with ``updated_at`` and prices), so a detail is asked again
    exactly when its entry moved."""
    text = repr(entry) if lists_stamp is None else f"{entry!r}\0{lists_stamp}"
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


async def _unless_absent(call: Awaitable[T]) -> T | None:
    """The result of ``call``, or None when the implementation does not offer the endpoint."""
    try:
        return await call
    except ApiStatusError as exc:
        if isinstance(exc, RateLimited) or not is_absent(exc):
            raise
        return None


async def gather_limited(
    items: Sequence[T], fetch: Callable[[T], Awaitable[R]], *, limit: int
) -> list[R]:
    """``fetch`` of every item, at most ``limit`` at once, results in input order.

    ``limit`` workers share one queue of indexes, so a store of 20,000 products costs a few
    tasks, not 20,000. The first ``StorefrontError`` cancels the rest and is raised as itself
    (not wrapped in an exception group), so the command line can print it on one line.
    """
    results: dict[int, R] = {}
    failures: list[StorefrontError] = []
    pending = iter(range(len(items)))

    async with anyio.create_task_group() as group:

        async def worker() -> None:
            for index in pending:  # shared: each index is taken by exactly one worker
                try:
                    results[index] = await fetch(items[index])
                except StorefrontError as exc:
                    failures.append(exc)
                    group.cancel_scope.cancel()
                    return

        for _ in range(min(limit, len(items))):
            group.start_soon(worker)
    if failures:
        raise failures[0]
    return [results[index] for index in range(len(items))]


async def run_concurrently(jobs: Sequence[Callable[[], Awaitable[None]]], *, limit: int) -> None:
    """Run independent jobs at once (at most ``limit``); the first failure stops them all."""

    async def run(job: Callable[[], Awaitable[None]]) -> None:
        await job()

    await gather_limited(jobs, run, limit=limit)


class Later(Generic[T]):  # noqa: UP046  (Python 3.11: no PEP 695 syntax)
    """The result of a job run concurrently with others, read once they have all finished."""

    def __init__(self) -> None:
        self._value: T | None = None
        self._done = False

    def job(self, make: Callable[[], Awaitable[T]]) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            self._value = await make()
            self._done = True

        return run

    @property
    def value(self) -> T:
        if not self._done:
            raise RuntimeError("read before its job finished")
        return self._value  # type: ignore[return-value]  # set by the finished job
