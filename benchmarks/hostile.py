"""`make bench BENCH_ARGS=--hostile`: a build's peak memory when the API's answers are hostile.

The demo store is seeded and served by the companion as for the other figures; a proxy on
loopback passes every request to it but those one case makes hostile, which it answers itself:

- an oversize list: the first page of /products, 50 MiB of valid JSON, chunked (no length);
- an endless body: every product's details, blanks sent chunked for as long as it is read;
- a gzip bomb: every product's details, 200 KB of gzip that inflate to 200 MiB.

Each build is `storefront build` with its default limits (32 MiB an answer, 60 s a request),
a process of its own; it must fail in one line naming the endpoint. Its peak RSS is the
kernel's (``ru_maxrss`` of the build and its reaped children, the largest one), and the
summed PSS of its process tree sampled every 0.2 s.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from benchmarks.procs import companion_server, measured_run

MiB = 1024 * 1024
CHUNK = 64 * 1024
PRODUCTS = 200
TARGET_MB = 300
SECTION = "## Builds against hostile answers"
#: An endless body stops after this much all the same (a build that failed to stop would
#: show it as a peak near this, not fill the machine).
ENDLESS_CAP = 2048 * MiB

Answer = Callable[[], Response]


def oversize_list() -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b'{"items": ['
        for _ in range(50 * MiB // CHUNK):
            yield b" " * CHUNK
        yield b'], "next_cursor": null, "has_more": false}'

    return StreamingResponse(body(), media_type="application/json")


def endless_body() -> Response:
    async def body() -> AsyncIterator[bytes]:
        blank = b" " * CHUNK
        for _ in range(ENDLESS_CAP // CHUNK):
            yield blank

    return StreamingResponse(body(), media_type="application/json")


def _bomb() -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [compressor.compress(b" " * MiB) for _ in range(200)]
    return b"".join([*parts, compressor.flush()])


BOMB = _bomb()


def gzip_bomb() -> Response:
    async def body() -> AsyncIterator[bytes]:
        for start in range(0, len(BOMB), 8 * 1024):
            yield BOMB[start : start + 8 * 1024]

    return StreamingResponse(
        body(), media_type="application/json", headers={"Content-Encoding": "gzip"}
    )


def _is_product_detail(path: str, query: str) -> bool:
    rest = path.removeprefix("/public/v1/products/")
    return rest != path and rest.isdigit()


def _is_first_product_page(path: str, query: str) -> bool:
    return path == "/public/v1/products" and "cursor=" not in query


#: (name, what it answers, which requests, what the build's error must name)
CASES: tuple[tuple[str, Answer, Callable[[str, str], bool], str], ...] = (
    ("oversize list page (50 MiB)", oversize_list, _is_first_product_page, "GET /products"),
    ("endless chunked body", endless_body, _is_product_detail, "GET /products/"),
    ("gzip bomb (200 KB to 200 MiB)", gzip_bomb, _is_product_detail, "GET /products/"),
)


@contextmanager
def hostile_proxy(
    api_url: str, answer: Answer, hostile: Callable[[str, str], bool]
) -> Iterator[str]:
    """A proxy to the API at ``api_url`` answering the requests ``hostile`` picks itself."""
    origin = api_url.removesuffix("/public/v1")
    client = httpx.AsyncClient(base_url=origin, timeout=60)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        request = Request(scope, receive)
        query = request.url.query
        if hostile(request.url.path, query):
            response = answer()
        else:
            passed = {k: v for k, v in request.headers.items() if k in ("x-service-key", "accept")}
            upstream = await client.get(request.url.path, params=query or None, headers=passed)
            kept = {
                k: v
                for k, v in upstream.headers.items()
                if k not in ("content-length", "content-encoding", "transfer-encoding")
            }
            response = Response(upstream.content, upstream.status_code, headers=kept)
        await response(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="critical", lifespan="off", ws="none", access_log=False)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/public/v1"
    finally:
        server.should_exit = True
        server.force_exit = True
        thread.join(timeout=10)
        sock.close()


def measure_hostile(folder: Path, seed: Callable[[Path, int], str]) -> list[dict[str, Any]]:
    folder.mkdir(parents=True)
    db = folder / "store.sqlite3"
    key = seed(db, PRODUCTS)
    rows = []
    with companion_server(
        db, rate_per_minute=10_000_000, rate_per_hour=10_000_000, log=folder / "companion.log"
    ) as api_url:
        for number, (name, answer, hostile, endpoint) in enumerate(CASES, start=1):
            with hostile_proxy(api_url, answer, hostile) as proxy_url:
                out, cache = folder / f"out-{number}", folder / f"cache-{number}"
                command = [sys.executable, "-m", "generator", "build", "--api-url", proxy_url]
                command += ["--key", key, "--out", str(out), "--cache-dir", str(cache)]
                run = measured_run(command, cwd=folder, spawned=time.monotonic())
            error = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""
            if run.returncode == 0 or endpoint not in error or "Traceback" in run.stderr:
                raise SystemExit(f"bench: the build against {name} did not fail so: {error}")
            rows.append(
                {
                    "case": name,
                    "peak_rss_mb": round(run.peak_rss_mb),
                    "peak_tree_pss_mb": round(run.peak_tree_pss_mb),
                    "seconds": round(run.seconds, 2),
                    "error": error,
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def hostile_report(rows: list[dict[str, Any]], machine: str) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    lines = [
        f"{SECTION} (`make bench BENCH_ARGS=--hostile`, run of {when} UTC)",
        "",
        f"Machine: {machine}. The demo store at {PRODUCTS:,} products behind a proxy that makes "
        "one kind of answer hostile (benchmarks/hostile.py); `storefront build` with its "
        "default limits (32 MiB an answer, 60 s a request), in a process of its own. Each build "
        "failed in one line naming the endpoint. Peak RSS: the kernel's high-water mark of the "
        "largest process (`ru_maxrss`); PSS: the build's process tree summed, sampled every "
        "0.2 s.",
        "",
        "| answer | target | peak RSS, MB | peak PSS of the tree, MB | seconds to fail |",
        "|---|---|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['case']} | under {TARGET_MB} | {row['peak_rss_mb']} | "
            f"{row['peak_tree_pss_mb']} | {row['seconds']} |"
        )
    lines.append("")
    lines += [f"- {row['case']}: `{row['error']}`" for row in rows]
    lines.append("")
    return "\n".join(lines)
