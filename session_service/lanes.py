"""Which lane of the key's budget a session request spends in.

The key's requests a minute are the store's selling capacity, so each forwarded path is one of:

- buying: the cart, its quote, checkout, shipping methods, the customer's account, and the
  session's own login, register and me: what a purchase needs, with a reserve of its own;
- browsing: products, search, the store, recommendations: never spends the buying reserve;
- shared reads: provinces, wards, payment methods: reads carrying no visitor state, answered
  from a short shared cache (``shared_reads``); a checkout needs them, so they spend as buying;
- activity: views, banner clicks, error reports: answered at once and forwarded from a queue
  (``activity``) with what buying and browsing spare.
"""

from __future__ import annotations

from enum import Enum


class Lane(Enum):
    BUYING = "buying"
    BROWSING = "browsing"
    SHARED = "shared"
    ACTIVITY = "activity"


_SHARED = frozenset({"shipping/provinces", "shipping/wards", "checkout/payment-methods"})
#: Activity paths; only their POSTs are activity (another method is forwarded as browsing).
ACTIVITY_PATHS = frozenset(
    {
        "analytics/entity-view",
        "recommendations/view",
        "customer/product-views",
        "banners/*/click",
        "storefront-errors",
    }
)
_BROWSING_FIRST = frozenset({"products", "search", "store", "recommendations"})


def lane_of(method: str, segments: tuple[str, ...]) -> Lane:
    """The lane of a forwarded call to the API path ``segments`` (decoded, as forwarded)."""
    path = "/".join(segments)
    if method == "POST" and _activity(segments):
        return Lane.ACTIVITY
    if path in _SHARED and method in ("GET", "HEAD"):
        return Lane.SHARED
    if segments[0] in _BROWSING_FIRST:
        return Lane.BROWSING
    return Lane.BUYING  # cart, checkout, shipping, customer: and anything unforeseen


def _activity(segments: tuple[str, ...]) -> bool:
    if len(segments) == 3 and segments[0] == "banners" and segments[2] == "click":
        return True
    return "/".join(segments) in ACTIVITY_PATHS
