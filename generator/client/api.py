"""The API client of one build: the layers composed around a single request.

    get()  ->  retry  ->  concurrency bound  ->  rate limiter  ->  single request
    pages()/items()  walk a cursor over get()

Does: hold the one httpx.AsyncClient, key, limiter, statistics and observer of a build, and
record a 429's Retry-After as the limiter's "blocked until" instant so no request of this key
is sent inside that window.

Does NOT: wait out a 429 and try again - ``RateLimited`` reaches the caller, as the spec asks;
the crawler decides. It builds no httpx client of its own: the caller passes one whose
``base_url`` is the API base ending in /public/v1 (tests pass MockTransport or ASGITransport).
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Mapping

import anyio
import httpx

from generator.client.answer import ApiResponse, Params, describe_endpoint
from generator.client.limiter import RateLimiter
from generator.client.observer import ClientObserver, NullObserver
from generator.client.paging import Page, walk_items, walk_pages
from generator.client.request import send_get
from generator.client.retry import with_retries
from generator.client.settings import ClientSettings
from generator.client.stats import ClientStats
from generator.client.timing import SystemTimer, Timer
from generator.errors import ApiStatusError, ApiUnreachable, CrawlStopped, RateLimited


class ApiClient:
    def __init__(
        self,
        http: httpx.AsyncClient,
        *,
        key: str,
        settings: ClientSettings | None = None,
        timer: Timer | None = None,
        observer: ClientObserver | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.http = http
        self.key = key
        self.settings = settings or ClientSettings()
        self.timer: Timer = timer or SystemTimer()
        self.observer: ClientObserver = observer or NullObserver()
        self.stats = ClientStats()
        self.limiter = RateLimiter(
            self.settings.windows, self.timer, observer=self.observer, stats=self.stats
        )
        self._capacity = anyio.CapacityLimiter(self.settings.concurrency)
        # One answer at a time reads on past a few MiB (``body.LARGE_ANSWER_BYTES``).
        self._large = anyio.Semaphore(1)
        self._rng = rng or random.Random()
        self._started = self.timer.now()
        self._asked = 0  # requests begun, retries included

    async def get(
        self, path: str, params: Params | None = None, *, headers: Mapping[str, str] | None = None
    ) -> ApiResponse:
        """GET ``path`` (relative to the API base, starting with "/"), retrying transient
        failures. Raises ``RateLimited`` on 429 without retrying."""

        async def send() -> ApiResponse:
            self._stop_if_due()
            return await self._send_once(path, params, headers)

        return await with_retries(
            send,
            endpoint=describe_endpoint(path, params),
            policy=self.settings.retry,
            timer=self.timer,
            rng=self._rng,
            observer=self.observer,
            stats=self.stats,
        )

    def _stop_if_due(self) -> None:
        """Stop before a request past ``max_requests`` or ``stop_after`` (``CrawlStopped``)."""
        limit, stop_after = self.settings.max_requests, self.settings.stop_after
        if limit is not None and self._asked >= limit:
            raise CrawlStopped(f"stopped after {self._asked:,} requests (--max-requests {limit})")
        if stop_after is not None and self.timer.now() - self._started >= stop_after:
            raise CrawlStopped(
                f"stopped after {self._asked:,} requests, at the --deadline of {stop_after:g} s"
            )
        self._asked += 1

    async def json(self, path: str, params: Params | None = None) -> object:
        """The decoded body of ``get``."""
        return (await self.get(path, params)).data

    def pages(self, path: str, params: Params | None = None) -> AsyncIterator[Page]:
        """Every page of a list endpoint (``RateLimited`` ends the walk; see the crawler)."""

        async def fetch(page_params: Params) -> ApiResponse:
            return await self.get(path, page_params)

        return walk_pages(fetch, params, max_pages=self.settings.max_pages)

    def items(self, path: str, params: Params | None = None) -> AsyncIterator[object]:
        async def fetch(page_params: Params) -> ApiResponse:
            return await self.get(path, page_params)

        return walk_items(fetch, params, max_pages=self.settings.max_pages)

    async def _send_once(
        self, path: str, params: Params | None, headers: Mapping[str, str] | None
    ) -> ApiResponse:
        async with self._capacity, self.limiter.slot():
            started = self.timer.now()
            self.stats.count_request(path)
            try:
                response = await send_get(
                    self.http,
                    path,
                    key=self.key,
                    params=params,
                    headers=headers,
                    max_bytes=self.settings.max_answer_bytes,
                    deadline=self.settings.request_deadline,
                    large=self._large,
                )
            except RateLimited as exc:
                self.stats.rate_limited += 1
                self.limiter.block_for(exc.retry_after)
                self._done(exc.endpoint, exc.status, started)
                raise
            except ApiStatusError as exc:
                self._done(exc.endpoint, exc.status, started)
                raise
            except ApiUnreachable as exc:
                self._done(exc.endpoint, 0, started)
                raise
            if response.not_modified:
                self.stats.not_modified += 1
            self._done(response.endpoint, response.status, started)
            return response

    def _done(self, endpoint: str, status: int, started: float) -> None:
        self.observer.request_done(endpoint, status, self.timer.now() - started)
