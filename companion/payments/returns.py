"""Checking a gateway's browser return (POST /checkout/payment-return). Read-only.

The return only tells the storefront what to show; it never changes an order, because a
customer can forge or replay a redirect. The IPN decides.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from companion.payments import vnpay
from companion.payments.gateways import connected_gateways, identify_gateway
from companion.payments.payment_store import find_payment, order_status
from companion.refusals import Invalid


@dataclass(frozen=True, slots=True)
class ReturnVerdict:
    provider: str
    valid: bool  # the signature is the gateway's
    success: bool  # the gateway says the payment went through (only meaningful when valid)
    response_code: str | None
    txn_ref: str | None
    amount: int | None
    order: tuple[int, str, str] | None  # (id, code, current_status)
    message: str


def verify_return(
    conn: Connection, *, store_id: int, query_string: str, provider: str | None
) -> ReturnVerdict:
    try:
        params = vnpay.parse_query(query_string)
    except vnpay.MalformedQuery as exc:
        raise Invalid("query_string", str(exc)) from None
    gateways = connected_gateways(conn, store_id=store_id)
    if provider is None:
        gateway = identify_gateway(gateways, params)
        if gateway is None:
            raise Invalid(
                "provider", "no connected gateway recognises this query string; name provider"
            )
    else:
        gateway = next((g for g in gateways if g.code == provider and g.online), None)
        if gateway is None:
            raise Invalid(
                "provider", f"{provider!r} is not an online gateway connected to this store"
            )
    genuine = params.get("vnp_TmnCode") == gateway.merchant_code and vnpay.is_genuine(
        params, gateway.hash_secret or ""
    )
    if not genuine:
        return ReturnVerdict(
            gateway.code,
            False,
            False,
            None,
            None,
            None,
            None,
            "The signature does not match: this return did not come from the gateway.",
        )
    code = params.get("vnp_ResponseCode")
    success = code == vnpay.PAID and params.get("vnp_TransactionStatus") == "00"
    txn_ref = params.get("vnp_TxnRef")
    payment = find_payment(conn, store_id=store_id, provider=gateway.code, txn_ref=txn_ref or "")
    order = None
    if payment is not None:
        order_code, status = order_status(conn, order_id=payment.order_id)
        order = (payment.order_id, order_code, status)
    raw_amount = params.get("vnp_Amount", "")
    amount = int(raw_amount) // 100 if raw_amount.isdigit() and len(raw_amount) < 19 else None
    message = (
        "The gateway reports the payment as successful; the order is paid once its "
        "notification arrives."
        if success
        else "The gateway reports the payment as not completed."
    )
    return ReturnVerdict(gateway.code, True, success, code, txn_ref, amount, order, message)
