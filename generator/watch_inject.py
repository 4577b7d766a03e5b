"""The live-reload script, added at serve time to the HTML pages `storefront watch` serves.

Never written into the output folder: ``LiveReload`` wraps the served app and adds the script to
responses whose content type is text/html, outside the API and session paths. The script
listens to the reload stream: "reload" reloads the page; "error" shows the failed build's
message over the page, as text (``textContent``, never markup).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from generator.serve_app import API_PREFIXES, SESSION_PREFIXES
from generator.watch_events import RELOAD_PATH, ReloadEndpoint

RELOAD_SCRIPT = (
    "<script>(function(){"
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
    "})();</script>"
).encode()
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
