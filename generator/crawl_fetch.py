"""How the crawler asks: through the client, waiting out 429s, decoding records as it reads.

Does: wait out a 429 (the client has already recorded its Retry-After as the limiter's
"blocked until" instant, so no request of this key goes out inside the window) and ask again,
at most ``rate_limit_waits`` times; treat an absent optional endpoint (404/405/410) as ``None``;
decode each record with a ``normalize`` function and turn a ``WireValueError`` into an
``ApiPayloadError`` naming the endpoint; run many fetches with bounded concurrency.

With a crawl cache (``generator.cache_crawl``) it also: answers a request whose ``version``
matches the cached one from the cache without asking the API (a detail whose list entry has not
moved); asks everything else with ``If-None-Match`` when an ETag is known (a 304 reuses the
cached body); stores every answer for the next build; and digests the unversioned answers
(context, lists, sitemap) so phases can version what depends on them (``stamp``). Offline
(``--from-cache``) every answer comes from the cache, and a missing one is a ``CacheMiss``.

Does NOT: retry 5xx (the client does), decide what to fetch (the crawl phases do).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Generic, TypeVar

import anyio

from generator.cache_crawl import CachedAnswer, CacheMiss, CrawlCache, encode_body
from generator.client import (
    ApiClient,
    ApiResponse,
    Params,
    describe_endpoint,
    parse_page,
    walk_pages,
)
from generator.crawl_settings import CrawlSettings
from generator.errors import ApiPayloadError, ApiStatusError, RateLimited, StorefrontError
from generator.normalize import WireValueError

T = TypeVar("T")
R = TypeVar("R")

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
    ) -> None:
        """``client`` None means offline: every answer comes from ``cache``."""
        self.client = client
        self.settings = settings
        self.cache = cache
        #: ``stamp()`` once the lists are read: the version of what derives from them.
        self.lists_stamp: str | None = None
        self._unversioned: dict[str, str] = {}

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
        key = describe_endpoint(path, params)
        known = self.cache.lookup(key)
        if self.client is None or (
            version is not None
            and known is not None
            and known.version == version
            and known.status == 200
        ):
            if known is None:
                raise CacheMiss(
                    f"--from-cache: the last crawl has no answer for {key}; "
                    "run a build with the API first"
                )
            self.cache.keep(key)
            return self._remember(key, version, known)
        headers = {"If-None-Match": known.etag} if known is not None and known.etag else None
        try:
            answer = await self._ask(path, params, headers)
        except ApiStatusError as exc:
            if is_absent(exc) and not isinstance(exc, RateLimited):
                self.cache.store(key, CachedAnswer(exc.status, version, None, b"null"))
            raise
        if answer.not_modified and known is not None and known.status == 200:
            cached = CachedAnswer(200, version, known.etag, known.body)
        else:
            cached = CachedAnswer(answer.status, version, answer.etag, encode_body(answer.data))
        self.cache.store(key, cached)
        return self._remember(key, version, cached)

    def _remember(self, key: str, version: str | None, answer: CachedAnswer) -> ApiResponse:
        if answer.status != 200:  # an absent answer replayed offline
            raise ApiStatusError("not offered (cached answer)", endpoint=key, status=answer.status)
        if version is None:
            self._unversioned[key] = answer.digest
        return ApiResponse(key, answer.status, answer.data, answer.etag)

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

    async def one(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
    ) -> T:
        response = await self.response(path, params, version=version)
        with reading(response.endpoint):
            return parse(response.data)

    async def optional(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
    ) -> T | None:
        """Like ``one``, but None when the implementation answers 404/405/410."""
        return await _unless_absent(self.one(path, parse, params, version=version))

    async def all(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
    ) -> list[T]:
        """Every item of a list endpoint, cursor after cursor, each decoded by ``parse``."""
        items: list[T] = []
        async for page in walk_pages(
            lambda page_params: self.response(path, page_params, version=version),
            params,
            max_pages=self.max_pages,
        ):
            with reading(describe_endpoint(path, params)):
                items.extend(parse(item) for item in page.items)
        return items

    async def optional_all(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
    ) -> list[T] | None:
        return await _unless_absent(self.all(path, parse, params, version=version))

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
        response = await self.response(path, params, version=version)
        page = parse_page(response.data, endpoint=response.endpoint)
        with reading(response.endpoint):
            return [parse(item) for item in page.items], page.has_more


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
