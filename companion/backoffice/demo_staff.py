"""The demo store's owner account, whose password the README publishes: the demo's only.

The seed stores its hash (made once, ``demo_published``); any other store holding that hash, or
given that password, would open its back office to anyone who has read the README.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, select

from companion.backoffice.staff import Role, StaffError, add_staff
from companion.db.backoffice_schema import staff_accounts
from companion.db.schema import api_keys
from companion.demo_published import (
    DEMO_KEY,
    DEMO_STAFF_EMAIL,
    DEMO_STAFF_PASSWORD,
    DEMO_STAFF_PASSWORD_HASH,
)
from companion.keys.material import hash_key


def demo_store_id(conn: Connection) -> int | None:
    found: int | None = conn.execute(
        select(api_keys.c.store_id).where(api_keys.c.key_hash == hash_key(DEMO_KEY))
    ).scalar_one_or_none()
    return found


def seed_demo_staff(conn: Connection, *, store_id: int, now: datetime) -> None:
    add_staff(
        conn,
        store_id=store_id,
        email=DEMO_STAFF_EMAIL,
        password_hash=DEMO_STAFF_PASSWORD_HASH,
        role=Role.OWNER,
        now=now,
    )


def refuse_demo_password(conn: Connection, *, store_id: int, password: str) -> None:
    if password == DEMO_STAFF_PASSWORD and store_id != demo_store_id(conn):
        raise StaffError("that is the demo store's published password: choose another")


def demo_staff_holders(conn: Connection) -> list[int]:
    """Stores other than the demo with an account holding the demo's password hash."""
    demo = demo_store_id(conn)
    rows = conn.execute(
        select(staff_accounts.c.store_id).where(
            staff_accounts.c.password_hash == DEMO_STAFF_PASSWORD_HASH
        )
    ).scalars()
    return sorted({store_id for store_id in rows if store_id != demo})
