"""The admission gate in a real server: uvicorn on loopback serving the companion on a demo
store, hit by a burst of concurrent product lists."""

from __future__ import annotations

import socket
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import uvicorn

from companion.app import create_app
from companion.db.engine import make_engine
from companion.seed.demo import seed_demo
from companion.settings import CompanionSettings

PRODUCTS = "/public/v1/products"


@contextmanager
def serving(folder: Path, **admission: float) -> Iterator[str]:
    """The companion on a 30-product demo store (SQLite), served by uvicorn in a thread."""
    database = str(folder / "shop.db")
    settings = CompanionSettings(database=database, **admission)  # type: ignore[arg-type]
    app = create_app(settings)  # migrates
    engine = make_engine(database)
    seed_demo(engine, products=30)
    engine.dispose()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(1000):
            if server.started:
                break
            threading.Event().wait(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def burst(base: str, n: int) -> list[httpx.Response]:
    """``n`` product lists sent at once, each on its own connection."""

    async def go() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=n)
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
            answers: list[httpx.Response] = []

            async def one() -> None:
                answers.append(await client.get(PRODUCTS, params={"limit": 20}))

            async with anyio.create_task_group() as group:
                for _ in range(n):
                    group.start_soon(one)
            return answers

    return anyio.run(go)


def test_a_burst_beyond_the_queue_is_shed_with_503_and_the_rest_served(tmp_path: Path) -> None:
    with serving(tmp_path, admission_limit=1, admission_queue=2, admission_wait=30) as base:
        answers = burst(base, 60)
        after = httpx.get(f"{base}{PRODUCTS}")  # nothing left holding a slot
    statuses = Counter(a.status_code for a in answers)
    assert set(statuses) == {200, 503}, statuses
    # One in the worker and two waiting at every moment at least; the rest turned away.
    assert statuses[200] >= 3
    for shed in (a for a in answers if a.status_code == 503):
        assert shed.headers["Retry-After"] == "1"
        assert shed.headers["content-type"] == "application/problem+json"
        assert shed.json()["code"] == "overloaded"
        assert shed.json()["detail"].startswith(f"GET {PRODUCTS}: the server is busy")
    assert after.status_code == 200


def test_a_burst_within_the_queue_is_served_in_full(tmp_path: Path) -> None:
    with serving(tmp_path, admission_limit=2, admission_queue=50, admission_wait=30) as base:
        answers = burst(base, 40)
    assert [a.status_code for a in answers] == [200] * 40
