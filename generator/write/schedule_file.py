"""The rebuild moments of the last good build, kept in ``--cache-dir`` as ``SCHEDULE_FILE``.

Written by every build whose output was swapped in (beside the page records, so it always
describes the output in place): the build's start and the moments ``plan.moments`` found. The
cache folder is the build state a CI run restores and saves, and never published.
`storefront build --if-due` reads it: a build is due when one of its moments has passed.

    {"version": 1, "built_at": "2026-12-02T12:00:00Z",
     "moments": [{"at": "2026-12-02T20:00:00Z", "what": "Flash sale \\"Giờ vàng\\" ends"}]}
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from generator.plan.moments import Moment

SCHEDULE_FILE = "schedule.json"
_VERSION = 1


@dataclass(frozen=True, slots=True)
class Schedule:
    built_at: datetime  # when the build that wrote it started (aware, UTC)
    moments: tuple[Moment, ...]  # earliest first

    def passed(self, now: datetime) -> tuple[Moment, ...]:
        return tuple(m for m in self.moments if m.at <= now)

    def upcoming(self, now: datetime) -> Moment | None:
        return next((m for m in self.moments if m.at > now), None)


def save_schedule(cache_dir: Path, schedule: Schedule) -> None:
    """Written whole, then renamed: a reader never sees half a file."""
    data = {
        "version": _VERSION,
        "built_at": _wire(schedule.built_at),
        "moments": [{"at": _wire(m.at), "what": m.what} for m in schedule.moments],
    }
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / SCHEDULE_FILE
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)


def load_schedule(cache_dir: Path) -> Schedule | None:
    """The record; None when there is none or it is not one a build wrote (then nothing is
    known of the last build, and a build is due)."""
    try:
        data = json.loads((cache_dir / SCHEDULE_FILE).read_text(encoding="utf-8"))
        if data["version"] != _VERSION:
            return None
        moments = tuple(
            sorted(Moment(_read(entry["at"]), str(entry["what"])) for entry in data["moments"])
        )
        return Schedule(_read(data["built_at"]), moments)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None


def forget_schedule(cache_dir: Path) -> None:
    """Before the output is swapped: a record must never describe another output."""
    (cache_dir / SCHEDULE_FILE).unlink(missing_ok=True)


def _wire(when: datetime) -> str:
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _read(text: object) -> datetime:
    if not isinstance(text, str):
        raise TypeError("not a timestamp")
    parsed = datetime.fromisoformat(text)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def why_due(
    schedule: Schedule | None, *, out: Path, event: Path | None, full: bool, now: datetime
) -> str | None:
    """Why a build is due now (`storefront build --if-due`); None when nothing asks for one."""
    if schedule is None:
        return "no earlier build recorded"
    if not (out / "index.html").is_file():
        return f"no site in {out}"
    if event is not None:
        return f"an event to build ({event})"
    if full:
        return "a full build asked"
    passed = schedule.passed(now)
    if passed:
        return ", ".join(m.what for m in passed)
    return None
