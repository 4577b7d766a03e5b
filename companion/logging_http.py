"""Structured request logs: one JSON line per request, tied together by a request id.

The id comes from the client or the proxy (``X-Request-Id``, e.g. nginx's ``$request_id``) when
it is a plain token, and is made here otherwise; it is sent back on every answer, so a customer's
error report can be matched to the worker's log line. Only the path is logged, never the query
string (it carries cart tokens) or any header value.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import uuid
from datetime import UTC, datetime

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER = "X-Request-Id"
#: Logger of the request lines; servers send it to stderr (``companion.server``).
ACCESS_LOGGER = "companion.access"
#: What a client-given id may look like; anything else is replaced (no log injection).
_TOKEN = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def request_id_from(headers: Headers) -> str:
    given = headers.get(REQUEST_ID_HEADER, "")
    return given if _TOKEN.fullmatch(given) else uuid.uuid4().hex


def log_line(**fields: object) -> str:
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


class RequestLogMiddleware:
    """Outermost middleware: sets ``scope["state"]["request_id"]``, echoes it, logs the request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.logger = logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(Headers(scope=scope))
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500  # what the client sees if the app ends without answering

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if self.logger.isEnabledFor(logging.INFO):
                self.logger.info(
                    log_line(
                        time=datetime.now(UTC).isoformat(timespec="milliseconds"),
                        request_id=request_id,
                        method=scope.get("method", ""),
                        path=scope.get("path", ""),
                        status=status,
                        duration_ms=round((time.perf_counter() - started) * 1000, 2),
                        worker=os.getpid(),
                    )
                )
