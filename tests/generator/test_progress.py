"""The progress display counts every item, though it redraws only now and then."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from generator import progress as progress_module
from generator.client import ClientStats, ManualTimer, NullObserver, RateLimiter, RateWindow
from generator.console import PlainConsole
from generator.progress import BuildProgress, duration


def test_bars_show_every_item_and_request_at_the_end() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    with BuildProgress(console) as progress:
        for _ in range(5):
            progress.request_done("GET /products", 200, 0.01)
        progress.request_done("GET /store", 500, 0.01)
        progress.phase_started("products", 1234)
        for _ in range(1234):
            progress.item_done("products")
        progress.rendering(3)
        for _ in range(3):
            progress.rendered()
    text = out.getvalue()
    assert "1234/1234" in text
    assert "3/3" in text
    assert "1 failed" in text


def test_without_a_terminal_it_prints_phases_and_draws_no_bars() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=120)
    with BuildProgress(console) as progress:
        progress.phase_started("products", 2)
        progress.item_done("products")
        progress.item_done("products")
    assert out.getvalue() == "products (2)…\n"


def test_a_plain_console_gets_the_same_lines() -> None:
    out = io.StringIO()
    with BuildProgress(PlainConsole(out)) as progress:
        progress.requests_expected(40)
        progress.phase_started("products", 2)
        progress.item_done("products")
        progress.rendering(1)
        progress.rendered()
    assert out.getvalue() == "about 40 requests to make\nproducts (2)…\nrender (1)…\n"


def spent_limiter(used: int) -> RateLimiter:
    """A limiter with the spec's windows that has already counted ``used`` requests now."""
    timer = ManualTimer(start=10_000.0)
    limiter = RateLimiter(
        (RateWindow(600, 60.0), RateWindow(20_000, 3600.0)),
        timer,
        observer=NullObserver(),
        stats=ClientStats(),
    )
    limiter.seed([timer.now()] * used)
    return limiter


def test_time_to_go_follows_the_rate_windows() -> None:
    fresh = spent_limiter(0)
    assert fresh.time_for(600) == 0  # a minute's room goes at once
    assert fresh.time_for(1200) == pytest.approx(60.0)
    # The hour's 20,000 already spent: what is left waits for the hour, not for the minute.
    assert spent_limiter(20_000).time_for(100) == pytest.approx(18.0)
    assert spent_limiter(20_000).time_for(20_000) == pytest.approx(3600.0)


def test_a_first_crawl_shows_requests_left_and_the_time_to_go() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=120)
    with BuildProgress(console) as progress:
        progress.pacing(spent_limiter(20_000))
        progress.requests_expected(20_800)
        for _ in range(800):
            progress.request_done("GET /products/{id}", 200, 0.01)
        outlook = progress.outlook()
    assert out.getvalue().startswith("about 20,800 requests to make\n")
    assert outlook.startswith("800 of about 20,800 requests")
    assert outlook.endswith("about 1 h left")  # 20,000 more at the hour's pace


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(s) for s in (4.25, 42, 185, 3600, 3725)] == [
        "4.2 s",
        "42 s",
        "3 min 5 s",
        "1 h",
        "1 h 2 min",
    ]


def test_requests_retried_at_once_for_one_reason_print_one_line() -> None:
    """An API that is down (a wrong port) fails every request at once: one line per attempt,
    not one per request; another reason or attempt has its own."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    with BuildProgress(console) as progress:
        for path in ("/store", "/menus", "/categories", "/products"):
            progress.retrying(f"GET {path}", 1, 0.6, "no answer from 127.0.0.1:8009")
        progress.retrying("GET /store", 2, 1.2, "no answer from 127.0.0.1:8009")
        progress.retrying("GET /products/7", 1, 0.5, "HTTP 503")
    lines = [line for line in out.getvalue().splitlines() if line.startswith("retrying")]
    assert lines == [
        "retrying GET /store in 0.6 s (attempt 1: no answer from 127.0.0.1:8009)",
        "retrying GET /store in 1.2 s (attempt 2: no answer from 127.0.0.1:8009)",
        "retrying GET /products/7 in 0.5 s (attempt 1: HTTP 503)",
    ]


def test_a_retry_line_printed_again_says_how_many_it_stood_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    with BuildProgress(console) as progress:
        for _ in range(3):
            progress.retrying("GET /store", 1, 0.6, "HTTP 502")
        clock[0] += progress_module.RETRY_LINE_SECONDS
        progress.retrying("GET /menus", 1, 0.6, "HTTP 502")
    lines = [line for line in out.getvalue().splitlines() if line.startswith("retrying")]
    assert lines == [
        "retrying GET /store in 0.6 s (attempt 1: HTTP 502)",
        "retrying GET /menus in 0.6 s (attempt 1: HTTP 502; 2 more like it since)",
    ]
