"""One signed IPN delivered many times at once (a gateway retrying, a proxy replaying): every
copy gets a success answer and the payment is applied once. On SQLite a transaction that read
before it wrote could not wait for the write lock and answered 99 ("database is locked")."""

from __future__ import annotations

from urllib.parse import parse_qsl

import anyio
import pytest
from sqlalchemy import func, select

from companion.db.commerce_schema import order_status_history, payments
from companion.payments import vnpay
from tests.companion.commerce.conftest import HASH_SECRET, Store
from tests.companion.commerce.test_payments_http import paid_result, placed_vnpay_order, start

pytestmark = pytest.mark.anyio

COPIES = 10
#: Orders paid per test: one burst may happen not to collide; several in a row do.
ROUNDS = 4
SUCCESS = {"00", "02"}  # confirmed now, or already confirmed by another copy


async def signed_ipn(store: Store) -> tuple[int, dict[str, str]]:
    """A placed order's id and the gateway's signed notification that it was paid."""
    token, order = await placed_vnpay_order(store)
    result = paid_result(await start(store, token))
    order_id = order["id"]
    assert isinstance(order_id, int)
    return order_id, dict(parse_qsl(vnpay.signed_query(result, HASH_SECRET)))


async def send_all(store: Store, params: dict[str, str]) -> list[str]:
    codes: list[str] = []

    async def send() -> None:
        response = await store.client.get("/payments/vnpay/ipn", params=params)
        assert response.status_code == 200
        codes.append(response.json()["RspCode"])

    async with anyio.create_task_group() as group:
        for _ in range(COPIES):
            group.start_soon(send)
    return codes


def applied(store: Store, order_id: int) -> tuple[list[str], int]:
    """(the order's payments' statuses, how many times it became paid)."""
    with store.engine.connect() as conn:
        statuses = list(
            conn.execute(select(payments.c.status).where(payments.c.order_id == order_id)).scalars()
        )
        paid: int = conn.execute(
            select(func.count())
            .select_from(order_status_history)
            .where(
                order_status_history.c.order_id == order_id,
                order_status_history.c.to_status == "paid",
            )
        ).scalar_one()
    return statuses, paid


async def test_identical_ipns_at_once_all_succeed_and_pay_once(store: Store) -> None:
    for _ in range(ROUNDS):
        order_id, params = await signed_ipn(store)
        codes = await send_all(store, params)
        assert set(codes) <= SUCCESS, sorted(codes)
        assert codes.count("00") == 1, sorted(codes)
        assert applied(store, order_id) == (["succeeded"], 1)
