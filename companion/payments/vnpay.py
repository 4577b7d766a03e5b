"""VNPay 2.1.0 message signing, as the gateway and a merchant both do it. Pure.

The signed text is every ``vnp_*`` parameter except the hash fields, sorted by name, each
form-encoded (``quote_plus``: spaces as ``+``) and joined as ``k=v&k=v``. The signature is the
hex HMAC-SHA512 of that text under the merchant's hash secret. Amounts are VND x 100, and
dates are ``yyyyMMddHHmmss`` in Vietnam time (UTC+7).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from datetime import datetime, timedelta
from urllib.parse import parse_qsl, quote_plus

VERSION = "2.1.0"
HASH_FIELDS = frozenset({"vnp_SecureHash", "vnp_SecureHashType"})
VIETNAM_OFFSET = timedelta(hours=7)
MAX_QUERY = 4000

# Gateway answers to an IPN (the RspCode convention).
RSP_OK = "00"
RSP_ORDER_NOT_FOUND = "01"
RSP_ALREADY_CONFIRMED = "02"
RSP_INVALID_AMOUNT = "04"
RSP_INVALID_SIGNATURE = "97"
RSP_OTHER = "99"

# vnp_ResponseCode values the sandbox sends.
PAID = "00"
CANCELLED_BY_CUSTOMER = "24"


class MalformedQuery(ValueError):
    """Not a query string a gateway sends (too long, repeated keys, no parameters)."""


def signed_text(params: Mapping[str, str]) -> str:
    return "&".join(
        f"{quote_plus(key)}={quote_plus(value)}"
        for key, value in sorted(params.items())
        if key.startswith("vnp_") and key not in HASH_FIELDS
    )


def signature(params: Mapping[str, str], secret: str) -> str:
    digest = hmac.new(secret.encode(), signed_text(params).encode(), hashlib.sha512)
    return digest.hexdigest()


def signed_query(params: Mapping[str, str], secret: str) -> str:
    """The query string of a signed message: the signed text plus ``vnp_SecureHash``."""
    return f"{signed_text(params)}&vnp_SecureHash={signature(params, secret)}"


def is_genuine(params: Mapping[str, str], secret: str) -> bool:
    given = params.get("vnp_SecureHash", "")
    return hmac.compare_digest(given.lower(), signature(params, secret))


def parse_query(raw: str) -> dict[str, str]:
    """A raw query string (a leading ``?`` is allowed) as a dict; repeated keys are refused."""
    raw = raw.strip().removeprefix("?")
    if len(raw) > MAX_QUERY:
        raise MalformedQuery("the query string is too long")
    pairs = parse_qsl(raw, keep_blank_values=True)
    params = dict(pairs)
    if len(params) != len(pairs):
        raise MalformedQuery("a parameter is repeated")
    if not params:
        raise MalformedQuery("the query string has no parameters")
    return params


def vnpay_time(when: datetime) -> str:
    """A naive UTC datetime as the gateway writes dates: Vietnam time, ``yyyyMMddHHmmss``."""
    return (when + VIETNAM_OFFSET).strftime("%Y%m%d%H%M%S")


def amount_field(amount_vnd: int) -> str:
    return str(amount_vnd * 100)


def payment_request(
    *,
    merchant_code: str,
    txn_ref: str,
    amount_vnd: int,
    order_info: str,
    return_url: str,
    client_ip: str,
    now: datetime,
    expires_in: timedelta = timedelta(minutes=15),
) -> dict[str, str]:
    """The parameters of a pay request (unsigned), as a merchant sends them."""
    return {
        "vnp_Version": VERSION,
        "vnp_Command": "pay",
        "vnp_TmnCode": merchant_code,
        "vnp_Amount": amount_field(amount_vnd),
        "vnp_CurrCode": "VND",
        "vnp_TxnRef": txn_ref,
        "vnp_OrderInfo": order_info,
        "vnp_OrderType": "other",
        "vnp_Locale": "vn",
        "vnp_ReturnUrl": return_url,
        "vnp_IpAddr": client_ip,
        "vnp_CreateDate": vnpay_time(now),
        "vnp_ExpireDate": vnpay_time(now + expires_in),
    }
