"""What one request asks and answers, apart from the HTTP that carries it: ``Params``,
``ApiResponse``, ``describe_endpoint``.

Its own module so that the layers that only read answers (paging, the crawl cache, a build from
the cache) need not import httpx, which ``request`` sends them with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

#: Query parameter values as the client layers pass them on.
Params = Mapping[str, str | int]


@dataclass(frozen=True, slots=True)
class ApiResponse:
    endpoint: str  # e.g. "GET /products?limit=100", for messages
    status: int
    data: object  # the decoded JSON body; None for 204 and 304
    etag: str | None

    @property
    def not_modified(self) -> bool:
        """True for a 304 answer to ``If-None-Match``: the cached body is still current."""
        return self.status == 304


def describe_endpoint(path: str, params: Params | None = None) -> str:
    """How messages name a request: method, path and query, as sent."""
    query = f"?{urlencode(dict(params))}" if params else ""
    return f"GET {path}{query}"
