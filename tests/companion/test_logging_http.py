"""Request logs: one JSON line per request, with the request id that is echoed to the client."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import os
import select
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from starlette.types import Message, Receive, Scope, Send

from companion.app import create_app
from companion.logging_http import (
    ACCESS_LOGGER,
    PendingLines,
    RequestLogMiddleware,
    _chunks,
    flush_request_log,
    log_line,
    new_request_id,
    pending,
    plain_stream,
    request_id_from,
    request_line,
)
from companion.server import log_config
from companion.settings import CompanionSettings
from tests.companion.conftest import PREFIX, Api

pytestmark = pytest.mark.anyio


def logged(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]


async def test_a_given_request_id_is_echoed_and_logged(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    response = await api.client.get(
        f"{PREFIX}/products",
        params={"cart_token": "secret-token"},
        headers={"X-Service-Key": api.key, "X-Request-Id": "lb-42.a"},
    )
    assert response.headers["X-Request-Id"] == "lb-42.a"
    [line] = logged(caplog)
    assert line["request_id"] == "lb-42.a"
    assert line["method"] == "GET"
    assert line["path"] == f"{PREFIX}/products"  # the query (cart tokens) is never logged
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], float)
    assert line["duration_ms"] == round(line["duration_ms"], 2)  # in hundredths
    assert "secret-token" not in caplog.text


@pytest.mark.parametrize("given", [None, "two words", "x" * 129, "id\nforged log line"])
async def test_a_missing_or_unsafe_request_id_is_replaced(
    api: Api, caplog: pytest.LogCaptureFixture, given: str | None
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    headers = {} if given is None else {"X-Request-Id": given}
    response = await api.client.get("/health/live", headers=headers)
    made = response.headers["X-Request-Id"]
    assert len(made) == 32 and made != given
    assert logged(caplog)[0]["request_id"] == made


async def test_refused_requests_are_logged_with_their_status(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    response = await api.client.get(f"{PREFIX}/store", headers={"X-Service-Key": "pk_wrong"})
    assert response.status_code == 401
    assert "X-Request-Id" in response.headers
    assert [line["status"] for line in logged(caplog)] == [401]


@pytest.mark.parametrize(
    ("when", "path", "duration"),
    [
        (1_795_000_000.0, "/public/v1/products", 0.52),
        (1_795_000_000.9994, '/public/v1/products/by-slug/áo-"thun"\\x', 12.0),
        (1_795_000_059.0601, "/đường/\n\t\x01", 0.0),
        (1_795_003_599.5, "/health/live", 1234.57),
        (1_795_000_000.25, "/public/v1/store", 3.14159),  # taken unrounded, written rounded
    ],
)
def test_the_request_line_is_the_json_of_its_fields(
    when: float, path: str, duration: float
) -> None:
    line = request_line(when, "lb-42.a", "GET", path, 201, duration)
    assert line == log_line(
        time=datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds"),
        request_id="lb-42.a",
        method="GET",
        path=path,
        status=201,
        duration_ms=round(duration, 2),
        worker=os.getpid(),
    )


def test_a_refused_request_line_ends_with_its_reason() -> None:
    reason = 'return_url: holds a backslash "\\" \n'
    line = request_line(1_795_000_000.0, "r1", "POST", "/public/v1/checkout/pay", 422, 1.5, reason)
    assert line == log_line(
        time="2026-11-18T11:06:40.000+00:00",
        request_id="r1",
        method="POST",
        path="/public/v1/checkout/pay",
        status=422,
        duration_ms=1.5,
        worker=os.getpid(),
        refused=reason,
    )


def test_made_request_ids_are_distinct_random_uuids() -> None:
    # Past two batches of 256, from both ways of asking for one.
    made = [request_id_from({"type": "http", "headers": []}) for _ in range(300)]
    made += [new_request_id() for _ in range(300)]
    assert len(set(made)) == len(made)
    for value in made:
        parsed = uuid.UUID(hex=value)
        assert (parsed.hex, parsed.version, parsed.variant) == (value, 4, uuid.RFC_4122)


@pytest.fixture
def served_log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """The request log set up as `storefront api` sets it up, writing to a string."""
    logger = logging.getLogger(ACCESS_LOGGER)
    saved = (logger.handlers[:], logger.level, logger.propagate, logger.filters[:])
    logging.config.dictConfig(log_config())
    stream = io.StringIO()
    cast(logging.StreamHandler[Any], logger.handlers[0]).setStream(stream)
    try:
        yield logger, stream
    finally:
        flush_request_log()
        logger.handlers[:], logger.level, logger.propagate, logger.filters[:] = saved


def server_handler_only(logger: logging.Logger) -> None:
    """Without the handlers pytest adds to catch records while a test runs."""
    logger.handlers[:] = [h for h in logger.handlers if type(h) is logging.StreamHandler]


async def test_the_server_log_gets_one_line_per_request(
    api: Api, served_log: tuple[logging.Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = served_log
    server_handler_only(logger)
    assert plain_stream(logger) is logger.handlers[0]
    monkeypatch.setattr(PendingLines, "FLUSH_SECONDS", 0.05)
    for _ in range(2):
        await api.client.get("/health/live", headers={"X-Request-Id": "lb-7"})
    await anyio.sleep(0.3)  # written by the timer, no flush asked
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["request_id"], line["status"]) for line in lines] == [("lb-7", 200)] * 2
    assert stream.getvalue().endswith("\n")


async def test_server_log_lines_wait_for_at_most_a_full_batch(
    api: Api, served_log: tuple[logging.Logger, io.StringIO]
) -> None:
    logger, stream = served_log
    server_handler_only(logger)
    count = PendingLines.MAX_WAITING + 3
    for number in range(count):
        pending.add(logger, (1.0e9, f"id-{number}", "GET", "/x", 200, 0.5))
    written = stream.getvalue().splitlines()
    assert [json.loads(line)["request_id"] for line in written] == [
        f"id-{number}" for number in range(PendingLines.MAX_WAITING)
    ]
    flush_request_log()
    assert len(stream.getvalue().splitlines()) == count


async def test_the_server_log_is_written_when_the_app_shuts_down(
    served_log: tuple[logging.Logger, io.StringIO], tmp_path: Path
) -> None:
    logger, stream = served_log
    server_handler_only(logger)
    app = create_app(CompanionSettings(database=str(tmp_path / "store.sqlite3")))
    async with app.router.lifespan_context(app):
        pending.add(logger, (1.0e9, "last", "GET", "/x", 200, 0.5))
    assert json.loads(stream.getvalue())["request_id"] == "last"


async def test_the_waiting_lines_are_written_before_any_app_behind_the_log_says_it_stopped(
    served_log: tuple[logging.Logger, io.StringIO],
) -> None:
    # A worker stopped by a signal then ends by that signal: exit hooks never run.
    logger, stream = served_log
    server_handler_only(logger)
    asked = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    said: list[tuple[str, str]] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        pending.add(logger, (1.0e9, "last", "GET", "/x", 200, 0.5))
        await send({"type": "lifespan.shutdown.complete"})

    async def receive() -> Message:
        return asked.pop(0)

    async def send(message: Message) -> None:
        said.append((message["type"], stream.getvalue()))

    await RequestLogMiddleware(app)({"type": "lifespan"}, receive, send)
    assert [kind for kind, _ in said] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert json.loads(said[1][1])["request_id"] == "last"


def test_server_log_writes_are_whole_lines_a_pipe_takes_at_once() -> None:
    lines = [f"{n:04d}" + "x" * 95 + "\n" for n in range(100)] + ["y" * 5000 + "\n", "z\n"]
    chunks = _chunks(lines, select.PIPE_BUF)
    assert "".join(chunks) == "".join(lines)
    assert all(chunk.endswith("\n") for chunk in chunks)
    assert [len(c.encode()) > select.PIPE_BUF for c in chunks].count(True) == 1  # the long line
    assert all(len(c.encode()) <= select.PIPE_BUF for c in chunks if "y" not in c)
    assert len(chunks) == 5  # 4,096 bytes hold 40 of the 100-byte lines: 40, 40, 20, then y, z


async def test_a_filter_on_the_server_log_still_applies(
    api: Api, served_log: tuple[logging.Logger, io.StringIO]
) -> None:
    logger, stream = served_log
    server_handler_only(logger)
    logger.handlers[0].addFilter(lambda record: "secret" not in record.getMessage())
    assert plain_stream(logger) is None
    await api.client.get("/health/live", headers={"X-Request-Id": "secret"})
    await api.client.get("/health/live", headers={"X-Request-Id": "open"})
    flush_request_log()
    assert [json.loads(line)["request_id"] for line in stream.getvalue().splitlines()] == ["open"]


async def test_refused_keys_are_logged_with_their_reason(
    api: Api, served_log: tuple[logging.Logger, io.StringIO]
) -> None:
    logger, stream = served_log
    server_handler_only(logger)
    sent = {
        "k-unknown": "pk_live_" + "x" * 32,
        "k-malformed": "pl_live_1",
        "k-secret": "sk_live_1",
        "k-good": api.key,
    }
    for request_id, key in sent.items():
        headers = {"X-Request-Id": request_id, "X-Service-Key": key}
        await api.client.get("/public/v1/store", headers=headers)
    flush_request_log()
    lines = {line["request_id"]: line for line in map(json.loads, stream.getvalue().splitlines())}
    assert (lines["k-unknown"]["status"], lines["k-unknown"]["refused"]) == (401, "unknown_key")
    assert (lines["k-malformed"]["status"], lines["k-malformed"]["refused"]) == (
        401,
        "malformed_key",
    )
    assert (lines["k-secret"]["status"], lines["k-secret"]["refused"]) == (401, "secret_key")
    assert lines["k-good"]["status"] == 200 and "refused" not in lines["k-good"]


def test_a_filter_added_while_lines_wait_applies_to_them(
    served_log: tuple[logging.Logger, io.StringIO],
) -> None:
    """Whether the log is a plain stream is asked once a batch: a logger set up otherwise before
    the batch is written gets its lines as records, which its filter sees."""
    logger, stream = served_log
    server_handler_only(logger)
    pending.add(logger, (1.0e9, "open", "GET", "/x", 200, 0.5))
    logger.handlers[0].addFilter(lambda record: "secret" not in record.getMessage())
    pending.add(logger, (1.0e9, "secret", "GET", "/x", 200, 0.5))
    flush_request_log()
    assert [json.loads(line)["request_id"] for line in stream.getvalue().splitlines()] == ["open"]


async def test_a_request_log_turned_off_writes_no_line(
    api: Api, served_log: tuple[logging.Logger, io.StringIO]
) -> None:
    logger, stream = served_log
    server_handler_only(logger)
    logger.setLevel(logging.WARNING)
    await api.client.get("/health/live", headers={"X-Request-Id": "quiet"})
    pending.add(logger, (1.0e9, "quiet-too", "GET", "/x", 200, 0.5))
    flush_request_log()
    assert stream.getvalue() == ""


async def test_a_request_log_turned_off_while_lines_wait_writes_none_of_them(
    served_log: tuple[logging.Logger, io.StringIO],
) -> None:
    """The level is read as a batch starts and as it is written, not for each line."""
    logger, stream = served_log
    server_handler_only(logger)
    pending.add(logger, (1.0e9, "first", "GET", "/x", 200, 0.5))
    logger.setLevel(logging.WARNING)
    pending.add(logger, (1.0e9, "second", "GET", "/x", 200, 0.5))
    flush_request_log()
    assert stream.getvalue() == ""
    logger.setLevel(logging.INFO)
    pending.add(logger, (1.0e9, "third", "GET", "/x", 200, 0.5))
    flush_request_log()
    assert [json.loads(line)["request_id"] for line in stream.getvalue().splitlines()] == ["third"]
