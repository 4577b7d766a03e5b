"""The Python bytecodes one kept catalogue read runs in the companion: a figure that does not
drift with the machine's speed, printed by `make loadtest` beside the CPU it measures.

A read the answer cache holds is counted twice, on the same app: answered by the chain bypass
(``companion.chain_bypass``) and down the middleware chain. Each is traced (``sys.settrace``
with ``f_trace_opcodes``) from the served app's call to its answer, on an in-process companion
of a small demo store on SQLite with the shared rate limit and the request log on, as a worker
of several serves. Not counted: uvicorn's own code (the same for every answer), the request
log's batched write (about once a second for all the lines) and C code.

    python -m benchmarks.loadtest_bytecodes    (prints both counts and where they go)
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

#: The read: a product list, as the shoppers of the load test read it.
PATH, QUERY = "/public/v1/products", b"limit=20"


@dataclass(frozen=True, slots=True)
class Count:
    total: int
    by_function: Counter[str]  # "module:function" -> bytecodes


@dataclass(frozen=True, slots=True)
class KeptRead:
    bypass: Count  # answered by the chain bypass
    chain: Count  # the same read down the middleware chain


def kept_read_bytecodes() -> KeptRead:
    """Both counts, on a companion made for them (a temporary SQLite database)."""
    return asyncio.run(_count())


async def _count() -> KeptRead:
    import httpx

    from companion.app import create_app
    from companion.seed.demo import DEMO_KEY, seed_demo
    from companion.server import served_app
    from companion.settings import CompanionSettings

    with tempfile.TemporaryDirectory() as folder, _request_log():
        database = f"sqlite:///{Path(folder) / 'store.sqlite3'}"
        counts = []
        for bypass in (True, False):
            settings = CompanionSettings(
                database=database, workers=2, chain_bypass=bypass, rate_per_minute=10**6
            )
            app = create_app(settings)
            engine = app.state.services.engine
            try:
                if bypass:
                    seed_demo(engine, products=30)
                front = served_app(app, settings)
                transport = httpx.ASGITransport(app=front)
                async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                    for _ in range(3):  # read, kept, and the bypass's layers found
                        answer = await client.get(
                            f"{PATH}?{QUERY.decode()}", headers={"X-Service-Key": DEMO_KEY}
                        )
                        answer.raise_for_status()
                scope = _scope(DEMO_KEY)
                await _served(front, scope)  # every lazy first use out of the way
                counts.append(await _traced(front, scope))
            finally:
                engine.dispose()
        return KeptRead(bypass=counts[0], chain=counts[1])


def _scope(key: str) -> dict[str, Any]:
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


async def _served(app: Any, scope: dict[str, Any]) -> None:
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app({**scope, "state": {}}, receive, send)
    if statuses != [200]:
        raise RuntimeError(f"the kept read was answered {statuses}, not 200")


async def _traced(app: Any, scope: dict[str, Any]) -> Count:
    counted: Counter[str] = Counter()

    def trace(frame: FrameType, event: str, _arg: object) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            counted[f"{_module(code.co_filename)}:{code.co_name}"] += 1
        return trace

    sys.settrace(trace)
    try:
        await _served(app, scope)
    finally:
        sys.settrace(None)
    # This module's own receive and send are the server's part, not the app's.
    mine = _module(__file__)
    own = Counter({name: n for name, n in counted.items() if not name.startswith(mine + ":")})
    return Count(sum(own.values()), own)


def _module(filename: str) -> str:
    name = filename.rsplit("site-packages/", 1)[-1]
    for package in ("companion/", "starlette/", "fastapi/", "anyio/", "benchmarks/"):
        at = name.rfind(package)
        if at >= 0:
            return name[at:].removesuffix(".py").replace("/", ".")
    return Path(name).stem


@contextmanager
def _request_log() -> Iterator[None]:
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


def main() -> int:
    read = kept_read_bytecodes()
    for name, count in (("chain bypass", read.bypass), ("down the chain", read.chain)):
        print(f"{name}: {count.total} bytecodes")
        for function, n in count.by_function.most_common(12):
            print(f"  {n:5d}  {function}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
