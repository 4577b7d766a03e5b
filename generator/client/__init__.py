"""The generator's client of the storefront public API: one request, wrapped in layers.

One module per layer, innermost first: ``request`` (one GET within its deadline, errors
mapped; ``body`` reads within the size limit, ``decode`` refuses unusable JSON), ``limiter``
(rate windows and Retry-After), ``retry`` (5xx and transport failures), ``paging`` (cursor
walks), ``api`` (``ApiClient``, the composition a build uses). ``timing``, ``observer`` and
``stats`` are the injectable clock, the progress hook and the counters; ``request_log`` keeps
a key's recent requests between builds, so consecutive builds share the rate windows.

``ApiClient`` is imported from ``generator.client.api``, not from here: it brings httpx (about
50 ms to import), which the rest of the package, and a build from the crawl cache, never need.
"""

from __future__ import annotations

from generator.client.answer import ApiResponse, Params, describe_endpoint
from generator.client.limiter import RateLimiter, RateWindow
from generator.client.observer import ClientObserver, NullObserver, WaitReason
from generator.client.paging import (
    FetchPage,
    ListBound,
    Page,
    parse_page,
    walk_items,
    walk_pages,
    walk_parsed_pages,
)
from generator.client.request_log import RequestLog
from generator.client.retry import RetryPolicy
from generator.client.settings import ClientSettings
from generator.client.stats import ClientStats, endpoint_group
from generator.client.timing import ManualTimer, SystemTimer, Timer

__all__ = [
    "ApiResponse",
    "ClientObserver",
    "ClientSettings",
    "ClientStats",
    "FetchPage",
    "ListBound",
    "ManualTimer",
    "NullObserver",
    "Page",
    "Params",
    "RateLimiter",
    "RateWindow",
    "RequestLog",
    "RetryPolicy",
    "SystemTimer",
    "Timer",
    "WaitReason",
    "describe_endpoint",
    "endpoint_group",
    "parse_page",
    "walk_items",
    "walk_pages",
    "walk_parsed_pages",
]
