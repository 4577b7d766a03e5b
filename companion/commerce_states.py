"""The states and kinds of carts, coupon verdicts, checkouts and shipping, as the API shows them.

Below both the commerce rules and the wire schemas, which name them alike.
"""

from __future__ import annotations

from enum import StrEnum


class CartStatus(StrEnum):
    ACTIVE = "active"
    ORDERED = "ordered"  # became an order: read-only from now on
    MERGED = "merged"  # its items went into the customer's cart on login


class CouponReason(StrEnum):
    APPLIED = "applied"
    UNKNOWN = "unknown"
    INACTIVE = "inactive"
    NOT_STARTED = "not_started"
    EXPIRED = "expired"
    BELOW_MINIMUM = "below_minimum"
    USAGE_LIMIT_REACHED = "usage_limit_reached"


class CheckoutStatus(StrEnum):
    OPEN = "open"
    COMPLETED = "completed"  # its cart became an order; no more changes


class ShippingKind(StrEnum):
    DELIVERY = "delivery"
    PICKUP = "pickup"  # collected at a pickup location; needs pickup_location_id
