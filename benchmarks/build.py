"""One measured build of `make bench`, run as its own process: ``python benchmarks/build.py JOB``.

It is `storefront build --api-url URL --key KEY ...` (the same argument parsing, settings and
``build_site``), with what the benchmark adds:

- the HTTP transport is wrapped by ``InFlight``, which records the request wall time: the union
  of the intervals with at least one request in flight (body read included), not the sum over
  concurrent requests;
- the build's steps (crawl, plan, render and write), as the build's summary times them, make
  the figures' phase breakdown;
- the client's rate windows are the job's (unlimited, or the pacing run's window) instead of the
  public API's 600 a minute.

JOB is JSON: api_url, key, out, cache, site_url, full, from_cache, windows, xstore (optional)
and spawned (the parent's ``time.monotonic()`` when it started this process; CLOCK_MONOTONIC is
system-wide). The figures are printed as one JSON line on stdout.
"""

from __future__ import annotations

import time

STARTED = time.monotonic()  # before the imports below: they are part of the build's time

import argparse  # noqa: E402
import functools  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from collections.abc import AsyncIterator, Callable  # noqa: E402
from contextlib import asynccontextmanager  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

# The generator's package first, as the command imports it: it keeps httpx's own CLI out.
import generator  # noqa: E402, F401

# isort: split
import httpx  # noqa: E402


class InFlight(httpx.AsyncBaseTransport):
    """A transport wrapper: how many requests were sent, and how long at least one was in
    flight (from sending to the last body byte)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, clock: Callable[[], float]) -> None:
        self.inner = inner
        self.clock = clock
        self.requests = 0
        self.seconds = 0.0
        self._open = 0
        self._since = 0.0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self._open == 0:
            self._since = self.clock()
        self._open += 1
        try:
            response = await self.inner.handle_async_request(request)
            await response.aread()  # the client reads it later from memory
        finally:
            self._open -= 1
            if self._open == 0:
                self.seconds += self.clock() - self._since
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def run_build(job: dict[str, Any]) -> dict[str, Any]:
    import anyio
    from rich.console import Console

    from generator import pipeline
    from generator.client import RateWindow
    from generator.commands import build as build_command
    from generator.config import environment, resolve
    from generator.summary import print_summary
    from generator.xstore import load_descriptor

    argv = ["build", "--api-url", job["api_url"], "--key", job["key"]]
    argv += ["--out", job["out"], "--cache-dir", job["cache"], "--site-url", job["site_url"]]
    argv += ["--xstore", job.get("xstore", "xstore.json")]
    argv += ["--full"] if job.get("full") else []
    argv += ["--from-cache"] if job.get("from_cache") else []
    # The parser `storefront build` uses: only the build command's (the others import more).
    parser = argparse.ArgumentParser(prog="storefront")
    build_command.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    config = resolve(args, environ=environment(), descriptor=load_descriptor(Path(args.xstore)))

    windows = tuple(RateWindow(n, s) for n, s in job["windows"])
    transports: list[InFlight] = []

    @asynccontextmanager
    async def connect(config: Any) -> AsyncIterator[tuple[httpx.AsyncClient, str, Any]]:
        transport = InFlight(httpx.AsyncHTTPTransport(), time.monotonic)
        transports.append(transport)
        timeout = httpx.Timeout(30.0, connect=10.0)
        async with httpx.AsyncClient(
            transport=transport, base_url=config.api_url, timeout=timeout
        ) as http:
            yield http, config.api_key, windows

    printed = io.StringIO()
    console = Console(file=printed, width=200, highlight=False)
    building = time.monotonic()
    run = functools.partial(pipeline.build_site, config, console, connect=connect)
    summary = anyio.run(run)
    print_summary(summary, console)
    done = time.monotonic()
    text = printed.getvalue()
    phases = dict(summary.phases)  # the crawl, the plan, the render and write, as the build saw
    breakdown = {
        "interpreter start": STARTED - job["spawned"],
        "imports and settings": building - STARTED,
        **phases,
    }
    breakdown["other"] = (done - building) - sum(phases.values())
    return {
        "pages": summary.pages,
        "pages_by_kind": dict(summary.pages_by_kind),
        "requests": summary.requests,
        "sent": sum(t.requests for t in transports),
        "rate_limited": summary.rate_limited,
        "request_seconds": sum(t.seconds for t in transports),
        "phases": breakdown,
        "write_phase_seconds": _float_after(text, "write phase "),
        "rendered": _number_after(text, "rendered "),
        "peak_rss_mb": peak_rss_mb(),
        "done": done,
    }


def peak_rss_mb() -> float:
    """The peak RSS of this process since it started its program, or of the largest child it
    waited for (a render worker), whichever is larger.

    ``VmHWM``, not ``getrusage(RUSAGE_SELF)``: Linux carries the high-water mark of the image a
    process replaced at exec into the latter, so a build started by a large parent would report
    the parent's memory.
    """
    import resource

    own_kib = 0
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                own_kib = int(line.split()[1])
    children_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own_kib, children_kib) / 1024


def _number_after(text: str, marker: str) -> int:
    at = text.find(marker)
    if at < 0:
        return -1
    digits = "".join(ch for ch in text[at + len(marker) :].split(" ", 1)[0] if ch.isdigit())
    return int(digits or -1)


def _float_after(text: str, marker: str) -> float:
    at = text.find(marker)
    return float(text[at + len(marker) :].split(" ", 1)[0]) if at >= 0 else -1.0


if __name__ == "__main__":
    from generator.cli import quick_exit
    from generator.memory import ending_soon

    ending_soon()  # as `storefront build` says
    print(json.dumps(run_build(json.loads(sys.argv[1]))))
    quick_exit(0)  # as `storefront build` ends
