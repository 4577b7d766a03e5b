"""Login throttling policy: the fifth failure within 15 minutes locks the e-mail for 15."""

from __future__ import annotations

from datetime import datetime, timedelta

from companion.customers.throttle import (
    LOCK,
    MAX_FAILURES,
    WINDOW,
    FailureState,
    after_failure,
    seconds_locked,
)

NOW = datetime(2026, 11, 20, 3, 0, 0)


def fail(
    times: int, start: datetime = NOW, step: timedelta = timedelta(seconds=1)
) -> FailureState | None:
    state: FailureState | None = None
    for i in range(times):
        state = after_failure(state, start + i * step)
    return state


def test_four_failures_do_not_lock() -> None:
    assert seconds_locked(fail(MAX_FAILURES - 1), NOW + timedelta(seconds=5)) == 0


def test_fifth_failure_locks_for_fifteen_minutes() -> None:
    state = fail(MAX_FAILURES)
    locked_at = NOW + (MAX_FAILURES - 1) * timedelta(seconds=1)
    assert seconds_locked(state, locked_at) == int(LOCK.total_seconds())
    assert seconds_locked(state, locked_at + LOCK) == 0


def test_failures_spread_beyond_the_window_never_lock() -> None:
    state = fail(3 * MAX_FAILURES, step=WINDOW / 2)
    assert seconds_locked(state, NOW + 8 * WINDOW) == 0


def test_after_a_lock_the_count_starts_again() -> None:
    state = fail(MAX_FAILURES)
    assert state is not None and state.locked_until is not None
    after = after_failure(state, state.locked_until + timedelta(seconds=1))
    assert after.failures == 1 and seconds_locked(after, state.locked_until) == 0
