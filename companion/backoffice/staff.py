"""Staff accounts of the back office: an e-mail, an argon2id password hash, a role.

An ``owner`` may do everything; ``staff`` work on orders and the catalogue (``may``). Hashing
is the caller's (it holds the hasher and runs in the hashing lane); this module stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from companion.db.backoffice_schema import staff_accounts

MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 200


class Role(StrEnum):
    OWNER = "owner"
    STAFF = "staff"


class Power(StrEnum):
    """What a page does, as the roles are granted it."""

    ORDERS = "orders"
    CATALOGUE = "catalogue"
    STAFF_ACCOUNTS = "staff_accounts"
    STORE = "store"
    WEBHOOKS = "webhooks"
    IMPORT = "import"
    AUDIT = "audit"


#: Staff run the shop day to day; the owner alone changes who works there, the store itself,
#: its integrations, the catalogue wholesale (an import), and reads who did what.
GRANTS: dict[Role, frozenset[Power]] = {
    Role.OWNER: frozenset(Power),
    Role.STAFF: frozenset({Power.ORDERS, Power.CATALOGUE}),
}


def may(role: Role, power: Power) -> bool:
    return power in GRANTS[role]


class StaffError(Exception):
    """A staff account that cannot be made or changed as asked (the message says why)."""


@dataclass(frozen=True, slots=True)
class Staff:
    id: int
    store_id: int
    email: str
    role: Role


def normalize_email(email: str) -> str:
    return email.strip().lower()


def check_password(password: str) -> None:
    if not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise StaffError(f"a password has {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters")


def add_staff(
    conn: Connection, *, store_id: int, email: str, password_hash: str, role: Role, now: datetime
) -> Staff:
    email = normalize_email(email)
    if "@" not in email or len(email) > 254:
        raise StaffError(f"not an e-mail address: {email!r}")
    try:
        with conn.begin_nested():
            staff_id = conn.execute(
                insert(staff_accounts)
                .values(
                    store_id=store_id,
                    email=email,
                    password_hash=password_hash,
                    role=role.value,
                    created_at=now,
                    updated_at=now,
                )
                .returning(staff_accounts.c.id)
            ).scalar_one()
    except IntegrityError:
        raise StaffError(f"{email} already has an account in this store") from None
    return Staff(staff_id, store_id, email, role)


def credentials(conn: Connection, *, store_id: int, email: str) -> tuple[Staff, str] | None:
    """An active account and its password hash, for a login."""
    row = conn.execute(
        select(staff_accounts).where(
            staff_accounts.c.store_id == store_id,
            staff_accounts.c.email == normalize_email(email),
            staff_accounts.c.disabled_at.is_(None),
        )
    ).first()
    if row is None:
        return None
    return Staff(row.id, row.store_id, row.email, Role(row.role)), row.password_hash


def get_staff(conn: Connection, *, store_id: int, staff_id: int) -> Staff | None:
    row = conn.execute(
        select(staff_accounts).where(
            staff_accounts.c.store_id == store_id,
            staff_accounts.c.id == staff_id,
            staff_accounts.c.disabled_at.is_(None),
        )
    ).first()
    return None if row is None else Staff(row.id, row.store_id, row.email, Role(row.role))


def list_staff(conn: Connection, *, store_id: int) -> list[Staff]:
    rows = conn.execute(
        select(staff_accounts)
        .where(staff_accounts.c.store_id == store_id, staff_accounts.c.disabled_at.is_(None))
        .order_by(staff_accounts.c.id)
    )
    return [Staff(row.id, row.store_id, row.email, Role(row.role)) for row in rows]


def set_password_hash(
    conn: Connection, *, store_id: int, staff_id: int, password_hash: str, now: datetime
) -> None:
    conn.execute(
        update(staff_accounts)
        .where(staff_accounts.c.store_id == store_id, staff_accounts.c.id == staff_id)
        .values(password_hash=password_hash, updated_at=now)
    )


def disable_staff(conn: Connection, *, store_id: int, staff_id: int, now: datetime) -> None:
    """An account switched off (its history in the audit log stays); the last owner stays."""
    owners = [s for s in list_staff(conn, store_id=store_id) if s.role is Role.OWNER]
    if [s.id for s in owners] == [staff_id]:
        raise StaffError("the store's last owner cannot be removed")
    conn.execute(
        update(staff_accounts)
        .where(staff_accounts.c.store_id == store_id, staff_accounts.c.id == staff_id)
        .values(disabled_at=now, updated_at=now)
    )
