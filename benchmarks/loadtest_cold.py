"""What one kept catalogue read costs with the processor's caches cold, in process: a figure
that moves far less from run to run than the load test's CPU per request, printed beside it.

At the shoppers' pace a worker's caches are cold at each request (other processes ran since),
so a request costs what its code and data take to bring back in, many times its cost in a
loop. Here the served app of ``benchmarks.kept_read`` (the chain bypass on) and the load
test's bare endpoint (``loadtest_bare``) each answer the read after a sweep of
``SWEEP_BYTES`` of memory, larger than this machine's per-core caches; turns of each are
alternated and the medians of the app calls' times compared. Not counted: uvicorn's own code,
the sockets and the sweep.

    python -m benchmarks.loadtest_cold    (prints both medians and the warm one)
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import time
from dataclasses import dataclass
from typing import Any

from benchmarks.kept_read import kept_read_companion, receive_nothing, request_scope, serve_once

#: Memory swept between two reads (larger than a core's L1 and L2 caches together).
SWEEP_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ColdRead:
    companion_us: float  # the kept read's median, caches cold (microseconds)
    bare_us: float  # the bare endpoint's, the same way
    warm_us: float  # the kept read's median in a loop (caches warm)
    reads: int  # reads timed of each
    #: Of the kept reads timed (cold and warm), those the chain bypass answered: all but one a
    #: lease (32 units here), whose next is taken down the chain on SQLite.
    past_the_chain: int


def cold_kept_read(*, reads: int = 250, rounds: int = 4) -> ColdRead:
    """The medians of ``rounds`` alternated turns of ``reads`` reads each."""
    return asyncio.run(_measure(reads, rounds))


async def _measure(reads: int, rounds: int) -> ColdRead:
    from benchmarks.loadtest_bare import app as bare

    async with kept_read_companion(bypass=True) as companion:
        bare_scope = request_scope("")
        await serve_once(bare, bare_scope)
        sweep = bytearray(SWEEP_BYTES)
        gc.collect()
        served_before = companion.app.served
        times: dict[str, list[int]] = {"companion": [], "bare": [], "warm": []}
        for _ in range(rounds):
            times["companion"] += await _timed(companion.app, companion.scope, reads, sweep)
            times["bare"] += await _timed(bare, bare_scope, reads, sweep)
            times["warm"] += await _timed(companion.app, companion.scope, reads, None)
        past = companion.app.served - served_before
    median = {name: statistics.median(spans) / 1000 for name, spans in times.items()}
    return ColdRead(median["companion"], median["bare"], median["warm"], reads * rounds, past)


async def _timed(app: Any, scope: dict[str, Any], reads: int, sweep: bytearray | None) -> list[int]:
    async def send(_message: dict[str, Any]) -> None:
        pass

    spans = []
    for _ in range(reads):
        if sweep is not None:
            bytes(sweep)  # a copy reads every line of it, pushing the app's out of the caches
        started = time.perf_counter_ns()
        await app({**scope, "state": {}}, receive_nothing, send)
        spans.append(time.perf_counter_ns() - started)
    return spans


def main() -> int:
    read = cold_kept_read()
    print(
        f"one kept read with the caches cold: {read.companion_us:.1f} µs, the bare endpoint's "
        f"{read.bare_us:.1f} µs; in a loop {read.warm_us:.1f} µs (medians of {read.reads} each)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
