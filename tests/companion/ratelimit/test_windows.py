"""The limiter's arithmetic: windows, decisions, retry times (no HTTP here; see test_middleware)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from companion.ratelimit.windows import (
    RateDecision,
    Window,
    WindowState,
    policy_text,
    seconds_to_reset,
)
from companion.ratelimit.windows import decide as decide_with_policy

MINUTE, HOUR = Window(60, 3), Window(3600, 5)


def decide(windows: tuple[Window, ...], used: tuple[int, ...], now_seconds: float) -> RateDecision:
    return decide_with_policy(windows, used, now_seconds, policy_text(windows))


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


def test_the_policy_names_every_window() -> None:
    assert decide((MINUTE, HOUR), used=(0, 0), now_seconds=1.0).policy == "3;w=60, 5;w=3600"


def _by_definition(windows: list[Window], used: list[int], now_seconds: float) -> RateDecision:
    """The decision as the module's docstring defines it, written plainly."""
    allowed = all(u < w.limit for w, u in zip(windows, used, strict=True))
    states = tuple(
        WindowState(
            w,
            max(0, w.limit - (u + 1 if allowed else u)),
            max(1, math.ceil((math.floor(now_seconds / w.seconds) + 1) * w.seconds - now_seconds)),
        )
        for w, u in zip(windows, used, strict=True)
    )
    tightest = min(states, key=lambda s: (s.remaining, -s.reset_seconds))
    full = [s.reset_seconds for s, w, u in zip(states, windows, used, strict=True) if u >= w.limit]
    return RateDecision(allowed, tightest, max(full, default=0), policy_text(windows))


_WINDOWS = st.lists(
    st.builds(Window, st.sampled_from([1, 60, 90, 3600, 86400]), st.integers(1, 50)),
    min_size=1,
    max_size=3,
)


@given(_WINDOWS, st.data(), st.floats(0, 4e9, allow_nan=False))
def test_decisions_are_what_the_definition_gives(
    windows: list[Window], data: st.DataObject, now_seconds: float
) -> None:
    used = [data.draw(st.integers(0, w.limit + 1)) for w in windows]
    expected = _by_definition(windows, used, now_seconds)
    assert decide_with_policy(windows, used, now_seconds, policy_text(windows)) == expected
