"""uvicorn's HTTP protocol, answering kept catalogue reads as soon as their head is parsed.

For every request uvicorn makes an ASGI task, and the answer goes out through two ``send``
messages, each checked, then written by a separate system call. For a read the front door can
answer from memory without waiting (``FrontDoor.answer_now``: a kept answer and a unit of this
worker's rate-limit lease) that machinery costs more than the answer: in a worker at the load
test's pace, a fixed answer written here took 0.12 to 0.16 ms of CPU against 0.22 to 0.30 through
an ASGI app (docs/benchmarks.md). So the answer is written here, in one write, with the headers
uvicorn would add (its ``Date``; ``Connection: close`` when the connection ends after it), and
the request is done as uvicorn ends one (the next pipelined request starts, or the keep-alive
timer does).

Everything else goes to the app as before: another method, a request the front door declines
(it then changed nothing), one that must wait for a lease, a connection whose writes are paused,
and every request when the app has no front door (the load test's bare endpoint is served
through this class too). Only uvicorn's ``_start_asgi_task``, where a parsed request becomes a
task, is replaced; an uvicorn without it serves every request the usual way. Each request's
head must come within the app's deadline (``companion.header_deadline``).
"""

from __future__ import annotations

from typing import Any, cast

from starlette.types import Scope
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, RequestResponseCycle

from companion.front_door import CompanionApp, FrontDoor
from companion.header_deadline import HeaderDeadlineProtocol
from companion.session_mount import SessionBeside


def front_door_of(app: object) -> FrontDoor | None:
    """The front door of the companion app ``app`` is, or wraps in layers that do not change
    a catalogue read's answer; None for anything else."""
    node = app
    while True:
        if isinstance(node, CompanionApp):
            return node.front_door if node.serve_from_memory else None
        if isinstance(node, ProxyHeadersMiddleware):
            node = node.app  # sets the client's address and scheme only
        elif isinstance(node, SessionBeside):
            node = node.api  # only /session/... goes elsewhere
        else:
            return None


class FrontDoorProtocol(HeaderDeadlineProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.door = front_door_of(self.app)

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        door = self.door
        if (
            door is not None
            and app is self.app  # not uvicorn's 503 for too many connections
            and cycle.scope["method"] == "GET"
            and not self.flow.write_paused
        ):
            try:
                answer = door.answer_now(cast(Scope, cycle.scope))
            except Exception:  # answered through the app then, its crash barrier around it
                self.logger.exception("The front door failed on a request")
                answer = None
            if answer is not None:
                self._write(cycle, *answer)
                return
        super()._start_asgi_task(cycle, app)

    def _write(
        self,
        cycle: RequestResponseCycle,
        status: int,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
    ) -> None:
        """The answer as ``RequestResponseCycle.send`` writes it (names already in lower case,
        a length on every 200), in one write; then the request ends as uvicorn ends one."""
        content = [STATUS_LINE[status]]
        for name, value in (*self.server_state.default_headers, *headers):
            content += (name, b": ", value, b"\r\n")
        if not cycle.keep_alive:
            content.append(b"connection: close\r\n")
        content += (b"\r\n", body)
        cycle.response_started = cycle.response_complete = True
        self.transport.write(b"".join(content))
        if not cycle.keep_alive:
            self.transport.close()
        cycle.on_response()
