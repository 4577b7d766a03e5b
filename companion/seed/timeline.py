"""Time in the demo store: a fixed base instant, plus schedules anchored on "now".

Catalogue timestamps derive from ``BASE`` so that two seeds give identical rows. Only what must
be running whenever the demo is served (banners, flash sales, coupons) is placed relative to
``now``: the wall clock of ``storefront api``, or ``DEMO_NOW`` for the demo a build starts
in-process. All values are naive UTC datetimes, the companion's storage and wire form.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

#: The instant the demo catalogue was "last edited"; every catalogue timestamp is before it.
BASE = datetime(2026, 11, 1)

#: The demo's fixed "now": a build's in-process companion is seeded at it and its clock stays
#: there (``demo_app``). ``BASE`` itself: the whole catalogue is published by then, and no date
#: the demo dates its rows with (a sitemap lastmod) is later.
DEMO_NOW = BASE

#: How far back catalogue history reaches (products, articles and collections spread over it).
HISTORY = timedelta(days=300)


def naive_utc(when: datetime) -> datetime:
    """``when`` as a naive UTC datetime; an aware value is converted, not reinterpreted."""
    if when.tzinfo is None:
        return when
    return when.astimezone(UTC).replace(tzinfo=None)


def moment_in_history(rng: random.Random) -> datetime:
    """A whole-second instant within ``HISTORY`` before ``BASE``."""
    return BASE - timedelta(seconds=rng.randrange(3600, int(HISTORY.total_seconds())))


def edited_after(rng: random.Random, created: datetime, *, max_days: int = 30) -> datetime:
    """A later edit of a row created at ``created``, never past ``BASE``."""
    return min(BASE, created + timedelta(seconds=rng.randrange(0, max_days * 86400)))
