"""Guest orders joined to an account: only by proving possession of the order (its code and
the phone it was placed with), never by an e-mail alone, which anyone can type when
registering."""

from __future__ import annotations

import json
import logging

import pytest

from companion.logging_http import ACCESS_LOGGER
from tests.companion.commerce.conftest import ADDRESS, Store
from tests.companion.conftest import PREFIX

pytestmark = pytest.mark.anyio

CLAIM = "/customer/orders/claim"


async def test_registering_with_the_orders_email_does_not_show_them(store: Store) -> None:
    order = await store.place(await store.cart((store.goods.shirt_m, 1)))
    squatter = await store.customer(ADDRESS["email"])  # the guest order's e-mail, typed
    listing = await store.ok("GET", "/customer/orders", jwt=squatter)
    assert listing["items"] == []
    hidden = await store.call("GET", f"/customer/orders/{order['id']}", jwt=squatter)
    assert hidden.status_code == 404


async def test_the_code_and_phone_join_a_guest_order(store: Store) -> None:
    order = await store.place(await store.cart((store.goods.shirt_m, 1)))
    jwt = await store.customer("chu-don@example.vn")
    body = {"code": order["code"].lower(), "phone": "090 123 4567"}  # as a shopper types them
    joined = await store.ok("POST", CLAIM, json=body, jwt=jwt)
    assert joined["id"] == order["id"] and len(joined) == 10
    listing = await store.ok("GET", "/customer/orders", jwt=jwt)
    assert [o["code"] for o in listing["items"]] == [order["code"]]
    again = await store.ok("POST", CLAIM, json=body, jwt=jwt)  # idempotent for its owner
    assert again["id"] == order["id"]


async def test_a_wrong_phone_or_anothers_order_is_refused_and_logged(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    order = await store.place(await store.cart((store.goods.shirt_m, 1)))
    owner = await store.customer("chu-don@example.vn")
    thief = await store.customer("ke-gian@example.vn")
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    caplog.clear()
    wrong = await store.call(
        "POST", CLAIM, json={"code": order["code"], "phone": "0909999999"}, jwt=thief
    )
    assert wrong.status_code == 404 and wrong.json()["code"] == "not_found"
    [line] = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    assert line["path"] == f"{PREFIX}{CLAIM}" and line["refused"].startswith("order claim")
    right = {"code": order["code"], "phone": ADDRESS["phone"]}
    await store.ok("POST", CLAIM, json=right, jwt=owner)
    taken = await store.call("POST", CLAIM, json=right, jwt=thief)  # already someone's
    assert taken.status_code == 404
    assert (await store.ok("GET", "/customer/orders", jwt=thief))["items"] == []
    assert (await store.call("POST", CLAIM, json=right)).status_code == 401


async def test_guesses_at_one_order_are_throttled(store: Store) -> None:
    order = await store.place(await store.cart((store.goods.shirt_m, 1)))
    thief = await store.customer("ke-gian@example.vn")
    answers = [
        (
            await store.call(
                "POST", CLAIM, json={"code": order["code"], "phone": f"090000000{n}"}, jwt=thief
            )
        ).status_code
        for n in range(7)
    ]
    assert answers[:5] == [404] * 5 and answers[-1] == 429


async def test_proofs_are_not_counted_as_guesses(store: Store) -> None:
    order = await store.place(await store.cart((store.goods.shirt_m, 1)))
    jwt = await store.customer("chu-don@example.vn")
    proof = {"code": order["code"], "phone": ADDRESS["phone"]}
    for _ in range(8):  # more than login_attempts: any device that placed it may prove it
        await store.ok("POST", CLAIM, json=proof, jwt=jwt)
