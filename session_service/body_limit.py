"""Request bodies refused while they are read: past a size (413) or arriving too slowly (408).

A Content-Length over the limit is answered before any of the body is read. Otherwise the body
is counted as the app reads it (a chunked one declares no length): the read that passes the
limit, or a wait for the next piece longer than the read timeout, ends the request there. The
answer (problem JSON with ``Connection: close``, so the rest is never read) goes out at once,
the app is cancelled where it waits for the body (no layer in between sees an error to turn
into another answer, or to log as a crash). The request log gets the reason.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
import anyio.lowlevel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from session_service.refusals import note_refusal

#: The answer to a refusal: (status, code, detail) -> an ASGI response (problem JSON).
Answer = Callable[[int, str, str], ASGIApp]

TOO_LARGE = "body_too_large"
TOO_SLOW = "body_timeout"
_DISCONNECT: Message = {"type": "http.disconnect"}
_CLOSE = (b"connection", b"close")


class BodyLimit:
    def __init__(
        self, app: ASGIApp, *, max_bytes: int, read_timeout: float, answer: Answer
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.read_timeout = read_timeout
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared, chunked = body_framing(scope)
        if declared > self.max_bytes:
            await self.refuse(scope, send, 413)
            return
        if not declared and not chunked:  # no body at all (RFC 9112, 6.3): nothing to guard
            await self.app(scope, receive, send)
            return
        reading = _Reading(self, scope, receive, send)
        with reading.cancel:
            await self.app(scope, reading.receive, reading.send)

    async def refuse(self, scope: Scope, send: Send, status: int) -> None:
        """The refusal's answer, closing the connection; noted for the request log."""
        code = TOO_LARGE if status == 413 else TOO_SLOW
        note_refusal(scope, code)
        detail = (
            f"a body of at most {self.max_bytes} bytes"
            if status == 413
            else f"the body did not arrive: nothing came for {self.read_timeout:g} s"
        )

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), _CLOSE]}
            await send(message)

        await self.answer(status, code, detail)(scope, _gone, closing)


class _Reading:
    """One request's body as the app reads it: counted, each wait bounded."""

    __slots__ = (
        "_receive", "_send", "cancel", "count", "done", "limit", "refused", "scope", "started",
    )  # fmt: skip

    def __init__(self, limit: BodyLimit, scope: Scope, receive: Receive, send: Send) -> None:
        self.limit = limit
        self.scope = scope
        self._receive = receive
        self._send = send
        self.count = 0
        self.done = False  # the whole body was read: later reads wait for a disconnect
        self.refused = False
        self.started = False  # the app's answer began
        self.cancel = anyio.CancelScope()  # around the app: ended at a refusal

    async def receive(self) -> Message:
        if self.refused:
            return _DISCONNECT
        if self.done:
            return await self._receive()
        with anyio.move_on_after(self.limit.read_timeout) as waited:
            message = await self._receive()
        if waited.cancelled_caught:
            return await self._refuse(408)
        if message["type"] == "http.request":
            self.count += len(message.get("body", b""))
            if self.count > self.limit.max_bytes:
                return await self._refuse(413)
            self.done = not message.get("more_body", False)
        return message

    async def send(self, message: Message) -> None:
        if self.refused:
            return  # the refusal was the answer
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)

    async def _refuse(self, status: int) -> Message:
        self.refused = True
        if self.started:  # too late for another answer: only the log says why
            note_refusal(self.scope, TOO_LARGE if status == 413 else TOO_SLOW)
        else:
            await self.limit.refuse(self.scope, self._send, status)
        self.cancel.cancel()  # the app ends here, at its next wait
        await anyio.lowlevel.checkpoint()
        return _DISCONNECT  # for an app that goes on (a thread's work finishing): it is over


async def _gone() -> Message:
    return _DISCONNECT


def body_framing(scope: Scope) -> tuple[int, bool]:
    """The declared Content-Length (0 when none or unreadable) and whether the body is sent
    in chunks (Transfer-Encoding)."""
    declared, chunked = 0, False
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                declared = int(value)
            except ValueError:
                declared = 0
        elif name == b"transfer-encoding":
            chunked = True
    return declared, chunked
