"""occurred_at of reported storefront errors: trusted only within the last 24 hours."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from companion.commerce.event_times import accepted_time, parse_client_time

RECEIVED = datetime(2026, 11, 20, 3, 0, 0)


def test_recent_time_is_kept() -> None:
    claimed = RECEIVED - timedelta(hours=23)
    assert accepted_time(claimed, RECEIVED) == (claimed, False)


@pytest.mark.parametrize(
    "claimed", [RECEIVED - timedelta(hours=24, seconds=1), RECEIVED + timedelta(seconds=1)]
)
def test_old_or_future_time_becomes_the_receive_time(claimed: datetime) -> None:
    assert accepted_time(claimed, RECEIVED) == (RECEIVED, True)


def test_missing_time_is_the_receive_time_without_counting_as_replaced() -> None:
    assert accepted_time(None, RECEIVED) == (RECEIVED, False)


def test_offsets_are_converted_to_utc() -> None:
    assert parse_client_time("2026-11-20T10:00:00+07:00") == datetime(2026, 11, 20, 3, 0)
    assert parse_client_time("2026-11-20T03:00:00Z") == datetime(2026, 11, 20, 3, 0)
    assert parse_client_time("2026-11-20T03:00:00") == datetime(2026, 11, 20, 3, 0)
    with pytest.raises(ValueError):
        parse_client_time("yesterday")
