"""The limiter's arithmetic: windows, decisions, retry times (no HTTP here; see test_middleware)."""

from __future__ import annotations

from companion.ratelimit.windows import Window, decide, seconds_to_reset

MINUTE, HOUR = Window(60, 3), Window(3600, 5)


def test_windows_are_aligned_to_the_epoch() -> None:
    assert seconds_to_reset(MINUTE, 120.0) == 60
    assert seconds_to_reset(MINUTE, 170.2) == 10  # rounded up, never 0
    assert seconds_to_reset(HOUR, 3600 * 5 + 59.5) == 3541


def test_allowed_request_reports_the_window_with_fewest_left() -> None:
    decision = decide((MINUTE, HOUR), used=(0, 3), now_seconds=30.0)
    assert decision.allowed
    assert decision.retry_after == 0
    assert decision.tightest.window == HOUR
    assert decision.tightest.remaining == 1


def test_full_window_refuses_and_says_when_to_retry() -> None:
    decision = decide((MINUTE, HOUR), used=(3, 3), now_seconds=45.0)
    assert not decision.allowed
    assert decision.retry_after == 15
    assert decision.tightest.window == MINUTE


def test_when_both_windows_are_full_retry_waits_for_the_later_reset() -> None:
    decision = decide((MINUTE, HOUR), used=(3, 5), now_seconds=45.0)
    assert decision.retry_after == 3555
    assert decision.tightest.reset_seconds == 3555
