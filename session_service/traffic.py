"""The session service's care for the key, together: its budget, each visitor's share, the
shared reads and the activity queue. One per session app (per process), built from settings.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from session_service.activity import ActivityLimits, ActivityQueue
from session_service.budget import BudgetLimits, Clock, KeyBudget
from session_service.shared_reads import MAX_BYTES, SECONDS, SharedReads
from session_service.visitor_share import MAX_VISITORS, PER_MINUTE, VisitorShare


@dataclass(frozen=True, slots=True)
class TrafficSettings:
    budget: BudgetLimits = field(default_factory=BudgetLimits)
    #: Requests a visitor may send a minute through /session/* (None: no share per visitor).
    visitor_per_minute: int | None = PER_MINUTE
    #: Visitors whose share is tracked at most (the least recently seen are forgotten).
    max_visitors: int = MAX_VISITORS
    #: Seconds a shared read (provinces, wards, payment methods) is kept.
    shared_seconds: float = SECONDS
    #: Bytes of shared reads' answers kept at most.
    shared_bytes: int = MAX_BYTES
    activity: ActivityLimits = field(default_factory=ActivityLimits)


#: No limit of this service's own: the embedded demo, whose API has none either.
UNLIMITED = TrafficSettings(
    budget=BudgetLimits(per_minute=None, per_hour=None), visitor_per_minute=None
)


class Traffic:
    def __init__(
        self,
        settings: TrafficSettings | None = None,
        *,
        clock: Clock | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        settings = settings or TrafficSettings()
        clock = clock or time.monotonic
        self.settings = settings
        self.budget = KeyBudget(settings.budget, clock=clock)
        self.visitors = VisitorShare(
            settings.visitor_per_minute, max_visitors=settings.max_visitors, clock=clock
        )
        self.shared = SharedReads(
            settings.shared_seconds, max_bytes=settings.shared_bytes, clock=clock
        )
        self.activity = ActivityQueue(self.budget, settings.activity, logger, clock)

    def figures(self) -> dict[str, object]:
        """What /session/health shows (nothing here asks the API)."""
        return {
            **self.budget.figures(),
            "visitor_per_minute": self.settings.visitor_per_minute,
            "activity": self.activity.figures(),
        }
