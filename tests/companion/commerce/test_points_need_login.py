"""Loyalty points are spent only on the call of the customer's own login token: a cart token
is readable by the page's scripts and travels in query strings, so it never stands in for the
customer, even on a cart that belongs to one."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, update

from companion.db.commerce_schema import customers, orders, point_entries
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio

OWNER = "lan@example.vn"
OTHER = "minh@example.vn"


async def owner_cart_and_points(store: Store) -> tuple[str, str, str]:
    """The owner's JWT, the other customer's, and the token of a cart that is the owner's;
    each of them has 500 points."""
    jwt = await store.customer(OWNER)
    other = await store.customer(OTHER, "Trần Văn Minh")
    with store.engine.begin() as conn:
        conn.execute(update(customers).values(points_balance=500))
    token = await store.cart((store.goods.shirt_m, 1), jwt=jwt)
    return jwt, other, token


def balances(store: Store) -> dict[str, int]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(customers.c.email, customers.c.points_balance)).all()
    return {row.email: row.points_balance for row in rows}


def untouched(store: Store) -> None:
    assert balances(store) == {OWNER: 500, OTHER: 500}
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(orders)).scalar() == 0
        assert conn.execute(select(func.count()).select_from(point_entries)).scalar() == 0


async def test_the_cart_token_alone_cannot_spend_the_owners_points(store: Store) -> None:
    _, _, token = await owner_cart_and_points(store)
    refused = await store.place(token, redeem_points=500, expect=401)
    assert refused["code"] == "login_required"
    untouched(store)


async def test_the_owners_token_spends_her_points(store: Store) -> None:
    jwt, _, token = await owner_cart_and_points(store)
    order = await store.place(token, jwt=jwt, redeem_points=300)
    assert order["points_redeemed"] == 300
    assert balances(store) == {OWNER: 200, OTHER: 500}


async def test_another_customers_token_cannot_redeem_on_the_owners_cart(store: Store) -> None:
    _, other, token = await owner_cart_and_points(store)
    refused = await store.place(token, jwt=other, redeem_points=300, expect=403)
    assert refused["code"] == "cart_not_yours"
    untouched(store)
