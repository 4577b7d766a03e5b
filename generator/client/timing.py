"""Time and sleep for the client layers, injectable so tests and benchmarks never sleep for real.

A ``Timer`` pairs a monotonic ``now()`` (seconds, arbitrary origin) with an async ``sleep``. The
limiter, the retry layer and the crawler's Retry-After waits all read and wait through the one
timer of a client, so a test that swaps in ``ManualTimer`` controls every wait of a build.
This module does not measure wall-clock dates; nothing here is used for timestamps.
"""

from __future__ import annotations

import time
from typing import Protocol

import anyio
import anyio.lowlevel


class Timer(Protocol):
    def now(self) -> float:
        """Monotonic seconds; only differences between two readings mean anything."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Suspend the calling task for ``seconds`` (0 or less: just yield to other tasks)."""
        ...


class SystemTimer:
    """The real thing: ``time.monotonic`` and ``anyio.sleep``."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(max(0.0, seconds))


class ManualTimer:
    """Virtual time: ``sleep`` moves the clock forward at once instead of waiting.

    Every sleeper advances the shared clock by its own duration, so concurrent sleeps add up
    rather than overlap. Elapsed virtual time is therefore an upper bound of real time, which
    keeps rate-limit windows conservative: a request is never sent earlier than a real clock
    would allow.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self.slept: list[float] = []

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += max(0.0, seconds)

    async def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.slept.append(seconds)
            self._now += seconds
        await anyio.lowlevel.checkpoint()
