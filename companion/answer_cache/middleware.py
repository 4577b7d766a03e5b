"""Catalogue answers served again from memory, behind the key check and the rate limit.

A GET of a cached route (``CACHED``) is answered from this worker's memory when the same store
asked for the same path and query before and nothing it shows can have changed since:
- the catalogue's version (``changes.catalogue``, moved by this process's writes and, through
  ``feeds``, by every other process's) is the one the answer was read at;
- no flash sale of the store has started or ended since (``boundaries``): the only clock-driven
  part of these routes' answers.
The answer is the bytes the routes gave, with their entity tag: a matching If-None-Match gets
304 as from ``companion.etag``. Everything outside this middleware runs for every request: the
request log, admission, the key check (a revoked key is refused before the cache), the rate
limit and its headers. Only 200 answers are kept; anything else passes through untouched.

With several workers on one host, an answer one of them read is handed to the others
(``shared``): a worker that does not hold an answer takes the other's when nothing it shows has
changed since its reading began.

A miss is read once in a worker however many ask for it at once: while a request reads it, the
others for the same answer wait for that reading (at most ``read_wait`` seconds) and are
answered with what it kept. When a catalogue change drops every answer on a busy day, or a
worker starts, a popular page is then one database read, not one per shopper asking.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime

import anyio
import anyio.to_thread
from sqlalchemy import Engine, func, select, union_all
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from companion.answer_cache.changes import catalogue, stock
from companion.answer_cache.feeds import Feed, poll_once
from companion.answer_cache.shared import SharedAnswer, SharedAnswers
from companion.clock import Clock, epoch_seconds, seconds_reader
from companion.db.schema import flash_sales
from companion.etag import matches, whole_ok_answers
from companion.tenant import Tenant

#: Routes (under the read prefix) whose answers depend on the catalogue tables, the store and
#: the flash sales' times only: exact paths, and prefixes of their sub-routes.
CACHED = ("products", "categories", "collections", "store", "menus", "filters")
#: Answers kept per worker, and the largest one kept.
MAX_ENTRIES = 20_000
MAX_BODY = 512 * 1024
MAX_BYTES = 128 * 1024 * 1024
#: Seconds a request waits for another's reading of the same answer before reading it itself.
READ_WAIT_SECONDS = 5.0
_IF_NONE_MATCH = b"if-none-match"
#: Routes whose answers show stock: cards and product pages show whether each product is in
#: stock (the products named in the body: a list's ``items[].id``, a product's ``id``); a
#: product's variants show their counts. Other cached routes show no stock.
STOCK_ROUTES = "products"
_CARD_ROUTE = re.compile(r"products(?:/by-slug/[^/]+|/[0-9]+|/[0-9]+/related)?")
_COUNTS_ROUTE = re.compile(r"products/([0-9]+)/variants")


@dataclass(frozen=True, slots=True)
class _Reading:
    """A miss being read: what its answer will be checked against."""

    key: tuple[int, str, bytes]
    version: int
    since: datetime
    until: datetime | None
    read_at: float  # time.monotonic() before anything was read for it


Headers = tuple[tuple[bytes, bytes], ...]


@dataclass(frozen=True, slots=True)
class Answer:
    headers: Headers
    body: bytes
    etag: str
    products: frozenset[int] | None  # whose stock it shows (None: it may show any product's)
    counts: bool  # it shows their stock counts, not only whether they are in stock
    read_at: float  # time.monotonic() before its reading began: later stock marks count
    since: datetime  # when it was read (a test's clock may be set back)
    until: datetime | None  # the next flash-sale start or end then
    unchanged_headers: Headers = ()  # those of a 304: all but the length
    #: ``since`` and ``until`` in epoch seconds (``until`` infinite when None): the clock is
    #: read as seconds for each request, without making a datetime.
    since_seconds: float = 0.0
    until_seconds: float = math.inf

    def __post_init__(self) -> None:
        unchanged = tuple(h for h in self.headers if h[0].lower() != b"content-length")
        object.__setattr__(self, "unchanged_headers", unchanged)
        object.__setattr__(self, "since_seconds", epoch_seconds(self.since))
        if self.until is not None:
            object.__setattr__(self, "until_seconds", epoch_seconds(self.until))


def next_boundary(engine: Engine, store_id: int, now: datetime) -> datetime | None:
    """The first instant after ``now`` at which a flash sale of the store starts or ends."""
    mine = flash_sales.c.store_id == store_id
    times = union_all(
        select(func.min(flash_sales.c.starts_at).label("at")).where(
            mine, flash_sales.c.starts_at > now
        ),
        select(func.min(flash_sales.c.ends_at).label("at")).where(
            mine, flash_sales.c.ends_at > now
        ),
    ).subquery()
    with engine.connect() as conn:
        found: datetime | None = conn.execute(select(func.min(times.c.at))).scalar()
    return found


class AnswerCache:
    def __init__(
        self,
        app: ASGIApp,
        *,
        feed: Feed,
        engine: Engine,
        clock: Clock,
        prefix: str,
        max_entries: int = MAX_ENTRIES,
        max_bytes: int = MAX_BYTES,
        shared: SharedAnswers | None = None,
        read_wait: float = READ_WAIT_SECONDS,
    ) -> None:
        self.app = app
        self.feed = feed
        self.engine = engine
        self.clock = clock
        self._seconds = seconds_reader(clock)  # the clock in epoch seconds
        self.prefix_length = len(prefix)
        self.exact = frozenset(f"{prefix}{name}" for name in CACHED)
        self.prefixes = tuple(f"{prefix}{name}/" for name in CACHED)
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._answers: dict[tuple[int, str, bytes], Answer] = {}
        self._bytes = 0
        self._version: int | None = None
        # store -> (when it was read, the next flash-sale start or end after that)
        self._boundaries: dict[int, tuple[datetime, datetime | None]] = {}
        self.shared = shared
        self.read_wait = read_wait
        self._reading: dict[tuple[int, str, bytes], anyio.Event] = {}  # misses being read
        self.hits = 0
        self.adopted = 0  # answers taken from another worker (tests, reports)
        self.joined = 0  # answers a request waited for another's reading of (tests, reports)

    def cacheable(self, scope: Scope) -> bool:
        if scope["type"] != "http" or scope["method"] != "GET":
            return False
        return self.caches(scope["path"])

    def caches(self, path: str) -> bool:
        """Whether ``path`` is a cached route's (for a GET)."""
        return path in self.exact or path.startswith(self.prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        tenant = scope.get("state", {}).get("tenant")
        if not isinstance(tenant, Tenant) or not self.cacheable(scope):
            await self.app(scope, receive, send)
            return
        # Before the feed's poll (this request's first, maybe the key check's) and every read
        read_at = poll_once(self.feed, scope)
        version = self.version()
        if version is None:  # changes by other processes may be missed: no cache at all
            await self.app(scope, receive, send)
            return
        now = self.clock.now()
        key = answer_key(tenant, scope)
        asked = if_none_match(scope)
        kept = self.kept(key)
        if kept is None and key in self._reading:
            kept = await self._after_reading(key)
            self.joined += kept is not None
        if kept is not None:
            self.hits += 1
            await _send(send, kept, asked)
            return
        reading = None  # stays None when it waited in vain for another's reading: reads beside it
        if key not in self._reading:
            reading = self._reading[key] = anyio.Event()
        try:
            until = await self._boundary(tenant.store_id, now)
            read = _Reading(key, version, now, until, read_at)
            await self._read(scope, receive, send, read, asked)
        finally:
            if reading is not None:
                del self._reading[key]
                reading.set()

    async def _after_reading(self, key: tuple[int, str, bytes]) -> Answer | None:
        """The answer another request of this worker is reading for ``key``, once it kept it
        (waiting at most ``read_wait``); None: none was kept (not a 200, the catalogue moved,
        the reader failed), so this request reads it."""
        with anyio.move_on_after(self.read_wait):
            await self._reading[key].wait()
        return None if self.version() is None else self.kept(key)

    def kept_for(self, key: tuple[int, str, bytes], scope: Scope) -> Answer | None:
        """The answer this layer would serve from memory to ``scope``, a cached route's GET
        whose ``answer_key`` is ``key`` (``companion.chain_bypass``); None: it would read it."""
        poll_once(self.feed, scope)
        if self.version() is None:
            return None
        return self.kept(key)

    def version(self) -> int | None:
        """The catalogue's version, other processes' changes taken in by the request's poll
        (answers kept at an older one are dropped); None: they may be missed, so nothing is
        served or kept."""
        version = self.feed.version()
        if version != self._version:
            self._forget(version)
        return version

    def kept(self, key: tuple[int, str, bytes]) -> Answer | None:
        """The answer kept for ``key`` if nothing it shows has changed since (one another
        worker shared, else); call after ``version``."""
        kept = self._answers.get(key)
        if kept is not None:
            now = self._seconds()
            if kept.since_seconds <= now < kept.until_seconds and stock.unchanged_after(
                kept.read_at, kept.products, counts=kept.counts
            ):
                return kept
        return None if self.shared is None else self._adopt(self.shared, key, self.clock.now())

    def _adopt(
        self, shared: SharedAnswers, key: tuple[int, str, bytes], now: datetime
    ) -> Answer | None:
        """The answer another worker shared for ``key``, kept here as if read here, when this
        worker marked no change it may not show: nothing in the catalogue, or in the stock it
        shows, since its reading began. Its flash-sale window is narrowed to this worker's own
        (a sale added meanwhile is in this worker's, not in the reader's)."""
        known = self._boundaries.get(key[0])
        if known is None or not _within(now, *known):
            return None  # this worker reads the store's flash sales itself first
        found = shared.get(key)
        if (
            found is None
            or catalogue.at >= found.read_at
            or not stock.unchanged_after(found.read_at, found.products, counts=found.counts)
        ):
            return None
        since = max(found.since, known[0])
        until = min((u for u in (found.until, known[1]) if u is not None), default=None)
        if not _within(now, since, until):
            return None
        answer = Answer(
            found.headers,
            found.body,
            found.etag,
            found.products,
            found.counts,
            found.read_at,
            since,
            until,
        )
        self._keep(key, answer)
        self.adopted += 1
        return answer

    async def _boundary(self, store_id: int, now: datetime) -> datetime | None:
        known = self._boundaries.get(store_id)
        if known is not None and _within(now, *known):
            return known[1]
        until = await anyio.to_thread.run_sync(next_boundary, self.engine, store_id, now)
        self._boundaries[store_id] = (now, until)
        return until

    async def _read(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        read: _Reading,
        asked: str | None,
    ) -> None:
        """Ask the routes (for the whole answer, whatever If-None-Match said), keep a 200."""
        inner = dict(scope)
        inner["headers"] = [h for h in scope["headers"] if h[0] != _IF_NONE_MATCH]

        async def keep(start: Message, body: bytes) -> None:
            headers = tuple((bytes(k), bytes(v)) for k, v in start["headers"])
            tag = next((v.decode() for k, v in headers if k.lower() == b"etag"), "")
            shown, counts = self._shown(scope["path"], body)
            answer = Answer(headers, body, tag, shown, counts, read.read_at, read.since, read.until)
            if tag and self.feed.version() == read.version:
                self._keep(read.key, answer)
                if self.shared is not None:
                    self.shared.put(read.key, _shareable(answer))
            await _send(send, answer, asked)

        await self.app(inner, receive, whole_ok_answers(send, keep))

    def _shown(self, path: str, body: bytes) -> tuple[frozenset[int] | None, bool]:
        """The products whose stock an answer shows (None: any), and whether it shows their
        counts or only whether they are in stock."""
        route = path[self.prefix_length :]
        if not route.startswith(STOCK_ROUTES):
            return frozenset(), False
        if _CARD_ROUTE.fullmatch(route):
            data = json.loads(body)
            items = data["items"] if "items" in data else [data]
            return frozenset(int(item["id"]) for item in items), False
        variants = _COUNTS_ROUTE.fullmatch(route)
        return (frozenset({int(variants[1])}) if variants else None), True

    def _keep(self, key: tuple[int, str, bytes], answer: Answer) -> None:
        if len(answer.body) > MAX_BODY:
            return
        while self._answers and (
            len(self._answers) >= self.max_entries
            or self._bytes + len(answer.body) > self.max_bytes
        ):
            oldest = next(iter(self._answers))  # insertion order: the oldest first
            self._bytes -= len(self._answers.pop(oldest).body)
        old = self._answers.pop(key, None)
        if old is not None:
            self._bytes -= len(old.body)
        self._answers[key] = answer
        self._bytes += len(answer.body)

    def _forget(self, version: int | None) -> None:
        if self._answers or self._boundaries:
            self._answers.clear()
            self._boundaries.clear()
            self._bytes = 0
        self._version = version


def _shareable(answer: Answer) -> SharedAnswer:
    return SharedAnswer(
        answer.headers,
        answer.body,
        answer.etag,
        answer.products,
        answer.counts,
        answer.since,
        answer.until,
        answer.read_at,
    )


def answer_key(tenant: Tenant, scope: Scope) -> tuple[int, str, bytes]:
    """What an answer is kept under: the store, the path and the query string."""
    return (tenant.store_id, scope["path"], scope.get("query_string", b""))


def _within(now: datetime, since: datetime, until: datetime | None) -> bool:
    return since <= now and (until is None or now < until)


def if_none_match(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == _IF_NONE_MATCH:
            return bytes(value).decode("latin-1")
    return None


def reply(answer: Answer, asked: str | None) -> tuple[int, Headers, bytes]:
    """Status, headers and body of a kept answer to a request whose If-None-Match is
    ``asked``: 304 with no body when it names the answer's tag."""
    if asked is not None and answer.etag and matches(asked, answer.etag):
        return 304, answer.unchanged_headers, b""
    return 200, answer.headers, answer.body


async def _send(send: Send, answer: Answer, asked: str | None) -> None:
    status, headers, body = reply(answer, asked)
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body, "more_body": False})
