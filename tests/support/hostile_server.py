"""A fake API over real HTTP on loopback, for builds run as a user runs them (a subprocess).

``serving(handler)`` runs uvicorn on a thread with a small ASGI app that turns each request
into an ``httpx.Request``, asks ``handler`` (a ``FakeApi.handle`` or any function of
``tests.support.hostile_api``) and sends its ``httpx.Response`` back as it is: status,
headers, and the body chunk by chunk as the handler produces it (a drip stays a drip, an
endless body stays endless, a gzip body stays compressed). ``handler`` may be swapped while
the server runs (``Served.handler``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
from starlette.types import Receive, Scope, Send

from tests.support.hostile_api import Handler
from tests.support.loopback import loopback_socket, serving_on

#: Headers uvicorn writes itself (a body it frames, a connection it manages).
_FRAMING = frozenset({"transfer-encoding", "connection"})


@dataclass
class Served:
    base_url: str  # ends in /public/v1
    handler: Handler


class _Bridge:
    def __init__(self, served: Served) -> None:
        self.served = served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        query = scope.get("query_string", b"").decode("latin-1")
        url = httpx.URL(f"http://hostile.test{scope['raw_path'].decode('latin-1')}")
        if query:
            url = url.copy_with(query=query.encode("latin-1"))
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        answer = self.served.handler(httpx.Request(scope["method"], url, headers=headers))
        if inspect.isawaitable(answer):
            answer = await answer
        await send(
            {
                "type": "http.response.start",
                "status": answer.status_code,
                "headers": [
                    (k.encode("latin-1"), v.encode("latin-1"))
                    for k, v in answer.headers.multi_items()
                    if k.lower() not in _FRAMING
                ],
            }
        )
        try:
            body = answer.content  # an answer made whole (json=, content=bytes)
        except httpx.ResponseNotRead:
            pass
        else:
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        try:
            async for chunk in answer.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except OSError:
            return  # the build hung up: what it was sent is all it gets
        await send({"type": "http.response.body", "body": b"", "more_body": False})


@contextmanager
def serving(handler: Handler) -> Iterator[Served]:
    sock, origin = loopback_socket()
    served = Served(f"{origin}/public/v1", handler)
    with serving_on(sock, _Bridge(served), what="the hostile API server"):
        yield served
