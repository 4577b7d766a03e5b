"""The order state machine: which ``current_status`` may follow which. Pure, no I/O.

    pending         -> paid | payment_failed | cancelled | fulfilled (cash on delivery only)
    payment_failed  -> paid (a retried payment succeeded) | cancelled
    paid            -> fulfilled | refunded
    fulfilled       -> delivered
    delivered       -> refunded
    cancelled, refunded: final

``docs/orders.md`` is the prose version; ``TRANSITIONS`` is the one source of truth. Side effects
(stock release, loyalty points) belong to ``companion.commerce.order_transitions``.
"""

from __future__ import annotations

from enum import StrEnum


class OrderStatus(StrEnum):
    PENDING = "pending"  # placed; awaiting online payment, or confirmation of a COD order
    PAID = "paid"  # the gateway's IPN confirmed the payment
    PAYMENT_FAILED = "payment_failed"  # the IPN reported a failed or cancelled payment
    FULFILLED = "fulfilled"  # handed to the carrier (or ready at the pickup location)
    DELIVERED = "delivered"  # received by the customer; loyalty points are credited
    CANCELLED = "cancelled"  # stock released, redeemed points returned
    REFUNDED = "refunded"  # money returned after payment


TRANSITIONS: dict[OrderStatus, frozenset[OrderStatus]] = {
    OrderStatus.PENDING: frozenset(
        {
            OrderStatus.PAID,
            OrderStatus.PAYMENT_FAILED,
            OrderStatus.FULFILLED,
            OrderStatus.CANCELLED,
        }
    ),
    OrderStatus.PAYMENT_FAILED: frozenset({OrderStatus.PAID, OrderStatus.CANCELLED}),
    OrderStatus.PAID: frozenset({OrderStatus.FULFILLED, OrderStatus.REFUNDED}),
    OrderStatus.FULFILLED: frozenset({OrderStatus.DELIVERED}),
    OrderStatus.DELIVERED: frozenset({OrderStatus.REFUNDED}),
    OrderStatus.CANCELLED: frozenset(),
    OrderStatus.REFUNDED: frozenset(),
}

#: Payment methods settled on delivery: such an order may ship while still pending.
PAY_ON_DELIVERY = frozenset({"cod"})

#: States in which the gateway may still settle the order.
PAYABLE = frozenset({OrderStatus.PENDING, OrderStatus.PAYMENT_FAILED})


class TransitionRefused(ValueError):
    """A move the state machine does not allow; the message says which and why."""


def check_transition(current: str, target: str, *, payment_method: str) -> OrderStatus:
    """The target status if ``current -> target`` is allowed, else ``TransitionRefused``."""
    try:
        source = OrderStatus(current)
        goal = OrderStatus(target)
    except ValueError as exc:
        raise TransitionRefused(f"unknown order status: {exc}") from None
    if goal not in TRANSITIONS[source]:
        allowed = ", ".join(sorted(TRANSITIONS[source])) or "none (final state)"
        raise TransitionRefused(
            f"an order cannot go from {source} to {goal}; allowed from {source}: {allowed}"
        )
    if (
        source is OrderStatus.PENDING
        and goal is OrderStatus.FULFILLED
        and payment_method not in PAY_ON_DELIVERY
    ):
        raise TransitionRefused(
            f"a pending order paid by {payment_method!r} must be paid before it is fulfilled"
        )
    return goal


def releases_stock(source: OrderStatus, goal: OrderStatus) -> bool:
    """Goods that never left the warehouse go back on sale."""
    if goal is OrderStatus.CANCELLED:
        return True
    return goal is OrderStatus.REFUNDED and source is OrderStatus.PAID
