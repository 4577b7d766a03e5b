"""Entity tags for the read side: every 200 answer to a GET under /public/v1 carries an ETag,
and a GET whose If-None-Match names it gets 304 Not Modified with no body.

The tag is a digest of the body, so it moves exactly when what a client would read moves; it
costs the server the same work as a full answer and saves the client the transfer and the
parsing (a crawl cache revalidates details this way). Answers other than 200, other methods and
paths outside the read prefix pass through untouched.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def entity_tag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def matches(if_none_match: str, tag: str) -> bool:
    """RFC 9110 weak comparison against a list of tags (or ``*``)."""
    candidates = [part.strip() for part in if_none_match.split(",")]
    return "*" in candidates or any(c.removeprefix("W/") == tag for c in candidates)


class ETagMiddleware:
    def __init__(self, app: ASGIApp, *, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or not scope["path"].startswith(self.prefix)
        ):
            await self.app(scope, receive, send)
            return
        asked = Headers(scope=scope).get("if-none-match")

        async def tagged(start: Message, body: bytes) -> None:
            tag = entity_tag(body)
            headers = MutableHeaders(scope=start)
            headers["ETag"] = tag
            if asked is not None and matches(asked, tag):
                del headers["content-length"]
                start["status"] = 304
                body = b""
            await send(start)
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, whole_ok_answers(send, tagged))


def whole_ok_answers(send: Send, whole: Callable[[Message, bytes], Awaitable[None]]) -> Send:
    """A ``send`` that passes every answer but a 200 on as it comes, and hands a 200's start
    message and whole body to ``whole``, which sends what it decides."""
    start: Message | None = None
    chunks: list[bytes] = []

    async def collect(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            if message["status"] != 200:
                start = None
                await send(message)
                return
            start = message
            return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        await whole(start, b"".join(chunks))

    return collect
