"""Rebuilds `storefront watch` starts by the clock: at each moment the last good build recorded
(a flash sale's start or end, a banner's end: ``plan.moments``), plus ``delay`` seconds so that
the API has switched, a rebuild starts as if a change had come.

Each good build hands its moments over (``plan``), which replaces what was waited for. A moment
fires once: the build it starts may record it again (an API whose clock is behind still shows
the sale), and waiting for it again would rebuild in a loop. The wall clock is looked at again
at least every ``NAP`` seconds, so a machine that slept or a clock that was set fires late by at
most that, never misses. A line is logged when a moment is scheduled and when it fires.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Protocol

import anyio

from generator.plan.moments import Moment

#: Longest single wait, in seconds, before the wall clock is read again.
NAP = 60.0


class Clock(Protocol):
    def now(self) -> datetime: ...

    async def sleep(self, seconds: float) -> None: ...


class WallClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)


class ScheduledRebuilds:
    def __init__(
        self,
        trigger: Callable[[str], None],
        report: Callable[[str], None],
        *,
        delay: float,
        clock: Clock | None = None,
    ) -> None:
        self.trigger = trigger
        self.report = report
        self.delay = timedelta(seconds=delay)
        self.clock: Clock = clock or WallClock()
        self._moments: tuple[Moment, ...] = ()
        self._fired: set[Moment] = set()
        self._changed = anyio.Event()

    def plan(self, moments: Iterable[Moment]) -> None:
        """The moments the last good build recorded, in place of those known before."""
        self._moments = tuple(sorted(moments))
        self._changed.set()

    async def run(self) -> None:
        announced: Moment | None = None
        while True:
            changed = self._changed
            upcoming = next((m for m in self._moments if m not in self._fired), None)
            if upcoming is None:
                await changed.wait()
                self._changed = anyio.Event()
                continue
            due = upcoming.at + self.delay
            if upcoming != announced:
                announced = upcoming
                self.report(
                    f"next scheduled rebuild: {due:%Y-%m-%d %H:%M:%S} UTC ({upcoming.what})"
                )
            wait = (due - self.clock.now()).total_seconds()
            if wait > 0:
                if await self._woken(changed, min(wait, NAP)):
                    self._changed = anyio.Event()
                continue
            self._fired.add(upcoming)
            self.report(f"scheduled rebuild now: {upcoming.what}")
            self.trigger(f"scheduled: {upcoming.what}")

    async def _woken(self, changed: anyio.Event, seconds: float) -> bool:
        """Sleeps ``seconds``; True when a new plan came first."""
        woken = False
        async with anyio.create_task_group() as tg:

            async def until_changed() -> None:
                nonlocal woken
                await changed.wait()
                woken = True
                tg.cancel_scope.cancel()

            tg.start_soon(until_changed)
            await self.clock.sleep(seconds)
            tg.cancel_scope.cancel()
        return woken
