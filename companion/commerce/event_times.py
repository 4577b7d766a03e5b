"""When a reported storefront event happened: trusted only inside the last 24 hours. Pure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

WINDOW = timedelta(hours=24)


def parse_client_time(raw: str) -> datetime:
    """ISO 8601, naive meaning UTC (the API's wire form) or with an offset; ValueError if not."""
    when = datetime.fromisoformat(raw.strip())
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when


def accepted_time(claimed: datetime | None, received: datetime) -> tuple[datetime, bool]:
    """(time recorded, whether it was replaced): outside [received - 24 h, received] -> received."""
    if claimed is None or claimed > received or claimed < received - WINDOW:
        return received, claimed is not None
    return claimed, False
