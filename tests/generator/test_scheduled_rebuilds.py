"""A build records the moments its pages change by time alone and shows the next one;
`storefront build --if-due` builds only when one has passed (or nothing was built yet)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from generator.cli import main
from generator.pipeline import build_site
from generator.summary import BuildSummary, print_summary
from tests.support.incremental_store import DemoStore, config_for

DAY = 86400.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DemoStore]:
    demo = DemoStore(tmp_path, products=3)
    yield demo
    demo.close()


def built(store: DemoStore, folder: Path, horizon: float) -> tuple[BuildSummary, str]:
    import dataclasses

    config = dataclasses.replace(config_for(folder), schedule_horizon=horizon)
    now = store.now.replace(tzinfo=UTC)
    printed = io.StringIO()
    console = Console(file=printed, width=200, highlight=False)

    async def run() -> BuildSummary:
        return await build_site(config, console, connect=store.connect, clock=lambda: now)

    summary = anyio.run(run)
    shown = io.StringIO()
    print_summary(summary, Console(file=shown, width=200, highlight=False))
    return summary, shown.getvalue()


def test_a_build_records_the_ends_it_shows_and_prints_the_next(
    store: DemoStore, tmp_path: Path
) -> None:
    from generator.write.schedule_file import load_schedule

    summary, shown = built(store, tmp_path, horizon=40 * DAY)
    now = store.now.replace(tzinfo=UTC)
    whats = {m.what: m.at for m in summary.moments}
    # The demo's running sale ends in 30 days, a hero banner in 20; the sale that has not
    # started is not listed by an API that lists running sales only, so it is not known.
    assert whats['Flash sale "Giờ vàng giá sốc" ends'] == now + timedelta(days=30)
    assert whats['Banner "Bộ sưu tập Thu Đông" ends'] == now + timedelta(days=20)
    record = load_schedule(tmp_path / "cache")
    assert record is not None and record.built_at == now
    assert record.moments == summary.moments
    first = min(summary.moments)
    text = f"{first.at:%Y-%m-%d %H:%M} UTC ({first.what})"
    assert re.search(rf"next scheduled rebuild: {re.escape(text)}", shown), shown


def test_moments_past_the_horizon_are_not_recorded(store: DemoStore, tmp_path: Path) -> None:
    summary, shown = built(store, tmp_path, horizon=10 * DAY)
    assert summary.moments == ()
    assert "next scheduled rebuild: none" in shown


def cli_build(tmp_path: Path, *extra: str) -> int:
    return main(
        [
            "build",
            "--out", str(tmp_path / "site"),
            "--cache-dir", str(tmp_path / "cache"),
            "--demo-products", "5",
            "--xstore", str(tmp_path / "no-xstore.json"),
            *extra,
        ]
    )  # fmt: skip


@pytest.fixture
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STOREFRONT_API_URL", "STOREFRONT_API_KEY", "STOREFRONT_OUT", "STOREFRONT_IF_DUE"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("_no_environment")
def test_if_due_builds_when_nothing_was_built_then_only_when_a_moment_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.plan.moments import Moment, shown
    from generator.write.schedule_file import Schedule, load_schedule, save_schedule

    assert cli_build(tmp_path, "--if-due") == 0
    index = tmp_path / "site" / "index.html"
    assert index.is_file()
    assert "pages in all" in capsys.readouterr().out
    built_at = load_schedule(tmp_path / "cache")
    assert built_at is not None

    written = index.stat().st_mtime_ns
    assert cli_build(tmp_path, "--if-due") == 0
    out = capsys.readouterr().out
    # The embedded demo's banners and sales are dated around its own fixed "now".
    upcoming = built_at.upcoming(datetime.now(UTC))
    told = (
        f"next scheduled rebuild {shown(upcoming)}" if upcoming else "no scheduled rebuild recorded"
    )
    assert out.splitlines() == [f"nothing due: {told}"]
    assert index.stat().st_mtime_ns == written

    soon = datetime.now(UTC) + timedelta(hours=3)
    save_schedule(
        tmp_path / "cache",
        Schedule(built_at.built_at, (Moment(soon, 'Flash sale "Giờ vàng" ends'),)),
    )
    monkeypatch.setenv("STOREFRONT_IF_DUE", "1")
    assert cli_build(tmp_path) == 0
    assert capsys.readouterr().out.splitlines() == [
        "nothing due: next scheduled rebuild "
        f'{soon:%Y-%m-%d %H:%M} UTC (Flash sale "Giờ vàng" ends)'
    ]

    passed = datetime.now(UTC) - timedelta(minutes=1)
    save_schedule(
        tmp_path / "cache",
        Schedule(built_at.built_at, (Moment(passed, 'Flash sale "Giờ vàng" ends'),)),
    )
    assert cli_build(tmp_path) == 0
    out = capsys.readouterr()
    assert "pages in all" in out.out
    assert 'due: Flash sale "Giờ vàng" ends' in out.err
    record = load_schedule(tmp_path / "cache")
    assert record is not None and record.built_at > built_at.built_at
    assert record.passed(datetime.now(UTC)) == ()
