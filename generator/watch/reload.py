"""Live reload of `storefront watch`: what the last rebuild did, told to open tabs.

``ReloadBroadcaster`` holds the open tabs' subscriptions; the rebuild publishes "reload" after a
good build and "error" (the one-line message) after a failed one. A tab that connects while the
last build is broken gets that error at once, so a fresh page shows the overlay too.
``ReloadEndpoint`` streams those events as Server-Sent Events at ``RELOAD_PATH``.

The script that listens is added at serve time to the HTML pages watch serves, never written
into the output folder: ``LiveReload`` wraps the served app, serves the script at
``RELOAD_SCRIPT_PATH`` (same origin: the site's Content-Security-Policy allows it) and adds a
``<script src>`` for it to text/html responses outside the API and session paths. "reload"
reloads the page; "error" shows the failed build's message over the page, as text
(``textContent``, never markup).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from generator.serve.app import API_PREFIXES, SESSION_PREFIXES

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


#: The listener, served as a file at ``RELOAD_SCRIPT_PATH``: an inline script would need the
#: site's Content-Security-Policy to allow it, and the policy is the build's, not watch's.
RELOAD_JS = (
    "(function(){"
    f'var s=new EventSource("{RELOAD_PATH}");'
    's.addEventListener("reload",function(){location.reload();});'
    's.addEventListener("error",function(e){'
    'if(typeof e.data!=="string")return;'  # the browser's own connection errors carry no data
    'var o=document.getElementById("storefront-build-error");'
    'if(!o){o=document.createElement("pre");o.id="storefront-build-error";'
    'o.style.cssText="position:fixed;inset:auto 0 0 0;z-index:2147483647;margin:0;'
    "padding:1em;background:#7f1d1d;color:#fff;font:14px/1.4 monospace;"
    'white-space:pre-wrap;max-height:50vh;overflow:auto";'
    "document.body.appendChild(o);}"
    'o.textContent="Build failed: "+e.data;});'
    "})();\n"
).encode()
RELOAD_SCRIPT_PATH = RELOAD_PATH + ".js"
RELOAD_SCRIPT = f'<script src="{RELOAD_SCRIPT_PATH}"></script>'.encode()
_BODY_END = b"</body>"


def inject_script(html: bytes) -> bytes:
    """``html`` with the script before its last ``</body>``, or at the end when it has none."""
    at = html.lower().rfind(_BODY_END)
    if at < 0:
        return html + RELOAD_SCRIPT
    return html[:at] + RELOAD_SCRIPT + html[at:]


class LiveReload:
    """Serves ``RELOAD_PATH`` from the endpoint and adds the script to ``app``'s HTML pages."""

    def __init__(self, app: ASGIApp, endpoint: ReloadEndpoint) -> None:
        self.app = app
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if path == RELOAD_PATH:
            await self.endpoint(scope, receive, send)
            return
        if path == RELOAD_SCRIPT_PATH:
            script = Response(
                RELOAD_JS,
                media_type="text/javascript; charset=utf-8",
                headers={"Cache-Control": "no-cache"},
            )
            await script(scope, receive, send)
            return
        if path.startswith(API_PREFIXES + SESSION_PREFIXES):
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _Injector(send, head=scope.get("method") == "HEAD"))


class _Injector:
    """A ``send`` that holds an HTML response until its body is complete, then adds the script
    and corrects Content-Length; any other response passes straight through."""

    def __init__(self, send: Send, *, head: bool) -> None:
        self.send = send
        self.head = head
        self.start: Message | None = None
        self.body = bytearray()

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            if _is_plain_html(message["headers"]):
                self.start = message
                return
        elif message["type"] == "http.response.body" and self.start is not None:
            self.body += message.get("body", b"")
            if message.get("more_body", False):
                return
            body = bytes(self.body) if self.head else inject_script(bytes(self.body))
            headers = [(k, v) for k, v in self.start["headers"] if k.lower() != b"content-length"]
            if not self.head:
                headers.append((b"content-length", str(len(body)).encode()))
            await self.send({**self.start, "headers": headers})
            await self.send({"type": "http.response.body", "body": body, "more_body": False})
            return
        await self.send(message)


def _is_plain_html(headers: list[tuple[bytes, bytes]]) -> bool:
    """text/html without a content encoding (a compressed body cannot take the script)."""
    values = {key.lower(): value.lower() for key, value in headers}
    return values.get(b"content-type", b"").startswith(b"text/html") and (
        b"content-encoding" not in values
    )
