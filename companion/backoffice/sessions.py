"""Signed-in browsers of the back office: a random token in the cookie, its digest in the table.

The CSRF token of a session's forms is an HMAC of the session's token: a page can carry it (the
cookie itself is httpOnly), another site can neither read nor derive it, and nothing more is
stored. A session ends at its ``expires_at``, at logout, or when its account is switched off.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from sqlalchemy import Connection, delete, insert, select

from companion.backoffice.staff import Staff, get_staff
from companion.db.backoffice_schema import staff_sessions

#: Longest cookie value read (a token is 43 characters).
MAX_TOKEN_CHARS = 100


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def open_session(conn: Connection, *, staff: Staff, now: datetime, lifetime: timedelta) -> str:
    token = secrets.token_urlsafe(32)
    conn.execute(
        insert(staff_sessions).values(
            store_id=staff.store_id,
            staff_id=staff.id,
            token_hash=digest(token),
            created_at=now,
            expires_at=now + lifetime,
        )
    )
    conn.execute(delete(staff_sessions).where(staff_sessions.c.expires_at <= now))
    return token


def session_staff(conn: Connection, *, store_id: int, token: str, now: datetime) -> Staff | None:
    """The account a cookie's token signs in, None for a missing, ended or foreign one."""
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    row = conn.execute(
        select(staff_sessions.c.staff_id).where(
            staff_sessions.c.token_hash == digest(token),
            staff_sessions.c.store_id == store_id,
            staff_sessions.c.expires_at > now,
        )
    ).first()
    return None if row is None else get_staff(conn, store_id=store_id, staff_id=row.staff_id)


def close_session(conn: Connection, *, token: str) -> None:
    conn.execute(delete(staff_sessions).where(staff_sessions.c.token_hash == digest(token)))


def close_sessions_of(conn: Connection, *, store_id: int, staff_id: int) -> None:
    """Every browser of an account signed out (its password changed)."""
    conn.execute(
        delete(staff_sessions).where(
            staff_sessions.c.store_id == store_id, staff_sessions.c.staff_id == staff_id
        )
    )


def csrf_token(secret: str, purpose: str = "forms") -> str:
    """The token a form carries for the cookie value ``secret``."""
    return hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).hexdigest()


def csrf_matches(secret: str, sent: str, purpose: str = "forms") -> bool:
    return bool(secret) and hmac.compare_digest(csrf_token(secret, purpose), sent)
