"""Live-reload events of `storefront watch`: what the last rebuild did, told to open tabs.

``ReloadBroadcaster`` holds the open tabs' subscriptions; the rebuild publishes "reload" after a
good build and "error" (the one-line message) after a failed one. A tab that connects while the
last build is broken gets that error at once, so a fresh page shows the overlay too.
``reload_endpoint`` streams those events as Server-Sent Events at ``RELOAD_PATH``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.types import Message, Receive, Scope, Send

RELOAD_PATH = "/_storefront/reload"
#: Events a slow tab may have pending; past that it misses some (the next one still arrives).
_BUFFER = 16
#: A comment line this often keeps proxies and the browser from dropping an idle stream.
_KEEPALIVE_SECONDS = 15.0


@dataclass(frozen=True, slots=True)
class ReloadEvent:
    name: str  # "reload" or "error"
    message: str = ""

    def encode(self) -> bytes:
        """The SSE frame: one ``data:`` line per message line (a data line cannot hold one)."""
        lines = self.message.splitlines() or [""]
        data = "".join(f"data: {line}\n" for line in lines)
        return f"event: {self.name}\n{data}\n".encode()


class ReloadBroadcaster:
    def __init__(self) -> None:
        self._subscribers: set[MemoryObjectSendStream[ReloadEvent]] = set()
        self.last_error: str | None = None
        self.closed = False

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def publish_reload(self) -> None:
        self.last_error = None
        self._publish(ReloadEvent("reload"))

    def publish_error(self, message: str) -> None:
        self.last_error = message
        self._publish(ReloadEvent("error", message))

    def close(self) -> None:
        """Ends every stream (the server is stopping); later subscriptions end at once."""
        self.closed = True
        for stream in list(self._subscribers):
            stream.close()
        self._subscribers.clear()

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[MemoryObjectReceiveStream[ReloadEvent]]:
        send, receive = anyio.create_memory_object_stream[ReloadEvent](_BUFFER)
        if self.last_error is not None:
            send.send_nowait(ReloadEvent("error", self.last_error))
        if self.closed:
            send.close()
        else:
            self._subscribers.add(send)
        try:
            yield receive
        finally:
            self._subscribers.discard(send)
            send.close()
            receive.close()

    def _publish(self, event: ReloadEvent) -> None:
        for stream in list(self._subscribers):
            try:
                stream.send_nowait(event)
            except anyio.WouldBlock:
                pass  # a stalled tab; it catches up with the next event
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._subscribers.discard(stream)


class ReloadEndpoint:
    """ASGI app streaming the broadcaster's events until the tab leaves or the server stops."""

    def __init__(self, broadcaster: ReloadBroadcaster) -> None:
        self.broadcaster = broadcaster

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-cache"),
                ],
            }
        )
        async with anyio.create_task_group() as tg:

            async def until_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                tg.cancel_scope.cancel()

            tg.start_soon(until_disconnect)
            async with self.broadcaster.subscribe() as events:
                await send(_chunk(b": connected\n\n"))
                while True:
                    with anyio.move_on_after(_KEEPALIVE_SECONDS):
                        try:
                            event = await events.receive()
                        except anyio.EndOfStream:
                            break
                        await send(_chunk(event.encode()))
                        continue
                    await send(_chunk(b": ping\n\n"))
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            tg.cancel_scope.cancel()


def _chunk(body: bytes) -> Message:
    return {"type": "http.response.body", "body": body, "more_body": True}
