"""The delivery worker: sends due deliveries, retries failures with backoff, gives up at last.

A delivery succeeds on any 2xx answer. Anything else (another status, a timeout, a refused
connection) schedules a retry after ``backoff(attempts)``: 30 s, 1 min, 2 min, ... capped at
6 h; after ``max_attempts`` attempts the delivery is marked ``failed`` and left for inspection.

Each delivery is leased before it is sent (``next_attempt_at`` pushed forward in one
compare-and-set), so two workers never send the same attempt, and no transaction is held open
while waiting on a subscriber.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from sqlalchemy import Engine, select, update

from companion.clock import Clock, epoch_seconds
from companion.db.commerce_schema import webhook_deliveries as deliveries
from companion.db.commerce_schema import webhook_subscriptions as subs
from companion.webhooks.signing import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, sign

MAX_ATTEMPTS = 8
FIRST_RETRY = timedelta(seconds=30)
LONGEST_WAIT = timedelta(hours=6)
LEASE = timedelta(minutes=5)
TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class DeliveryReport:
    delivered: int = 0
    retrying: int = 0
    failed: int = 0

    def __add__(self, other: DeliveryReport) -> DeliveryReport:
        return DeliveryReport(
            self.delivered + other.delivered,
            self.retrying + other.retrying,
            self.failed + other.failed,
        )


@dataclass(frozen=True, slots=True)
class Due:
    id: int
    event_id: str
    event_type: str
    payload: str
    attempts: int
    url: str
    secret: str


def backoff(attempts: int) -> timedelta:
    """Wait before the next attempt, after ``attempts`` failed ones (doubling, capped)."""
    doublings = min(max(attempts - 1, 0), 20)  # bounded: timedelta overflows long before 2**64
    return min(FIRST_RETRY * (1 << doublings), LONGEST_WAIT)


def deliver_due(
    engine: Engine,
    client: httpx.Client,
    clock: Clock,
    *,
    batch: int = 50,
    max_attempts: int = MAX_ATTEMPTS,
) -> DeliveryReport:
    """Send every delivery due now (up to ``batch``); ``client`` is the injectable sender."""
    now = clock.now()
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                deliveries.c.id,
                deliveries.c.event_id,
                deliveries.c.event_type,
                deliveries.c.payload,
                deliveries.c.attempts,
                subs.c.url,
                subs.c.secret,
            )
            .join(subs, subs.c.id == deliveries.c.subscription_id)
            .where(deliveries.c.status == "pending", deliveries.c.next_attempt_at <= now)
            .order_by(deliveries.c.next_attempt_at, deliveries.c.id)
            .limit(batch)
        ).all()
    due = [Due(*row) for row in rows]
    report = DeliveryReport()
    for row in due:
        if not _lease(engine, row.id, now):
            continue  # another worker took it
        status, error = _send(client, row, clock.now())
        report += _record(
            engine, row.id, row.attempts + 1, status, error, clock.now(), max_attempts
        )
    return report


def _lease(engine: Engine, delivery_id: int, now: datetime) -> bool:
    with engine.begin() as conn:
        leased = conn.execute(
            update(deliveries)
            .where(
                deliveries.c.id == delivery_id,
                deliveries.c.status == "pending",
                deliveries.c.next_attempt_at <= now,
            )
            .values(next_attempt_at=now + LEASE)
        )
    return leased.rowcount == 1


def _send(client: httpx.Client, due: Due, now: datetime) -> tuple[int | None, str | None]:
    """One POST; (HTTP status or None, error or None when it was a 2xx)."""
    body = due.payload.encode("utf-8")
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: sign(due.secret, body, timestamp=int(epoch_seconds(now))),
        EVENT_HEADER: due.event_type,
        DELIVERY_HEADER: due.event_id,
        "User-Agent": "storefront-companion-webhooks/1",
    }
    try:
        response = client.post(due.url, content=body, headers=headers, timeout=TIMEOUT_SECONDS)
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500]
    if 200 <= response.status_code < 300:
        return response.status_code, None
    return response.status_code, f"HTTP {response.status_code}"


def _record(
    engine: Engine,
    delivery_id: int,
    attempts: int,
    status: int | None,
    error: str | None,
    now: datetime,
    max_attempts: int,
) -> DeliveryReport:
    values: dict[str, object] = {"attempts": attempts, "last_status": status, "last_error": error}
    if error is None:
        values.update(status="delivered", delivered_at=now)
        outcome = DeliveryReport(delivered=1)
    elif attempts >= max_attempts:
        values.update(status="failed")
        outcome = DeliveryReport(failed=1)
    else:
        values.update(next_attempt_at=now + backoff(attempts))
        outcome = DeliveryReport(retrying=1)
    with engine.begin() as conn:
        conn.execute(update(deliveries).where(deliveries.c.id == delivery_id).values(**values))
    return outcome
