"""Login throttling: after repeated failures an e-mail is locked for a while. Pure policy.

Counted per (store, e-mail) rather than per IP: the companion often sits behind one proxy, and
it is the account that is being guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

MAX_FAILURES = 5
WINDOW = timedelta(minutes=15)
LOCK = timedelta(minutes=15)


@dataclass(frozen=True, slots=True)
class FailureState:
    failures: int
    window_started_at: datetime
    locked_until: datetime | None


def seconds_locked(state: FailureState | None, now: datetime) -> int:
    """How long logins stay refused (0: allowed), rounded up to whole seconds."""
    if state is None or state.locked_until is None or state.locked_until <= now:
        return 0
    return max(1, int((state.locked_until - now).total_seconds() + 0.999))


def after_failure(state: FailureState | None, now: datetime) -> FailureState:
    """The state once one more failure is counted; the fifth in a window locks the e-mail."""
    if state is None or now - state.window_started_at >= WINDOW:
        state = FailureState(0, now, None)
    failures = state.failures + 1
    if failures >= MAX_FAILURES:
        # A lock also starts a fresh window: once it lapses, the e-mail gets MAX_FAILURES tries.
        until = now + LOCK
        return FailureState(0, until, until)
    return FailureState(failures, state.window_started_at, state.locked_until)
