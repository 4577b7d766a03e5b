"""Time as the companion sees it: naive UTC datetimes, injectable for tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

EPOCH = datetime(1970, 1, 1)


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant as a naive UTC datetime (the wire form of every timestamp)."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC).replace(tzinfo=None)


class ManualClock:
    """A clock that moves only when told to: for tests of schedules and rate-limit windows, and
    the stopped clock of the demo a build starts in-process (``seed.demo_app``)."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)

    def set(self, when: datetime) -> None:
        self._now = when


def epoch_seconds(when: datetime) -> float:
    """Seconds since the epoch of a naive UTC datetime (never interpreted in local time)."""
    return (when - EPOCH).total_seconds()


def seconds_reader(clock: Clock) -> Callable[[], float]:
    """``epoch_seconds(clock.now())`` as a function; the system's clock read as seconds
    directly, without making a datetime (the rate limiter reads it for every request)."""
    if type(clock) is SystemClock:
        return time.time
    return lambda: epoch_seconds(clock.now())


def wire_timestamp(when: datetime | None) -> str | None:
    """A naive UTC datetime in its wire form: ISO 8601, no offset, no Z."""
    if when is None:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.isoformat()
