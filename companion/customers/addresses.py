"""A customer's saved addresses; exactly one is the default while any exist."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, case, delete, func, insert, select, update

from companion.db.commerce_schema import customer_addresses as addr

MAX_ADDRESSES = 50


def list_addresses(conn: Connection, *, store_id: int, customer_id: int) -> list[Row[Any]]:
    """The default first, then the most recently added."""
    return list(
        conn.execute(
            select(addr)
            .where(addr.c.store_id == store_id, addr.c.customer_id == customer_id)
            .order_by(addr.c.is_default.desc(), addr.c.created_at.desc(), addr.c.id.desc())
        )
    )


def get_address(
    conn: Connection, *, store_id: int, customer_id: int, address_id: int
) -> Row[Any] | None:
    return conn.execute(
        select(addr).where(
            addr.c.store_id == store_id,
            addr.c.customer_id == customer_id,
            addr.c.id == address_id,
        )
    ).first()


def add_address(
    conn: Connection,
    *,
    store_id: int,
    customer_id: int,
    values: dict[str, Any],
    make_default: bool,
    now: datetime,
) -> int:
    """The first address is the default whatever was asked."""
    has_any = conn.execute(
        select(addr.c.id).where(addr.c.customer_id == customer_id).limit(1)
    ).first()
    result = conn.execute(
        insert(addr).values(
            store_id=store_id,
            customer_id=customer_id,
            is_default=False,
            created_at=now,
            updated_at=now,
            **values,
        )
    )
    assert result.inserted_primary_key is not None
    address_id = int(result.inserted_primary_key[0])
    if make_default or has_any is None:
        set_default(conn, customer_id=customer_id, address_id=address_id)
    return address_id


def count_addresses(conn: Connection, *, customer_id: int) -> int:
    count: int = conn.execute(
        select(func.count()).select_from(addr).where(addr.c.customer_id == customer_id)
    ).scalar_one()
    return count


def change_address(
    conn: Connection, *, address_id: int, values: dict[str, Any], now: datetime
) -> None:
    conn.execute(update(addr).where(addr.c.id == address_id).values(**values, updated_at=now))


def set_default(conn: Connection, *, customer_id: int, address_id: int) -> None:
    """One statement: the chosen address becomes the default, every other stops being one."""
    conn.execute(
        update(addr)
        .where(addr.c.customer_id == customer_id)
        .values(is_default=case((addr.c.id == address_id, True), else_=False))
    )


def remove_address(conn: Connection, *, customer_id: int, address_id: int) -> None:
    """Removing the default promotes the most recently added remaining address."""
    was_default = conn.execute(select(addr.c.is_default).where(addr.c.id == address_id)).scalar()
    conn.execute(delete(addr).where(addr.c.id == address_id))
    if was_default:
        newest = conn.execute(
            select(addr.c.id)
            .where(addr.c.customer_id == customer_id)
            .order_by(addr.c.created_at.desc(), addr.c.id.desc())
            .limit(1)
        ).scalar()
        if newest is not None:
            set_default(conn, customer_id=customer_id, address_id=newest)
