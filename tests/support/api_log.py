"""What a companion running as a process (``storefront api``, tests/support/processes.py) has
answered, read from its log file: the request lines (one JSON object per request,
``companion.logging_http``) among uvicorn's own messages.

The companion writes its lines up to a second late, in batches, and a session service may
forward activity from a queue later still: ``settled`` reads until two reads, more than that
second apart, agree (``CountingCompanion`` serves the in-process companion)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

_API_PREFIX = "/public/v1"
#: Longer than the companion holds a line before writing it (``PendingLines``).
_QUIET = 1.5
#: Calls that record activity (the spec's Events, and a customer's product views).
ACTIVITY = ("/analytics/", "/recommendations/view", "/customer/product-views", "/banners/")
ERRORS = "/storefront-errors"


@dataclass(frozen=True, slots=True)
class Answered:
    method: str
    path: str  # under the API's base, without the query (the log never has it)
    status: int

    @property
    def activity(self) -> bool:
        return self.path.startswith(ACTIVITY) or self.path == ERRORS


def answered(log: Path) -> list[Answered]:
    """Every API request in ``log`` so far, in the order written."""
    found = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line still being written
        path = str(entry.get("path", ""))
        if path.startswith(_API_PREFIX):
            method, status = str(entry["method"]), int(entry["status"])
            found.append(Answered(method, path.removeprefix(_API_PREFIX), status))
    return found


def settled(log: Path, *, within: float = 30) -> list[Answered]:
    """The requests in ``log`` once its count stays the same over a quiet spell."""
    deadline = time.monotonic() + within
    last = answered(log)
    while time.monotonic() < deadline:
        time.sleep(_QUIET)
        now = answered(log)
        if len(now) == len(last):
            return now
        last = now
    raise AssertionError(f"the companion's log was still growing after {within} s")
