"""`storefront watch` starts a rebuild at each moment a build recorded (plus a delay), as if a
change had come, and plans again from what each build records. Driven by a fake clock: no test
sleeps to a moment."""

from __future__ import annotations

import dataclasses
import io
import re
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
from rich.console import Console

from benchmarks.processes import free_port, running
from generator.config import BUNDLED_THEME
from generator.watch.loop import Rebuilder
from generator.watch.reload import ReloadBroadcaster
from tests.support.incremental_store import DemoStore, config_for

START = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


class FakeClock:
    """Wall time that moves only when the scheduler sleeps (by exactly what it asks)."""

    def __init__(self, now: datetime) -> None:
        self.current = now
        self.naps: list[float] = []

    def now(self) -> datetime:
        return self.current

    async def sleep(self, seconds: float) -> None:
        self.naps.append(seconds)
        self.current += timedelta(seconds=seconds)
        await anyio.lowlevel.checkpoint()


def test_each_moment_fires_once_after_the_delay_and_is_logged() -> None:
    from generator.plan.moments import Moment
    from generator.watch.schedule import ScheduledRebuilds

    clock = FakeClock(START)
    triggers: list[tuple[str, datetime]] = []
    lines: list[str] = []
    sale_ends = Moment(START + timedelta(hours=8), 'Flash sale "Giờ vàng" ends')
    banner_ends = Moment(START + timedelta(hours=8, minutes=5), 'Banner "Thu Đông" ends')

    async def go() -> None:
        scheduled = ScheduledRebuilds(
            lambda reason: triggers.append((reason, clock.now())),
            lines.append,
            delay=30.0,
            clock=clock,
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(scheduled.run)
            scheduled.plan((banner_ends, sale_ends))
            while len(triggers) < 2:
                await anyio.lowlevel.checkpoint()
            # The build the first trigger started records the second moment again: it fires
            # once, not twice.
            scheduled.plan((banner_ends,))
            for _ in range(50):
                await anyio.lowlevel.checkpoint()
            tg.cancel_scope.cancel()

    anyio.run(go)
    assert triggers == [
        ('scheduled: Flash sale "Giờ vàng" ends', sale_ends.at + timedelta(seconds=30)),
        ('scheduled: Banner "Thu Đông" ends', banner_ends.at + timedelta(seconds=30)),
    ]
    assert max(clock.naps) <= 60  # the wall clock is looked at again at least every minute
    assert lines == [
        'next scheduled rebuild: 2026-12-02 20:00:30 UTC (Flash sale "Giờ vàng" ends)',
        'scheduled rebuild now: Flash sale "Giờ vàng" ends',
        'next scheduled rebuild: 2026-12-02 20:05:30 UTC (Banner "Thu Đông" ends)',
        'scheduled rebuild now: Banner "Thu Đông" ends',
    ]


def test_a_new_plan_replaces_the_moment_waited_for() -> None:
    from generator.plan.moments import Moment
    from generator.watch.schedule import ScheduledRebuilds

    clock = FakeClock(START)
    triggers: list[str] = []
    far = Moment(START + timedelta(days=3), 'Flash sale "Xa" ends')
    near = Moment(START + timedelta(minutes=10), 'Flash sale "Gần" starts')

    async def go() -> None:
        scheduled = ScheduledRebuilds(triggers.append, lambda line: None, delay=0.0, clock=clock)
        async with anyio.create_task_group() as tg:
            scheduled.plan((far,))
            tg.start_soon(scheduled.run)
            await anyio.lowlevel.checkpoint()
            scheduled.plan((near,))  # a build meanwhile learnt of a nearer start
            while not triggers:
                await anyio.lowlevel.checkpoint()
            tg.cancel_scope.cancel()

    anyio.run(go)
    assert triggers == ['scheduled: Flash sale "Gần" starts']


def test_each_good_rebuild_hands_its_moments_to_the_schedule(
    tmp_path: Path, store: DemoStore
) -> None:
    from generator.plan.moments import Moment

    theme = tmp_path / "theme"
    shutil.copytree(BUNDLED_THEME, theme)
    config = dataclasses.replace(config_for(tmp_path, templates=theme), schedule_horizon=40 * 86400)
    planned: list[tuple[Moment, ...]] = []
    console = Console(file=io.StringIO(), width=300, highlight=False)
    rebuilder = Rebuilder(
        lambda: config, console, ReloadBroadcaster(), store.connect, on_moments=planned.append
    )
    assert anyio.run(rebuilder.rebuild, "first build")
    assert len(planned) == 1
    assert 'Flash sale "Giờ vàng giá sốc" ends' in {m.what for m in planned[0]}


#: What watch's schedule says when it waits for a moment (the build's own summary line gives
#: the moment to the minute, without the delay).
ANNOUNCED = re.compile(r"next scheduled rebuild: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(")


def test_the_watch_command_schedules_the_moments_its_first_build_recorded(
    tmp_path: Path,
) -> None:
    """`storefront watch` as a merchant runs it, on the demo store (its flash sale's and
    banners' ends within the horizon): the first build's moments reach the schedule, which runs
    and says which it waits for."""
    port = free_port()
    args = ["watch", "--port", str(port), "--poll", "0", "--demo-products", "2"]
    args += ["--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache")]
    log = tmp_path / "watch.log"
    with running(args, ready=f"http://127.0.0.1:{port}/", log=log, cwd=tmp_path, seconds=180):
        deadline = time.monotonic() + 30  # the line follows the build that answered "/"
        while not ANNOUNCED.search(log.read_text(errors="replace")):
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            time.sleep(0.2)
