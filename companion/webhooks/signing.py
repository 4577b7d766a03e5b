"""Webhook signatures: ``Storefront-Signature: t=<unix seconds>,v1=<hex>``. Pure.

``v1`` is the hex HMAC-SHA256, under the subscription's secret, of ``"<t>.<raw body>"``. The
timestamp inside the signed text lets a subscriber refuse replays of old deliveries.
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "Storefront-Signature"
EVENT_HEADER = "Storefront-Event"
DELIVERY_HEADER = "Storefront-Delivery"
DEFAULT_TOLERANCE = 300  # seconds a subscriber should accept between t and its own clock


def _mac(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(
        secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256
    ).hexdigest()


def sign(secret: str, body: bytes, *, timestamp: int) -> str:
    return f"t={timestamp},v1={_mac(secret, timestamp, body)}"


def verify(
    secret: str,
    body: bytes,
    header: str,
    *,
    now: int,
    tolerance: int = DEFAULT_TOLERANCE,
) -> bool:
    """What a subscriber runs: the header is well formed, recent, and its MAC matches."""
    fields: dict[str, list[str]] = {}
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if sep:
            fields.setdefault(key, []).append(value)
    stamps = fields.get("t", [])
    if len(stamps) != 1 or not stamps[0].isdigit() or len(stamps[0]) > 12:
        return False
    timestamp = int(stamps[0])
    if abs(now - timestamp) > tolerance:
        return False
    expected = _mac(secret, timestamp, body)
    return any(hmac.compare_digest(expected, given) for given in fields.get("v1", []))
