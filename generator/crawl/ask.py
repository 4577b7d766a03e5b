"""How a crawl phase asks the API: one small interface, whatever keeps the answers.

    api.one(path, parse, version=...)            one record
    api.walk(path, parse, version=...)           every page of a list, cursor after cursor
    api.first_page(path, parse, version=...)     the first page of a list, and whether it has more

Each call declares the version its answer depends on: a string (a digest of what can change
the answer, see ``versions``), a function of the items the list held (a list whose version
depends on what it listed), or None (nothing known: always asked; what the crawl derives from
such answers alone can depend on ``read_so_far``). What the phases derive from an answer and
want kept with it (a product's pack) they hand to ``keep`` and find again with ``kept``.

Whether an answer is asked, replayed from the last crawl or revalidated is not the phases'
business: the replay layer (``generator.replay``) implements this interface, and an import
contract keeps the phases from importing it.

Also here: an absent optional endpoint (404/405/410) as None (``absent_as_none``), a wire value
error named by its endpoint (``reading``), waiting out 429s (``ask_waiting``), and running
many fetches with bounded concurrency.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import anyio

from generator.client import ApiResponse, ListBound, Page, Params, parse_page
from generator.crawl.normalize import WireValueError
from generator.crawl.settings import CrawlSettings
from generator.errors import ApiPayloadError, ApiStatusError, RateLimited, StorefrontError

if TYPE_CHECKING:  # the client brings httpx, which a crawl from the cache alone never needs
    from generator.client.api import ApiClient

T = TypeVar("T")
R = TypeVar("R")

#: What a list's answer depends on: a version, the version of the items it held (None: none
#: known), or nothing known (None).
ListVersion = str | Callable[[list[T] | None], str] | None

#: Statuses by which an implementation says it does not offer something.
ABSENT_STATUSES = frozenset({404, 405, 410})


@dataclass(frozen=True, slots=True)
class Walked(Generic[T]):  # noqa: UP046  (Python 3.11: no PEP 695 syntax)
    """A list's items, with the keys of the pages they came from (``keep`` names them)."""

    items: list[T]
    pages: tuple[str, ...]


class Api(Protocol):
    """What a crawl phase asks through (see the module's docstring)."""

    @property
    def settings(self) -> CrawlSettings: ...

    async def one(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: str | None = None,
        keep_reading: bool = True,
    ) -> T:
        """One record; ``keep_reading`` False: the caller keeps what it derives itself."""
        ...

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
        """Every item of a list, cursor after cursor; ``on_items`` is handed each page's items
        as they come; past ``bound`` the walk fails."""
        ...

    async def first_page(
        self,
        path: str,
        parse: Callable[[object], T],
        params: Params | None = None,
        *,
        version: ListVersion[T] = None,
    ) -> tuple[list[T], bool]:
        """The items of a list's first page, and whether the list has more."""
        ...

    def read_so_far(self) -> str:
        """A digest of every answer read so far whose version was not known (context, lists,
        sitemap): the version of what derives from those answers alone."""
        ...

    def expect(self, paths: Iterable[str]) -> None:
        """``kept`` is about to be asked for each of ``paths``."""
        ...

    def kept(
        self, path: str, name: str, *, version: str | None
    ) -> tuple[object, tuple[str, ...]] | None:
        """What was kept as ``name`` with the answer of ``path``, with the keys kept alongside
        it, when that answer and theirs still hold under ``version``; None: ask."""
        ...

    def keep(self, path: str, name: str, value: object, *, alongside: tuple[str, ...]) -> None:
        """Keep ``value`` as ``name`` with the answer of ``path``, with the answers of the
        keys ``alongside`` (the pages it was derived from as well)."""
        ...


@contextmanager
def reading(endpoint: str) -> Iterator[None]:
    """Name the endpoint in any wire value error raised while decoding its answer."""
    try:
        yield
    except WireValueError as exc:
        raise ApiPayloadError(str(exc), endpoint=endpoint) from exc


def is_absent(exc: ApiStatusError) -> bool:
    return exc.status in ABSENT_STATUSES


async def absent_as_none(call: Awaitable[T]) -> T | None:
    """The result of ``call``, or None when the implementation does not offer the endpoint."""
    try:
        return await call
    except ApiStatusError as exc:
        if isinstance(exc, RateLimited) or not is_absent(exc):
            raise
        return None


async def ask_waiting(
    client: ApiClient,
    settings: CrawlSettings,
    path: str,
    params: Params | None,
    headers: dict[str, str] | None,
) -> ApiResponse:
    """One answer from the API, waiting out up to ``rate_limit_waits`` 429s."""
    waits = 0
    while True:
        try:
            return await client.get(path, params, headers=headers)
        except RateLimited as exc:
            waits += 1
            if waits > settings.rate_limit_waits:
                raise
            if exc.retry_after > settings.max_retry_after:
                raise ApiStatusError(
                    f"rate limited for {exc.retry_after:g} s, longer than the "
                    f"{settings.max_retry_after:g} s a build waits; try again later",
                    endpoint=exc.endpoint,
                    status=429,
                ) from exc
            # No sleep here: the client has set the limiter's blocked-until instant from
            # this answer, so the next attempt (and every other task's request) waits in
            # the limiter until the window has passed.


def page_of(parse: Callable[[object], object]) -> Callable[[str, object], tuple[str, Page]]:
    """Reads one page of a walk: (endpoint, the page with its items decoded by ``parse``)."""

    def read(endpoint: str, data: object) -> tuple[str, Page]:
        page = parse_page(data, endpoint=endpoint)
        with reading(endpoint):
            parsed = tuple(parse(item) for item in page.items)
        return endpoint, Page(parsed, page.next_cursor, page.has_more)

    return read


def first_page_of(parse: Callable[[object], T]) -> Callable[[str, object], tuple[list[T], bool]]:
    def read(endpoint: str, data: object) -> tuple[list[T], bool]:
        page = parse_page(data, endpoint=endpoint)
        with reading(endpoint):
            return [parse(item) for item in page.items], page.has_more

    return read


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


async def items_unless_absent(call: Awaitable[Walked[T]]) -> list[T] | None:
    """The items of the walk ``call``, or None when the implementation does not offer it."""
    walked = await absent_as_none(call)
    return None if walked is None else walked.items
