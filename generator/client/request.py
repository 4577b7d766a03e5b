"""The single request: one GET, its JSON body, and the mapping of a bad answer to our errors.

Does: send ``GET {base}{path}`` with ``X-Service-Key`` and any extra headers (e.g.
``If-None-Match``), stream the body within a size limit (``body``), decode its JSON
(``decode``), return it with the status and the ETag. Turn a non-2xx answer into
``ApiStatusError`` (``RateLimited`` for 429), a body past the limit into ``ApiAnswerTooLarge``,
a 2xx body that is not usable JSON (or not the Content-Encoding it claims) into
``ApiPayloadError``, a transport failure into ``ApiUnreachable`` (``ApiHostUnknown`` when the
host's name does not resolve) and an exchange longer than the request deadline into
``ApiDeadlineExceeded``, each naming the endpoint.

Does NOT: retry, wait, rate-limit, page, or check the shape of the JSON (callers know what they
asked for). It never raises an httpx exception.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping

import anyio
import httpx

from generator.client.answer import ApiResponse, Params, describe_endpoint
from generator.client.body import describe_size, read_limited
from generator.client.decode import JsonRefused, NotJson, decode_json
from generator.client.settings import DEFAULT_MAX_ANSWER_BYTES, DEFAULT_REQUEST_DEADLINE
from generator.client.status_errors import status_error
from generator.errors import (
    ApiAnswerTooLarge,
    ApiDeadlineExceeded,
    ApiHostUnknown,
    ApiPayloadError,
    ApiUnreachable,
)

#: Most of a 4xx/5xx body read for its problem JSON.
_MAX_ERROR_BODY = 64 * 1024


async def send_get(
    http: httpx.AsyncClient,
    path: str,
    *,
    key: str,
    params: Params | None = None,
    headers: Mapping[str, str] | None = None,
    max_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    deadline: float = DEFAULT_REQUEST_DEADLINE,
    large: anyio.Semaphore | None = None,
) -> ApiResponse:
    """One GET of ``path`` (relative to the client's base url, starting with "/").

    A body longer than ``max_bytes`` once decoded is an ``ApiAnswerTooLarge``. The whole
    exchange, body included, must end within ``deadline`` seconds: httpx's own timeouts start
    again with every byte, so an answer that trickles in would otherwise never end. ``large``:
    the client's large-answer slot (``body.read_limited``)."""
    endpoint = describe_endpoint(path, params)
    request_headers = {"Accept": "application/json"}
    if key:
        request_headers["X-Service-Key"] = key
    request_headers.update(headers or {})
    try:
        with anyio.fail_after(deadline):
            return await _exchange(http, path, params, request_headers, endpoint, max_bytes, large)
    except TimeoutError as exc:
        raise ApiDeadlineExceeded(
            f"no complete answer within {deadline:g} s", endpoint=endpoint
        ) from exc


async def _exchange(
    http: httpx.AsyncClient,
    path: str,
    params: Params | None,
    headers: dict[str, str],
    endpoint: str,
    max_bytes: int,
    large: anyio.Semaphore | None = None,
) -> ApiResponse:
    try:
        async with http.stream(
            "GET", path.lstrip("/"), params=dict(params or {}), headers=headers
        ) as response:
            status = response.status_code
            etag = response.headers.get("ETag")
            if status == 304 or status == 204:
                return ApiResponse(endpoint, status, None, etag)
            if not response.is_success:
                raise status_error(response, await _error_body(response), endpoint=endpoint)
            body = await _success_body(response, max_bytes, endpoint, large)
            content_type = response.headers.get("Content-Type", "no content type")
    except httpx.TimeoutException as exc:
        raise ApiUnreachable(
            f"timed out waiting for {_host(http)} ({type(exc).__name__})", endpoint=endpoint
        ) from exc
    except httpx.ConnectError as exc:
        unresolved = _name_error(exc)
        if unresolved is not None:
            raise ApiHostUnknown(
                f"{_host(http)} does not resolve ({unresolved}): check the API url",
                endpoint=endpoint,
            ) from exc
        raise ApiUnreachable(
            f"no answer from {_host(http)}: {exc or type(exc).__name__}", endpoint=endpoint
        ) from exc
    except httpx.TransportError as exc:
        raise ApiUnreachable(
            f"no answer from {_host(http)}: {exc or type(exc).__name__}", endpoint=endpoint
        ) from exc
    if body is None:
        raise ApiAnswerTooLarge(
            f"the answer is larger than {describe_size(max_bytes)}, the most the client "
            "reads of one answer; stopped reading",
            endpoint=endpoint,
        )
    return ApiResponse(endpoint, status, _json(body, content_type, endpoint), etag)


def _name_error(exc: BaseException) -> str | None:
    """What the resolver said, when a failed connection failed on the host's name (the
    ``gaierror`` under httpx's and httpcore's ConnectError); None for any other failure."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror):
            return seen.strerror or str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def _host(http: httpx.AsyncClient) -> str:
    """The host (and port) a request went to, for a message about no answer at all: the
    endpoint alone does not say where it was asked."""
    return http.base_url.netloc.decode("ascii", "replace") or "the API"


async def _success_body(
    response: httpx.Response, max_bytes: int, endpoint: str, large: anyio.Semaphore | None
) -> bytearray | None:
    """The decoded body of a 2xx answer; None when it is longer than ``max_bytes``."""
    try:
        return await read_limited(response, max_bytes, large)
    except httpx.DecodingError as exc:
        encoding = response.headers.get("Content-Encoding", "none")
        raise ApiPayloadError(
            f"the answer's body cannot be decoded (Content-Encoding: {encoding})",
            endpoint=endpoint,
        ) from exc


async def _error_body(response: httpx.Response) -> bytes:
    """The start of a non-2xx answer's body, enough for problem JSON; b"" when it is longer
    or cannot be decoded (the status says what went wrong, the body only adds detail)."""
    try:
        body = await read_limited(response, _MAX_ERROR_BODY)
    except httpx.DecodingError:
        return b""
    return b"" if body is None else bytes(body)


def _json(body: bytearray, content_type: str, endpoint: str) -> object:
    try:
        return decode_json(body)
    except NotJson as exc:
        raise ApiPayloadError(
            f"the answer is not JSON ({content_type}, {len(body)} bytes)", endpoint=endpoint
        ) from exc
    except JsonRefused as exc:
        raise ApiPayloadError(str(exc), endpoint=endpoint) from exc
