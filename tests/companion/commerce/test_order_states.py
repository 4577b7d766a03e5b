"""The order state machine: every allowed move passes, every other one is refused."""

from __future__ import annotations

import itertools

import pytest

from companion.commerce.order_states import (
    TRANSITIONS,
    OrderStatus,
    TransitionRefused,
    check_transition,
    releases_stock,
)

ALLOWED = [(s, g) for s, goals in TRANSITIONS.items() for g in sorted(goals)]
REFUSED = [
    (s, g) for s, g in itertools.product(OrderStatus, OrderStatus) if g not in TRANSITIONS[s]
]


@pytest.mark.parametrize(("source", "goal"), ALLOWED, ids=lambda s: str(s))
def test_allowed_transition_returns_the_goal(source: OrderStatus, goal: OrderStatus) -> None:
    assert check_transition(source, goal, payment_method="cod") is goal


@pytest.mark.parametrize(("source", "goal"), REFUSED, ids=lambda s: str(s))
def test_refused_transition_names_both_states(source: OrderStatus, goal: OrderStatus) -> None:
    with pytest.raises(TransitionRefused, match=f"from {source} to {goal}"):
        check_transition(source, goal, payment_method="cod")


def test_documented_paths_are_possible() -> None:
    paths = [
        ["pending", "paid", "fulfilled", "delivered", "refunded"],
        ["pending", "cancelled"],
        ["pending", "payment_failed", "paid"],
        ["pending", "payment_failed", "cancelled"],
        ["pending", "fulfilled", "delivered"],
        ["pending", "paid", "refunded"],
    ]
    for path in paths:
        for source, goal in itertools.pairwise(path):
            check_transition(source, goal, payment_method="cod")


def test_final_states_allow_nothing() -> None:
    assert TRANSITIONS[OrderStatus.CANCELLED] == frozenset()
    assert TRANSITIONS[OrderStatus.REFUNDED] == frozenset()


def test_prepaid_order_cannot_ship_before_payment() -> None:
    with pytest.raises(TransitionRefused, match="must be paid"):
        check_transition("pending", "fulfilled", payment_method="vnpay")


def test_unknown_status_is_refused() -> None:
    with pytest.raises(TransitionRefused, match="unknown order status"):
        check_transition("pending", "lost", payment_method="cod")


@pytest.mark.parametrize(
    ("source", "goal", "expected"),
    [
        ("pending", "cancelled", True),
        ("payment_failed", "cancelled", True),
        ("paid", "refunded", True),
        ("delivered", "refunded", False),
        ("pending", "paid", False),
    ],
)
def test_stock_goes_back_only_for_goods_never_shipped(
    source: str, goal: str, expected: bool
) -> None:
    assert releases_stock(OrderStatus(source), OrderStatus(goal)) is expected
