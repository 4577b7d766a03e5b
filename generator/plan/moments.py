"""The moments at which what a build's pages show changes by time alone: a rebuild is due then.

The spec's time-bound records are the flash sales (``starts_at``, ``ends_at``: GET /flash-sales
lists the running ones, and an implementation may list scheduled ones too) and the banners
(GET /banners honours their display schedule). A sale's end changes the prices of its products
and the home page; a start the API lists does too. A start the API does not list (a spec-true
API lists running sales only) cannot be known: a scheduled build or a content event brings it.

Only moments to come count, up to ``horizon`` seconds ahead, at most ``limit`` of them. An end
that passed less than ``GRACE`` ago is kept: the API still showed it, its clock a little behind,
so the next build is due at once (so is a start of a sale it still calls scheduled); an older
one is not (an API that never drops an ended sale
would make every build due).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from generator.model import Banner, Catalog, FlashSale

#: Seconds after a moment during which the API showing it still means a rebuild is due.
GRACE = 15 * 60.0


@dataclass(frozen=True, slots=True, order=True)
class Moment:
    at: datetime  # aware, UTC
    what: str  # 'Flash sale "Giờ vàng" ends', for the build's summary and watch's log


def moments_of(
    sales: Iterable[FlashSale],
    banners: Iterable[Banner],
    now: datetime,
    *,
    horizon: float,
    limit: int,
) -> tuple[Moment, ...]:
    """The moments to come of these sales and banners, earliest first."""
    earliest = now - timedelta(seconds=GRACE)
    found: set[Moment] = set()
    for kind, name, starts, ends, started in (
        *(("Flash sale", s.name, s.starts_at, s.ends_at, s.status == "running") for s in sales),
        # The API lists a banner only while it is shown: its start has taken effect.
        *(("Banner", b.title, b.starts_at, b.ends_at, True) for b in banners),
    ):
        if starts is not None and (starts > now or (not started and starts > earliest)):
            found.add(Moment(starts, f'{kind} "{name}" starts'))
        if ends is not None and ends > earliest:
            found.add(Moment(ends, f'{kind} "{name}" ends'))
    latest = now + timedelta(seconds=horizon)
    return tuple(sorted(m for m in found if m.at <= latest)[:limit])


def catalog_moments(
    catalog: Catalog, now: datetime, *, horizon: float, limit: int
) -> tuple[Moment, ...]:
    return moments_of(catalog.flash_sales, catalog.site.banners, now, horizon=horizon, limit=limit)


def shown(moment: Moment) -> str:
    """``2026-12-02 20:00 UTC (Flash sale "X" ends)``."""
    return f"{moment.at:%Y-%m-%d %H:%M} UTC ({moment.what})"
