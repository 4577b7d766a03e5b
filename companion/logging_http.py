"""Structured request logs: one JSON line per request, tied together by a request id.

The id comes from the client or the proxy (``X-Request-Id``, e.g. nginx's ``$request_id``) when
it is a plain token, and is made here otherwise; it is sent back on every answer, so a customer's
error report can be matched to the worker's log line. Only the path is logged, never the query
string (it carries cart tokens) or any header value. A request refused for what it is (a body
past its limit, a throttled login, a bad signature, an address that is not the store's) carries
the reason (``note_refusal``), so an operator can see an attack.

Every request writes a line, so the line is made without the general JSON encoder, ids
without a system call each, and the record is handed to the logger's handlers without looking
up the calling code. Lines for a plain stream (how ``storefront api`` logs) wait up to a second
and are made and written together (``PendingLines``): one write for many lines rather than a
write each.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import re
import select
import time
from datetime import UTC, datetime
from json.encoder import encode_basestring
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from session_service.refusals import REFUSED
from session_service.refusals import note_refusal as note_refusal  # the companion's modules' way

REQUEST_ID_HEADER = "X-Request-Id"
#: Logger of the request lines; servers send it to stderr (``companion.server``).
ACCESS_LOGGER = "companion.access"
#: What a client-given id may look like; anything else is replaced (no log injection).
_TOKEN = re.compile(r"[A-Za-z0-9._:-]{1,128}")


_REQUEST_ID_NAME = REQUEST_ID_HEADER.lower().encode()


def request_id_from(scope: Scope) -> str:
    """The request's id: its X-Request-Id (the first) when a plain token, else a new one."""
    for name, value in scope["headers"]:
        if name == _REQUEST_ID_NAME:
            return request_id_of(value.decode("latin-1"))
    return _new_ids.next()


def request_id_of(given: str) -> str:
    """The client's id when it is a plain token, else a new one."""
    return given if _TOKEN.fullmatch(given) else _new_ids.next()


def new_request_id() -> str:
    """A new id, for a request that came without one."""
    return _new_ids.next()


class _RandomIds:
    """Random version-4 UUIDs in hex, as ``uuid.uuid4().hex`` makes them, from the system's
    random bytes fetched 256 at a time and made into ids together: one system call, and one
    run of this code, for 256 requests. Used on the event loop only; a forked child makes its
    own."""

    BATCH = 256

    def __init__(self) -> None:
        self._ready: list[str] = []

    def next(self) -> str:
        if not self._ready:
            pool = os.urandom(16 * self.BATCH)
            self._ready = [_uuid4_hex(pool[at : at + 16]) for at in range(0, len(pool), 16)]
        return self._ready.pop()

    def forget(self) -> None:
        self._ready = []


def _uuid4_hex(random: bytes) -> str:
    value = int.from_bytes(random, "big")
    value = (value & ~(0xC000 << 48)) | (0x8000 << 48)  # the RFC 4122 variant
    value = (value & ~(0xF000 << 64)) | (4 << 76)  # version 4
    return f"{value:032x}"


_new_ids = _RandomIds()
os.register_at_fork(after_in_child=_new_ids.forget)


def log_line(**fields: object) -> str:
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


def request_line(
    when: float,
    request_id: str,
    method: str,
    path: str,
    status: int,
    duration_ms: float,
    refused: str | None = None,
) -> str:
    """``log_line`` of a request's fields, character for character, made without the general
    encoder (``when``: ``time.time()``; ``duration_ms`` rounded here to hundredths);
    ``refused``, when given, last."""
    reason = "" if refused is None else f',"refused":{encode_basestring(refused)}'
    return (
        f'{{"time":"{_iso_milliseconds(when)}","request_id":{encode_basestring(request_id)},'
        f'"method":{encode_basestring(method)},"path":{encode_basestring(path)},'
        f'"status":{int(status)},"duration_ms":{round(float(duration_ms), 2)!r},"worker":{_pid[0]}'
        f"{reason}}}"
    )


def log_refused_connection(reason: str, status: int) -> None:
    """A line for a connection ended before it made a request (its head came too slowly):
    no method, no path, the status it would have had."""
    pending.add(
        logging.getLogger(ACCESS_LOGGER),
        (time.time(), new_request_id(), "", "", status, 0.0, reason),
    )


_pid = [os.getpid()]  # read again in a forked child
os.register_at_fork(after_in_child=lambda: _pid.__setitem__(0, os.getpid()))
_second: list[tuple[int, str]] = [(-1, "")]  # the last whole second and its ISO form


def _iso_milliseconds(when: float) -> str:
    """``datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds")``, the date and
    time of each second made once."""
    whole = int(when)
    second, prefix = _second[0]
    if whole != second:
        prefix = datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        _second[0] = (whole, prefix)
    return f"{prefix}.{int((when - whole) * 1000):03d}+00:00"


class RequestLogMiddleware:
    """Outermost middleware: sets ``scope["state"]["request_id"]``, echoes it, logs the request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.logger = logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, _flushed_before_shutdown(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(scope)
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500  # what the client sees if the app ends without answering
        id_header = (_REQUEST_ID_NAME, request_id.encode("latin-1"))

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = message["headers"] = list(message["headers"])
                if any(name == _REQUEST_ID_NAME for name, _ in headers):
                    MutableHeaders(raw=headers)[REQUEST_ID_HEADER] = request_id  # replaced
                else:
                    headers.append(id_header)
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            self.log(scope, request_id, status, started)

    def log(self, scope: Scope, request_id: str, status: int, started: float) -> None:
        """The request's line (``started``: ``time.perf_counter()`` when it came in)."""
        state = scope.get("state")
        fields: LineFields = (
            time.time(),
            request_id,
            scope.get("method", ""),
            scope.get("path", ""),
            status,
            (time.perf_counter() - started) * 1000,  # rounded as lines are made, together
            state.get(REFUSED) if state else None,
        )
        pending.add(self.logger, fields)


def _flushed_before_shutdown(send: Send) -> Send:
    """``send`` of the app's lifespan, writing the waiting request lines as it says it stopped:
    uvicorn then ends a worker stopped by a signal with that signal, and exit hooks do not run."""

    async def sending(message: Message) -> None:
        if message["type"] == "lifespan.shutdown.complete":
            flush_request_log()
        await send(message)

    return sending


#: A request line's fields: ``request_line``'s arguments.
LineFields = tuple[float, str, str, str, int, float, str | None]


def _emit(logger: logging.Logger, line: str) -> None:
    # logger.info(line) without looking up the calling line of code (about half of its cost):
    # the request log's format has no use for it.
    logger.handle(logger.makeRecord(logger.name, logging.INFO, "", 0, line, (), None))


class PendingLines:
    """Request lines on their way to a plain stream, made and written together: at most
    ``FLUSH_SECONDS`` after their request (a timer on the event loop), or as soon as
    ``MAX_WAITING`` wait, when the app shuts down, and when the interpreter ends.

    Whether the logger logs requests (its level) and writes to a plain stream (``plain_stream``)
    is asked for the first line of a batch and again as the batch is written, not for each
    line: a logger turned off meanwhile writes none of the batch, one set up otherwise gets its
    lines as records, through its own handlers."""

    FLUSH_SECONDS = 1.0
    MAX_WAITING = 256

    def __init__(self) -> None:
        self._fields: list[LineFields] = []
        self._to: tuple[logging.StreamHandler[Any], logging.Logger] | None = None

    def add(self, logger: logging.Logger, fields: LineFields) -> None:
        to = self._to
        if to is None or to[1] is not logger:
            if not logger.isEnabledFor(logging.INFO):
                return
            handler = plain_stream(logger)
            if handler is None:  # a filter, a format, another handler: the logger's own path
                _emit(logger, request_line(*fields))
                return
            if to is not None:
                self.flush()
            self._to = (handler, logger)
        waiting = self._fields
        waiting.append(fields)
        if len(waiting) >= self.MAX_WAITING:
            self.flush()
        elif len(waiting) == 1:
            try:
                asyncio.get_running_loop().call_later(self.FLUSH_SECONDS, self.flush)
            except RuntimeError:  # no event loop to write them later
                self.flush()

    def flush(self) -> None:
        fields, self._fields = self._fields, []
        to, self._to = self._to, None
        if not fields or to is None:
            return
        handler, logger = to
        if not logger.isEnabledFor(logging.INFO):
            return
        lines = [request_line(*f) for f in fields]
        # The logger's own path when it is set up otherwise now, or reports why the write failed
        if plain_stream(logger) is not handler or not _write(handler, lines):
            for line in lines:
                _emit(logger, line)

    def forget(self) -> None:
        """In a forked child: the parent's lines are the parent's to write."""
        self._fields, self._to = [], None


def _write(handler: logging.StreamHandler[Any], lines: list[str]) -> bool:
    handler.acquire()
    try:
        for chunk in _chunks([line + handler.terminator for line in lines], select.PIPE_BUF):
            handler.stream.write(chunk)
            handler.flush()
    except Exception:  # noqa: BLE001
        return False
    finally:
        handler.release()
    return True


def _chunks(lines: list[str], limit: int) -> list[str]:
    """The lines joined into pieces of at most ``limit`` bytes (a longer line alone): a pipe
    takes each in one piece, so lines of two workers sharing it never mix."""
    chunks: list[str] = []
    piece: list[str] = []
    size = 0
    for line in lines:
        length = len(line.encode())
        if piece and size + length > limit:
            chunks.append("".join(piece))
            piece, size = [], 0
        piece.append(line)
        size += length
    if piece:
        chunks.append("".join(piece))
    return chunks


pending = PendingLines()
atexit.register(pending.flush)
os.register_at_fork(after_in_child=pending.forget)


def flush_request_log() -> None:
    """Write the request lines still waiting (the app's shutdown; tests reading the stream)."""
    pending.flush()


def plain_stream(logger: logging.Logger) -> logging.StreamHandler[Any] | None:
    """The logger's handler when the message is all it writes, as it is, to one stream (how
    ``storefront api`` sets up the request log): the line is then written there directly,
    without a log record. None when anything else (a filter, a format, another handler,
    propagation) may act on it."""
    if logger.filters or logger.propagate or len(logger.handlers) != 1:
        return None
    handler = logger.handlers[0]
    if type(handler) is not logging.StreamHandler or handler.filters:
        return None
    formatter = handler.formatter
    if handler.level > logging.INFO or (
        formatter is not None
        and (type(formatter) is not logging.Formatter or formatter._fmt != "%(message)s")
    ):
        return None
    return handler
