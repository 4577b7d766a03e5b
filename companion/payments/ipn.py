"""The gateway's server-to-server notification (IPN): the only thing that decides a payment.

Answers in the gateway's RspCode convention, and is idempotent: a replayed notification finds
the payment settled and answers 02 without changing anything.

    00 confirmed   01 order not found   02 already confirmed   04 invalid amount
    97 invalid signature   99 anything else
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection

from companion.commerce.order_states import PAYABLE, OrderStatus, TransitionRefused
from companion.commerce.order_transitions import transition_order
from companion.payments import vnpay
from companion.payments.gateways import gateway_for_merchant
from companion.payments.payment_store import find_payment, order_status, settle_payment

PROVIDER = "vnpay"


@dataclass(frozen=True, slots=True)
class IpnAnswer:
    code: str
    message: str

    def body(self) -> dict[str, str]:
        return {"RspCode": self.code, "Message": self.message}


CONFIRMED = IpnAnswer(vnpay.RSP_OK, "Confirm Success")
NOT_FOUND = IpnAnswer(vnpay.RSP_ORDER_NOT_FOUND, "Order not found")
ALREADY = IpnAnswer(vnpay.RSP_ALREADY_CONFIRMED, "Order already confirmed")
BAD_AMOUNT = IpnAnswer(vnpay.RSP_INVALID_AMOUNT, "Invalid amount")
BAD_SIGNATURE = IpnAnswer(vnpay.RSP_INVALID_SIGNATURE, "Invalid signature")
OTHER = IpnAnswer(vnpay.RSP_OTHER, "Unknown error")


def handle_ipn(conn: Connection, params: dict[str, str], *, now: datetime) -> IpnAnswer:
    """Verify, match and apply one notification (inside a savepoint: all or nothing)."""
    gateway = gateway_for_merchant(conn, code=PROVIDER, merchant_code=params.get("vnp_TmnCode", ""))
    if gateway is None or not vnpay.is_genuine(params, gateway.hash_secret or ""):
        return BAD_SIGNATURE
    payment = find_payment(
        conn, store_id=gateway.store_id, provider=PROVIDER, txn_ref=params.get("vnp_TxnRef", "")
    )
    if payment is None:
        return NOT_FOUND
    if params.get("vnp_Amount") != vnpay.amount_field(payment.amount):
        return BAD_AMOUNT
    if payment.status != "pending":
        return ALREADY
    _, status = order_status(conn, order_id=payment.order_id)
    succeeded = (
        params.get("vnp_ResponseCode") == vnpay.PAID and params.get("vnp_TransactionStatus") == "00"
    )
    with conn.begin_nested():
        if not settle_payment(
            conn,
            payment,
            succeeded=succeeded,
            gateway_txn_no=params.get("vnp_TransactionNo", ""),
            response_code=params.get("vnp_ResponseCode", ""),
            now=now,
        ):
            return ALREADY
        if status not in PAYABLE:
            # Paid for an order that was cancelled meanwhile: recorded, left for a refund.
            return ALREADY
        target = OrderStatus.PAID if succeeded else OrderStatus.PAYMENT_FAILED
        if target is OrderStatus.PAYMENT_FAILED and status == OrderStatus.PAYMENT_FAILED:
            return CONFIRMED
        try:
            transition_order(
                conn,
                store_id=gateway.store_id,
                order_id=payment.order_id,
                target=target,
                reason=f"{PROVIDER} IPN {params.get('vnp_ResponseCode', '')}",
                now=now,
            )
        except TransitionRefused:
            return ALREADY
    return CONFIRMED
