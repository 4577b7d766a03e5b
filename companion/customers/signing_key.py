"""The key that signs customer JWTs: from settings, else generated once per store and stored.

Never held at module scope: it is read from the database on each use (a primary-key lookup).
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from companion.db.commerce_schema import store_secrets
from companion.settings import CompanionSettings

_NAME = "customer_jwt"


def stored_jwt_secret(
    conn: Connection, settings: CompanionSettings, *, store_id: int
) -> str | None:
    """The key, or None if no token was ever issued for the store (so none can be genuine)."""
    if settings.jwt_secret:
        return settings.jwt_secret
    value: str | None = conn.execute(
        select(store_secrets.c.value).where(
            store_secrets.c.store_id == store_id, store_secrets.c.name == _NAME
        )
    ).scalar_one_or_none()
    return value


def jwt_secret(
    conn: Connection, settings: CompanionSettings, *, store_id: int, now: datetime
) -> str:
    """The key, generated on first use; two first uses at once agree on one key."""
    existing = stored_jwt_secret(conn, settings, store_id=store_id)
    if existing:
        return existing
    try:
        with conn.begin_nested():
            conn.execute(
                insert(store_secrets).values(
                    store_id=store_id,
                    name=_NAME,
                    value=secrets.token_urlsafe(48),
                    created_at=now,
                )
            )
    except IntegrityError:
        pass  # another request stored it first: use theirs
    stored = stored_jwt_secret(conn, settings, store_id=store_id)
    assert stored is not None
    return stored
