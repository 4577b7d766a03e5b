"""A paced probe of the server's CPU per catalogue read: the companion beside the bare endpoint.

    python -m benchmarks.loadtest_paced --server postgresql://postgres@127.0.0.1:54329/postgres
        [--rate 70] [--seconds 30] [--idle-seconds 10] [--connections 20] [--workers 1]
        [--target both|bare|api] [--port 8775] [--hold] [--app module:function ...] [--rounds N]

Lighter than ``loadtest.py`` and steadier: requests leave at a fixed rate (open loop, round
robin over ``--connections`` keep-alive connections), the catalogue reads of the load test's
shoppers (product lists, product pages, categories, the store), after a warm-up that reads
every product once, so nearly every read is a kept answer. For each server it reports the
workers' user and system CPU per request, their context switches per request, and their CPU
per second while idle. ``--hold`` prints the worker ids and waits for Enter before each load,
so a profiler or a tracer can be attached. The companion's workers are started as
``storefront api --workers N`` starts them (uvicorn's factory, the same options); ``--app``
serves a variant of the app instead (a factory found on ``PYTHONPATH``), several in turn, and
``--rounds`` repeats everything so that variants alternate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.loadtest import (
    KEYS,
    PREFIX,
    RATE_PER_HOUR,
    RATE_PER_MINUTE,
    drop_database,
    prepare,
    run_fast,
    seed,
    start_bare,
    wait_ready,
)
from benchmarks.loadtest_cpu import TICKS, descendants
from benchmarks.loadtest_http import LeanClient
from benchmarks.processes import stop

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Usage:
    """CPU and context switches of a set of processes (from /proc), summed."""

    user: float
    system: float
    voluntary: int
    involuntary: int

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            self.user - other.user,
            self.system - other.system,
            self.voluntary - other.voluntary,
            self.involuntary - other.involuntary,
        )


def usage(pids: list[int]) -> Usage:
    user = system = 0.0
    voluntary = involuntary = 0
    for pid in pids:
        try:
            raw = Path(f"/proc/{pid}/stat").read_text()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        user += int(fields[11]) / TICKS
        system += int(fields[12]) / TICKS
        for line in status.splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                voluntary += int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches:"):
                involuntary += int(line.split()[1])
    return Usage(user, system, voluntary, involuntary)


def start_api(
    url: str, port: int, workers: int, log: Path, factory: str = "companion.server:app_from_env"
) -> subprocess.Popen[bytes]:
    """The workers of ``storefront api --workers N`` (migrations already run)."""
    settings = {
        "database": url,
        "rate_per_minute": RATE_PER_MINUTE,
        "rate_per_hour": RATE_PER_HOUR,
        "public_url": f"http://127.0.0.1:{port}",
        "migrate": False,
        "workers": max(2, workers),  # as `storefront api --workers 2` puts it for its workers
    }
    code = (
        "import sys, uvicorn\n"
        "from companion.server import uvicorn_options\n"
        "uvicorn.run(sys.argv[3], factory=True, workers=int(sys.argv[2]),\n"
        "            **uvicorn_options('127.0.0.1', int(sys.argv[1])))\n"
    )
    env = {
        **os.environ,
        # This tree, then where the caller's variants of the app live (``--app``).
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "STOREFRONT_API_SETTINGS": json.dumps(settings),
    }
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", code, str(port), str(workers), factory],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )


def catalogue_paths(rng: random.Random, slugs: list[str]) -> str:
    choice = rng.random()
    if choice < 0.4:
        return f"{PREFIX}/products?limit=20"
    if choice < 0.8:
        return f"{PREFIX}/products/by-slug/{rng.choice(slugs)}"
    if choice < 0.9:
        return f"{PREFIX}/categories"
    return f"{PREFIX}/store"


async def paced(
    base: str,
    paths: list[str],
    keys: list[str],
    rate: float,
    connections: int,
) -> tuple[int, dict[int, int], list[float]]:
    """Send ``paths`` at ``rate`` a second; the statuses and latencies."""
    statuses: dict[int, int] = {}
    latencies: list[float] = []
    async with LeanClient(base, max_connections=connections, timeout=30) as client:

        async def one(i: int, path: str) -> None:
            started = time.perf_counter()
            response = await client.request(
                "GET", path, headers={"X-Service-Key": keys[i % len(keys)]}
            )
            latencies.append(time.perf_counter() - started)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1

        loop = asyncio.get_running_loop()
        start = loop.time()
        tasks = []
        for i, path in enumerate(paths):
            delay = start + i / rate - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(i, path)))
        await asyncio.gather(*tasks)
    return len(paths), statuses, latencies


def measure(
    name: str,
    server: subprocess.Popen[bytes],
    base: str,
    paths: list[str],
    keys: list[str],
    args: argparse.Namespace,
) -> None:
    workers = descendants(server.pid) or [server.pid]
    if args.workers > 1:  # the supervisor only watches
        workers = [p for p in workers if p != server.pid]
    # Warm: every path once on every worker (a worker keeps its own answers).
    run_fast(paced(base, sorted(set(paths)) * (args.workers + 1), keys, 200, 4))
    before = usage(workers)
    time.sleep(args.idle_seconds)
    idle = usage(workers) - before
    if args.hold:
        input(f"{name}: workers {workers}; Enter to load ")
    before = usage(workers)
    started = time.monotonic()
    count, statuses, latencies = run_fast(paced(base, paths, keys, args.rate, args.connections))
    elapsed = time.monotonic() - started
    print(f"{name:>8}: load from {started:.3f} to {started + elapsed:.3f} (monotonic clock)")
    used = usage(workers) - before
    latencies.sort()
    p50 = latencies[len(latencies) // 2] * 1000
    p99 = latencies[int(len(latencies) * 0.99)] * 1000
    idle_ms = (idle.user + idle.system) * 1000 / max(args.idle_seconds, 1e-9)
    per = 1000 / count
    print(
        f"{name:>8}: {count} requests in {elapsed:.1f} s {statuses}; p50 {p50:.2f} ms, "
        f"p99 {p99:.2f} ms\n"
        f"       CPU per request {(used.user + used.system) * per:.3f} ms "
        f"(user {used.user * per:.3f}, system {used.system * per:.3f}); "
        f"context switches per request {used.voluntary / count:.2f} voluntary, "
        f"{used.involuntary / count:.2f} involuntary; idle {idle_ms:.2f} ms CPU a second "
        f"({idle.system * 1000 / max(args.idle_seconds, 1e-9):.2f} of it system)",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="PostgreSQL server URL (loopback)")
    parser.add_argument("--rate", type=float, default=70.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--port", type=int, default=8775)
    parser.add_argument("--target", choices=("both", "bare", "api"), default="both")
    parser.add_argument("--hold", action="store_true")
    parser.add_argument(
        "--app",
        action="append",
        help="the workers' app factory (module:function; default the companion's); given "
        "several times, each is measured in turn",
    )
    parser.add_argument("--rounds", type=int, default=1, help="measure everything N times")
    args = parser.parse_args(argv)
    args.app = args.app or ["companion.server:app_from_env"]

    name = f"storefront_paced_{os.getpid()}"
    url, engine = prepare(args.server, name)
    log = Path(tempfile.gettempdir()) / f"storefront-paced-{os.getpid()}.log"
    try:
        _store_id, keys, _hot, _cool, slugs = seed(engine)
        keys = keys[:KEYS]
        rng = random.Random(1)
        paths = [catalogue_paths(rng, slugs) for _ in range(int(args.rate * args.seconds))]
        for _round in range(args.rounds):
            if args.target in ("both", "bare"):
                server = start_bare(args.port + 1, args.workers, log.with_suffix(".bare"))
                try:
                    bare = f"http://127.0.0.1:{args.port + 1}"
                    bare_log = log.with_suffix(".bare")
                    wait_ready(bare, server, path="/bare", log=bare_log, workers=args.workers)
                    measure("bare", server, bare, paths, keys, args)
                finally:
                    stop(server)
            for factory in args.app if args.target in ("both", "api") else []:
                server = start_api(url, args.port, args.workers, log, factory)
                try:
                    base = f"http://127.0.0.1:{args.port}"
                    wait_ready(base, server, log=log, workers=args.workers)
                    measure(factory.rpartition(":")[2], server, base, paths, keys, args)
                finally:
                    stop(server)
    finally:
        engine.dispose()
        drop_database(args.server, name)
    print(f"server log: {log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
