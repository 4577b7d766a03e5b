"""The audit log: one row per change a staff member makes, written in the change's transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, insert, select

from companion.backoffice.staff import Staff
from companion.db.backoffice_schema import admin_audit_log

SUBJECT_CHARS = 200
DETAIL_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Entry:
    at: datetime
    staff_email: str
    action: str
    subject: str
    detail: str


def record(
    conn: Connection,
    *,
    staff: Staff,
    action: str,
    subject: str = "",
    detail: str = "",
    now: datetime,
) -> None:
    conn.execute(
        insert(admin_audit_log).values(
            store_id=staff.store_id,
            staff_id=staff.id,
            staff_email=staff.email,
            action=action,
            subject=subject[:SUBJECT_CHARS],
            detail=detail[:DETAIL_CHARS],
            at=now,
        )
    )


def recent(conn: Connection, *, store_id: int, limit: int = 200) -> list[Entry]:
    rows = conn.execute(
        select(admin_audit_log)
        .where(admin_audit_log.c.store_id == store_id)
        .order_by(admin_audit_log.c.at.desc(), admin_audit_log.c.id.desc())
        .limit(limit)
    )
    return [Entry(r.at, r.staff_email, r.action, r.subject, r.detail) for r in rows]
