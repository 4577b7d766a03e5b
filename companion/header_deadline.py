"""uvicorn's HTTP protocol with a deadline on each request's head (request line and headers).

uvicorn times out only idle keep-alive connections, after an answer: a connection that sends
half a request line, or headers a byte at a time, is held open for as long as the client likes,
and enough of them take every connection a worker can hold. Here a connection must send a
request's whole head within the deadline: counted from when it opened for its first request,
and from the request's first byte for the next ones on a kept-alive connection (the time it
waited idle is uvicorn's keep-alive timeout). Past it the connection is closed; when the
client had started a request, the request log gets a line (408, ``header_timeout``).

The deadline is the served app's: the first layer of it that has a ``header_timeout``, as an
attribute (the session service's ``OnlySession``) or in its ``state`` (the companion's app),
looked for through the layers that wrap it (``.app``, and ``.api`` beside the session
endpoints). Only parser callbacks and the connection's own events are extended, no private
method of uvicorn.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from companion.logging_http import log_refused_connection
from companion.settings import CompanionSettings

#: The deadline when the app names none.
DEFAULT_SECONDS = CompanionSettings().header_timeout
REASON = "header_timeout"


def header_timeout_of(app: object) -> float:
    """The deadline the app (or a layer it wraps) asks for, else ``DEFAULT_SECONDS``."""
    node: object = app
    for _ in range(32):  # a chain of layers, never a cycle
        seconds = getattr(node, "header_timeout", None)
        if seconds is None:
            seconds = getattr(getattr(node, "state", None), "header_timeout", None)
        if isinstance(seconds, int | float) and seconds > 0:
            return float(seconds)
        inner = getattr(node, "app", None) or getattr(node, "api", None)
        if inner is None:
            break
        node = inner
    return DEFAULT_SECONDS


class HeaderDeadlineProtocol(HttpToolsProtocol):
    """One timer per connection, not one per request: a request's head only notes when it
    began, and the timer, when it fires, closes the connection or waits again for what is
    left of the head's time (or a whole deadline, while no head is awaited)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout_of(self.app)
        self._timer: asyncio.TimerHandle | None = None
        self._head_since: float | None = None  # loop time the awaited head's wait began
        self._head_begun = False  # a byte of the awaited request came

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._head_since = self.loop.time()
        self._timer = self.loop.call_later(self.header_timeout, self._check_head)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_begun = True
        if self._head_since is None:  # the next request on a kept-alive connection
            self._head_since = self.loop.time()

    def on_headers_complete(self) -> None:
        self._head_since = None
        self._head_begun = False
        super().on_headers_complete()

    def _check_head(self) -> None:
        since, now = self._head_since, self.loop.time()
        if since is None or now < since + self.header_timeout:
            wait = self.header_timeout if since is None else since + self.header_timeout - now
            self._timer = self.loop.call_later(wait, self._check_head)
            return
        self._timer = None
        if self._head_begun:
            log_refused_connection(REASON, 408)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.keep_alive = False  # a pipelined head is late: close after the answer under way
        elif not self.transport.is_closing():
            self.transport.close()
