"""The proxy of `storefront serve --api-url`: /public/, /sandbox/ and /payments/ to the API.

Only a plain path under those prefixes is forwarded (``api_path.accepted_path``), exactly as the
client wrote it, with its query as written; anything else is answered with a problem and a
warning line beside the server's request lines (``PROXY_LOGGER``). Only the headers the API
reads go on: the key, the customer's bearer token (under /public/ only), the conditional and
idempotent request headers, the request id. Never the site's cookies (the httpOnly JWT among
them), a password the browser keeps for the site, or the visitor's forwarding headers.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import uvicorn
from starlette.background import BackgroundTask
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from generator.serve.api_path import Refusal, accepted_path
from generator.serve.app import API_PREFIXES
from session_service.session import problem

#: Logger of the refused requests; `storefront serve` writes it beside its request lines.
PROXY_LOGGER = "storefront.serve.proxy"
#: The only prefix whose requests may carry a customer's token (the gateway's pages take none).
CUSTOMER_PREFIX = "/public/"
# What the API reads of a request: the spec's key header, the companion's conditional and
# idempotent requests, and the request id its log ties to the answer.
_FORWARDED = ("accept", "accept-encoding", "content-type", "if-none-match", "idempotency-key",
              "x-request-id", "x-service-key")  # fmt: skip
# Hop-by-hop headers (RFC 9110 7.6.1) are never passed back; the server frames the answer.
_HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
     "transfer-encoding", "upgrade", "host", "content-length"}
)  # fmt: skip

_log = logging.getLogger(PROXY_LOGGER)


class ApiProxy:
    """Forwards the accepted requests under ``API_PREFIXES`` to the API's origin."""

    def __init__(self, api_url: str, client: httpx.AsyncClient) -> None:
        parts = urlsplit(api_url)
        self.origin = httpx.URL(f"{parts.scheme}://{parts.netloc}")
        self.client = client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # no websockets: the connection is closed unanswered
            return
        raw = _raw_path(scope)
        path = accepted_path(raw, API_PREFIXES)
        if isinstance(path, Refusal):
            _log_refusal(scope, raw, path)
            await problem(path.status, path.code, path.detail)(scope, receive, send)
            return
        query: bytes = scope.get("query_string", b"")
        target = self.origin.copy_with(
            raw_path=path.encode("ascii") + (b"?" + query if query else b"")
        )
        request = Request(scope, receive)
        upstream = self.client.build_request(
            request.method,
            target,
            headers=forwarded_headers(request.headers, path),
            content=await request.body(),
        )
        try:
            answer = await self.client.send(upstream, stream=True)
        except httpx.HTTPError:
            response: Response = PlainTextResponse("API unreachable\n", status_code=502)
        else:
            response = StreamingResponse(
                answer.aiter_raw(),
                status_code=answer.status_code,
                headers={k: v for k, v in answer.headers.items() if k.lower() not in _HOP_BY_HOP},
                background=BackgroundTask(answer.aclose),
            )
        await response(scope, receive, send)


def forwarded_headers(headers: Headers, path: str) -> dict[str, str]:
    """The request headers the API is sent for ``path``."""
    kept = {name: value for name in _FORWARDED if (value := headers.get(name)) is not None}
    # Unasked, the client would ask for compression the browser may not read: the answer's
    # bytes are passed back as they come.
    kept.setdefault("accept-encoding", "identity")
    authorization = headers.get("authorization", "")
    if path.startswith(CUSTOMER_PREFIX) and authorization[:7].lower() == "bearer ":
        kept["authorization"] = authorization
    return kept


def _raw_path(scope: Scope) -> str:
    """The path as the client sent it (the server's decoded one, quoted again, when the server
    keeps no raw path)."""
    raw: bytes | None = scope.get("raw_path")
    if raw is None:
        return quote(scope.get("path", ""), safe="/!$&'()*+,;=:@~")
    return raw.split(b"?", 1)[0].decode("latin-1")


def _log_refusal(scope: Scope, raw: str, refusal: Refusal) -> None:
    client = scope.get("client")
    peer = f"{client[0]}:{client[1]}" if client else "-"
    # The path as JSON: whatever it holds stays on one line.
    _log.warning(
        "API proxy refused %s %s from %s: %d %s",
        scope.get("method", ""),
        json.dumps(raw),
        peer,
        refusal.status,
        refusal.code,
    )


def serve_log_config() -> dict[str, Any]:
    """uvicorn's logging, with the proxy's refusals written beside the request lines."""
    config: dict[str, Any] = json.loads(json.dumps(uvicorn.config.LOGGING_CONFIG))
    config["handlers"]["refusals"] = {
        "formatter": "default",
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stdout",
    }
    config["loggers"][PROXY_LOGGER] = {
        "handlers": ["refusals"],
        "level": "INFO",
        "propagate": False,
    }
    return config
