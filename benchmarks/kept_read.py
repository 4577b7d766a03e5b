"""An in-process companion holding one kept catalogue read, for the load test's in-process
figures (``loadtest_bytecodes``, ``loadtest_cold``): a small demo store on SQLite, the shared
rate limit and the request log on, as a worker of several serves."""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The read: a product list, as the shoppers of the load test read it.
PATH, QUERY = "/public/v1/products", b"limit=20"


@dataclass(frozen=True, slots=True)
class Served:
    app: Any  # the served app, as a worker runs it (``companion.server.served_app``)
    scope: dict[str, Any]  # the read, as uvicorn hands it to the app


@asynccontextmanager
async def kept_read_companion(*, bypass: bool) -> AsyncIterator[Served]:
    """A companion of its own store, with or without the chain bypass, having read and kept
    the product list (and the bypass its layers found)."""
    import httpx

    from companion.app import create_app
    from companion.seed.demo import DEMO_KEY, seed_demo
    from companion.server import served_app
    from companion.settings import CompanionSettings

    with tempfile.TemporaryDirectory() as folder, request_log():
        settings = CompanionSettings(
            database=f"sqlite:///{Path(folder) / 'store.sqlite3'}",
            workers=2,
            chain_bypass=bypass,
            rate_per_minute=10**6,
        )
        app = create_app(settings)
        engine = app.state.services.engine
        try:
            seed_demo(engine, products=30)
            front = served_app(app, settings)
            transport = httpx.ASGITransport(app=front)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                for _ in range(3):  # read, kept, and the bypass's layers found
                    answer = await client.get(
                        f"{PATH}?{QUERY.decode()}", headers={"X-Service-Key": DEMO_KEY}
                    )
                    answer.raise_for_status()
            scope = request_scope(DEMO_KEY)
            await serve_once(front, scope)  # every lazy first use out of the way
            yield Served(front, scope)
        finally:
            engine.dispose()


def request_scope(key: str) -> dict[str, Any]:
    """A keep-alive GET as uvicorn hands it to the app (the load test's two headers)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8765),
        "client": ("127.0.0.1", 40000),
        "scheme": "http",
        "method": "GET",
        "root_path": "",
        "path": PATH,
        "raw_path": PATH.encode(),
        "query_string": QUERY,
        "headers": [(b"host", b"127.0.0.1:8765"), (b"x-service-key", key.encode())],
        "state": {},
    }


async def receive_nothing() -> dict[str, Any]:
    """``receive`` of a GET: its empty body."""
    return {"type": "http.request", "body": b"", "more_body": False}


async def serve_once(app: Any, scope: dict[str, Any]) -> None:
    """One request of ``scope`` to ``app``; raises unless it was answered 200."""
    statuses: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app({**scope, "state": {}}, receive_nothing, send)
    if statuses != [200]:
        raise RuntimeError(f"the kept read was answered {statuses}, not 200")


@contextmanager
def request_log() -> Iterator[None]:
    """The request log on, written as a worker writes it (``storefront api``'s set-up: the
    message alone, to one stream), here to nowhere."""
    from companion.logging_http import ACCESS_LOGGER, flush_request_log

    logger = logging.getLogger(ACCESS_LOGGER)
    saved = logger.level, logger.propagate, list(logger.handlers)
    with open(os.devnull, "w", encoding="utf-8") as nowhere:
        handler = logging.StreamHandler(nowhere)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.setLevel(logging.INFO)
        logger.propagate = False
        logger.handlers = [handler]
        try:
            yield
        finally:
            flush_request_log()
            logger.setLevel(saved[0])
            logger.propagate = saved[1]
            logger.handlers = saved[2]
