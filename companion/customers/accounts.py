"""Customer rows: registration, lookup, profile updates, password changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from companion.customers.passwords import hash_password
from companion.db.commerce_schema import customers
from companion.refusals import Conflict


@dataclass(frozen=True, slots=True)
class Customer:
    id: int
    email: str
    full_name: str
    phone: str | None
    points_balance: int
    created_at: datetime
    updated_at: datetime


_PUBLIC = (
    customers.c.id,
    customers.c.email,
    customers.c.full_name,
    customers.c.phone,
    customers.c.points_balance,
    customers.c.created_at,
    customers.c.updated_at,
)


def normalize_email(email: str) -> str:
    return email.strip().lower()


def _customer(row: Any) -> Customer:
    return Customer(*row)


def get_customer(conn: Connection, *, store_id: int, customer_id: int) -> Customer | None:
    row = conn.execute(
        select(*_PUBLIC).where(customers.c.store_id == store_id, customers.c.id == customer_id)
    ).first()
    return _customer(row) if row else None


def find_credentials(conn: Connection, *, store_id: int, email: str) -> tuple[Customer, str] | None:
    """The customer and their password hash, for login."""
    row = conn.execute(
        select(*_PUBLIC, customers.c.password_hash).where(
            customers.c.store_id == store_id, customers.c.email == normalize_email(email)
        )
    ).first()
    if row is None:
        return None
    return Customer(*row[:7]), row[7]


def password_hash_of(conn: Connection, *, store_id: int, customer_id: int) -> str:
    value: str = conn.execute(
        select(customers.c.password_hash).where(
            customers.c.store_id == store_id, customers.c.id == customer_id
        )
    ).scalar_one()
    return value


def register_customer(
    conn: Connection,
    hasher: PasswordHasher,
    *,
    store_id: int,
    email: str,
    password: str,
    full_name: str,
    phone: str | None,
    now: datetime,
) -> Customer:
    """A new account; an e-mail already registered with the store is a 409."""
    email = normalize_email(email)
    password_hash = hash_password(hasher, password)
    try:
        with conn.begin_nested():
            result = conn.execute(
                insert(customers).values(
                    store_id=store_id,
                    email=email,
                    password_hash=password_hash,
                    full_name=full_name,
                    phone=phone,
                    points_balance=0,
                    created_at=now,
                    updated_at=now,
                )
            )
    except IntegrityError:
        raise Conflict("email_taken", "an account with this e-mail already exists") from None
    assert result.inserted_primary_key is not None
    customer_id = int(result.inserted_primary_key[0])
    return Customer(customer_id, email, full_name, phone, 0, now, now)


def update_profile(
    conn: Connection,
    *,
    store_id: int,
    customer_id: int,
    changes: dict[str, object],
    now: datetime,
) -> None:
    if changes:
        conn.execute(
            update(customers)
            .where(customers.c.store_id == store_id, customers.c.id == customer_id)
            .values(**changes, updated_at=now)
        )


def set_password(
    conn: Connection,
    hasher: PasswordHasher,
    *,
    store_id: int,
    customer_id: int,
    password: str,
    now: datetime,
) -> None:
    conn.execute(
        update(customers)
        .where(customers.c.store_id == store_id, customers.c.id == customer_id)
        .values(password_hash=hash_password(hasher, password), updated_at=now)
    )
