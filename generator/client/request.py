"""The single request: one GET, its JSON body, and the mapping of a bad answer to our errors.

Does: send ``GET {base}{path}`` with ``X-Service-Key`` and any extra headers (e.g.
``If-None-Match``), decode the JSON body, return it with the status and the ETag; turn a
non-2xx answer into ``ApiStatusError`` (``RateLimited`` for 429), a 2xx non-JSON body into
``ApiPayloadError`` and a transport failure into ``ApiUnreachable``, each naming the endpoint.

Does NOT: retry, wait, rate-limit, page, or check the shape of the JSON (callers know what they
asked for). It never raises an httpx exception.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

import httpx

from generator.client.status_errors import status_error
from generator.errors import ApiPayloadError, ApiUnreachable

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


async def send_get(
    http: httpx.AsyncClient,
    path: str,
    *,
    key: str,
    params: Params | None = None,
    headers: Mapping[str, str] | None = None,
) -> ApiResponse:
    """One GET of ``path`` (relative to the client's base url, starting with "/")."""
    endpoint = describe_endpoint(path, params)
    request_headers = {"Accept": "application/json"}
    if key:
        request_headers["X-Service-Key"] = key
    request_headers.update(headers or {})
    try:
        response = await http.get(
            path.lstrip("/"), params=dict(params or {}), headers=request_headers
        )
    except httpx.TimeoutException as exc:
        raise ApiUnreachable(f"timed out ({type(exc).__name__})", endpoint=endpoint) from exc
    except httpx.TransportError as exc:
        raise ApiUnreachable(f"no answer: {exc or type(exc).__name__}", endpoint=endpoint) from exc
    etag = response.headers.get("ETag")
    if response.status_code == 304 or response.status_code == 204:
        return ApiResponse(endpoint, response.status_code, None, etag)
    if not response.is_success:
        raise status_error(response, endpoint=endpoint)
    try:
        data: object = json.loads(response.content)
    except (ValueError, UnicodeDecodeError) as exc:
        content_type = response.headers.get("Content-Type", "no content type")
        raise ApiPayloadError(
            f"the answer is not JSON ({content_type}, {len(response.content)} bytes)",
            endpoint=endpoint,
        ) from exc
    return ApiResponse(endpoint, response.status_code, data, etag)
