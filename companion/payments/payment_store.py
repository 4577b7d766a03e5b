"""Payment attempts of orders (table payments): one row per gateway transaction reference."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, insert, select, update

from companion.db.commerce_schema import orders, payments


@dataclass(frozen=True, slots=True)
class Payment:
    id: int
    store_id: int
    order_id: int
    provider: str
    txn_ref: str
    amount: int
    status: str  # pending | succeeded | failed


_COLUMNS = (
    payments.c.id,
    payments.c.store_id,
    payments.c.order_id,
    payments.c.provider,
    payments.c.txn_ref,
    payments.c.amount,
    payments.c.status,
)


def new_txn_ref(order_code: str) -> str:
    """Unique per attempt: a retried payment is a new transaction at the gateway."""
    return f"{order_code}{secrets.token_hex(4).upper()}"


def create_payment(
    conn: Connection,
    *,
    store_id: int,
    order_id: int,
    order_code: str,
    provider: str,
    amount: int,
    now: datetime,
) -> Payment:
    txn_ref = new_txn_ref(order_code)
    result = conn.execute(
        insert(payments).values(
            store_id=store_id,
            order_id=order_id,
            provider=provider,
            txn_ref=txn_ref,
            amount=amount,
            status="pending",
            created_at=now,
            updated_at=now,
        )
    )
    assert result.inserted_primary_key is not None
    payment_id = int(result.inserted_primary_key[0])
    return Payment(payment_id, store_id, order_id, provider, txn_ref, amount, "pending")


def find_payment(conn: Connection, *, store_id: int, provider: str, txn_ref: str) -> Payment | None:
    row = conn.execute(
        select(*_COLUMNS).where(
            payments.c.store_id == store_id,
            payments.c.provider == provider,
            payments.c.txn_ref == txn_ref,
        )
    ).first()
    return Payment(*row) if row else None


def settle_payment(
    conn: Connection,
    payment: Payment,
    *,
    succeeded: bool,
    gateway_txn_no: str,
    response_code: str,
    now: datetime,
) -> bool:
    """Record the outcome once: False when another notification settled it first."""
    settled = conn.execute(
        update(payments)
        .where(payments.c.id == payment.id, payments.c.status == "pending")
        .values(
            status="succeeded" if succeeded else "failed",
            gateway_txn_no=gateway_txn_no[:64],
            response_code=response_code[:10],
            updated_at=now,
        )
    )
    return settled.rowcount == 1


def order_status(conn: Connection, *, order_id: int) -> tuple[str, str]:
    """(code, current_status) of an order."""
    row = conn.execute(
        select(orders.c.code, orders.c.current_status).where(orders.c.id == order_id)
    ).one()
    return row.code, row.current_status
