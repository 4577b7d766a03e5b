"""Starting a gateway payment for a placed order: a signed redirect to the gateway."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, select

from companion.commerce.order_states import PAYABLE
from companion.db.commerce_schema import orders
from companion.payments import vnpay
from companion.payments.gateways import online_gateway
from companion.payments.payment_store import create_payment
from companion.refusals import Conflict, Invalid

SANDBOX_PAY_PATH = "/sandbox/vnpay/pay"
SANDBOX_COMPLETE_PATH = "/sandbox/vnpay/complete"
IPN_PATH = "/payments/vnpay/ipn"
SANDBOX_RESULT_PATH = "/sandbox/vnpay/result"


@dataclass(frozen=True, slots=True)
class PaymentStart:
    provider: str
    payment_url: str
    txn_ref: str
    amount: int


def start_payment(
    conn: Connection,
    *,
    store_id: int,
    order_id: int,
    provider: str | None,
    return_url: str | None,
    client_ip: str,
    public_url: str,
    sandbox: bool,
    now: datetime,
) -> PaymentStart:
    """A new payment attempt for the order; a failed attempt may be retried with a new one.
    ``sandbox``: whether the sandbox gateway, through which every online payment goes, serves
    the store; ``return_url`` has been checked to be one of the store's sites."""
    order = conn.execute(
        select(
            orders.c.code, orders.c.total, orders.c.current_status, orders.c.payment_method
        ).where(orders.c.store_id == store_id, orders.c.id == order_id)
    ).one()
    if order.current_status not in PAYABLE:
        raise Conflict(
            "order_not_payable", f"order {order.code} is {order.current_status}; nothing to pay"
        )
    code = provider or order.payment_method
    gateway = online_gateway(conn, store_id=store_id, code=code) if sandbox else None
    if gateway is None or gateway.merchant_code is None or gateway.hash_secret is None:
        raise Invalid(
            "provider", f"{code!r} is not an online payment gateway connected to this store"
        )
    payment = create_payment(
        conn,
        store_id=store_id,
        order_id=order_id,
        order_code=order.code,
        provider=gateway.code,
        amount=order.total,
        now=now,
    )
    params = vnpay.payment_request(
        merchant_code=gateway.merchant_code,
        txn_ref=payment.txn_ref,
        amount_vnd=order.total,
        order_info=f"Thanh toan don hang {order.code}",
        return_url=return_url or public_url.rstrip("/") + SANDBOX_RESULT_PATH,
        client_ip=client_ip,
        now=now,
    )
    query = vnpay.signed_query(params, gateway.hash_secret)
    url = f"{public_url.rstrip('/')}{SANDBOX_PAY_PATH}?{query}"
    return PaymentStart(gateway.code, url, payment.txn_ref, order.total)
