"""The Python bytecodes one kept catalogue read runs in the companion: a figure that does not
drift with the machine's speed, printed by `make loadtest` beside the CPU it measures.

A read the answer cache holds is counted twice, on the same app: answered by the chain bypass
(``companion.chain_bypass``) and down the middleware chain. Each is traced (``sys.settrace``
with ``f_trace_opcodes``) from the served app's call to its answer, on an in-process companion
of a small demo store on SQLite with the shared rate limit and the request log on, as a worker
of several serves. Three reads are traced in a row and the one of the median count is kept:
work done once for many reads (the request ids, made 256 at a time; the next lease, once a
lease's units are spent) falls in one of them at most. Not counted: uvicorn's own code (the same
for every answer), the request log's batched write (about once a second for all the lines) and
C code.

    python -m benchmarks.loadtest_bytecodes    (prints both counts and where they go)
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from benchmarks.kept_read import kept_read_companion, serve_once


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


#: Reads traced in a row, of which the median's count is kept.
READS = 3


async def _count() -> KeptRead:
    counts = []
    for bypass in (True, False):
        async with kept_read_companion(bypass=bypass) as served:
            reads = [await _traced(served.app, served.scope) for _ in range(READS)]
        counts.append(sorted(reads, key=lambda count: count.total)[READS // 2])
    return KeptRead(bypass=counts[0], chain=counts[1])


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
        await serve_once(app, scope)
    finally:
        sys.settrace(None)
    # The harness's own receive and send (benchmarks.kept_read) are the server's part.
    own = Counter({name: n for name, n in counted.items() if not name.startswith("benchmarks.")})
    return Count(sum(own.values()), own)


def _module(filename: str) -> str:
    name = filename.rsplit("site-packages/", 1)[-1]
    for package in ("companion/", "starlette/", "fastapi/", "anyio/", "benchmarks/"):
        at = name.rfind(package)
        if at >= 0:
            return name[at:].removesuffix(".py").replace("/", ".")
    return Path(name).stem


def main() -> int:
    read = kept_read_bytecodes()
    for name, count in (("chain bypass", read.bypass), ("down the chain", read.chain)):
        print(f"{name}: {count.total} bytecodes")
        for function, n in count.by_function.most_common(12):
            print(f"  {n:5d}  {function}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
