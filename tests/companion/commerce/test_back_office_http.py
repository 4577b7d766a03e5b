"""The back office at /admin: staff sign in (own accounts, argon2, the customers' lockout
rules), work on orders and products, and each change lands in the audit log. Every form carries
a CSRF token; a page without a session sends the browser to the login page and does nothing;
a staff member without the owner's role is refused the owner's pages."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from companion.backoffice.staff import Role
from companion.clock import ManualClock
from companion.db.backoffice_schema import admin_audit_log
from companion.db.commerce_schema import (
    coupons,
    order_status_history,
    orders,
    shipping_methods,
    webhook_deliveries,
)
from companion.db.schema import products, variants
from companion.logging_http import ACCESS_LOGGER
from companion.webhooks.subscriptions import add_subscription
from tests.companion.commerce.back_office import Browser, add_account, csrf_of
from tests.companion.commerce.conftest import ADDRESS, Store, Template, opened_store
from tests.companion.commerce.test_order_mail import Inbox, _mail_settings
from tests.companion.commerce.test_order_mail import smtp as smtp  # the fixture

pytestmark = pytest.mark.anyio

OWNER, CLERK = "chu@shop.example", "nv@shop.example"


@pytest.fixture
async def office(store: Store) -> AsyncIterator[Store]:
    add_account(store, OWNER, Role.OWNER)
    add_account(store, CLERK, Role.STAFF)
    yield store


@pytest.fixture
async def browser(office: Store) -> AsyncIterator[Browser]:
    opened = Browser(office)
    yield opened
    await opened.close()


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]
    return [line["refused"] for line in lines if "refused" in line]


def status_of(store: Store, code: str) -> str:
    with store.engine.connect() as conn:
        found: str = conn.execute(
            select(orders.c.current_status).where(orders.c.code == code)
        ).scalar_one()
    return found


def price_of(store: Store, product_id: int) -> tuple[int | None, list[int | None]]:
    with store.engine.connect() as conn:
        own = conn.execute(select(products.c.price).where(products.c.id == product_id)).scalar()
        theirs = conn.execute(
            select(variants.c.price).where(variants.c.product_id == product_id)
        ).scalars()
        return own, list(theirs)


async def test_staff_find_a_new_order_first_and_fulfil_it(office: Store, browser: Browser) -> None:
    jwt = await office.customer()
    older = await office.place(await office.cart((office.goods.jeans_v, 1)))
    office.clock.advance(60)
    order = await office.place(await office.cart((office.goods.shirt_m, 2)), jwt=jwt)
    await browser.signed_in(CLERK)

    listed = await browser.get("/admin/orders")
    assert listed.status_code == 200
    assert listed.text.index(order["code"]) < listed.text.index(older["code"])
    page = await browser.get(f"/admin/orders/{order['code']}")
    assert "Gửi hàng" in page.text and "Huỷ đơn" in page.text
    slip = await browser.get(f"/admin/orders/{order['code']}/slip")
    assert slip.status_code == 200 and "Phiếu đóng gói" in slip.text

    moved = await browser.post(
        f"/admin/orders/{order['code']}/move", to="fulfilled", reason="Giao GHN"
    )
    assert moved.status_code == 303
    assert status_of(office, order["code"]) == "fulfilled"
    with office.engine.connect() as conn:
        reasons = conn.execute(select(order_status_history.c.reason)).scalars().all()
        logged = conn.execute(select(admin_audit_log)).all()
    assert "Giao GHN" in reasons
    assert [(e.staff_email, e.action, e.subject) for e in logged if e.action != "login"] == [
        (CLERK, "order.status", order["code"])
    ]
    seen = await office.ok("GET", f"/customer/orders/{order['id']}", jwt=jwt)
    assert seen["current_status"] == "fulfilled"

    again = await browser.post(f"/admin/orders/{order['code']}/move", to="paid")
    assert again.status_code == 409  # the state machine refuses fulfilled -> paid
    assert status_of(office, order["code"]) == "fulfilled"


async def test_orders_are_filtered_by_status_and_found_by_phone_or_code(
    office: Store, browser: Browser
) -> None:
    first = await office.place(await office.cart((office.goods.jeans_v, 1)))
    second = await office.place(await office.cart((office.goods.shirt_m, 1)))
    await browser.signed_in(CLERK)
    await browser.post(f"/admin/orders/{first['code']}/move", to="cancelled", reason="Khách huỷ")
    cancelled = await browser.get("/admin/orders", status="cancelled")
    assert first["code"] in cancelled.text and second["code"] not in cancelled.text
    by_code = await browser.get("/admin/orders", q=second["code"].lower())
    assert second["code"] in by_code.text and first["code"] not in by_code.text
    by_phone = await browser.get("/admin/orders", q=ADDRESS["phone"])
    none = await browser.get("/admin/orders", q="0000000000")
    assert (first["code"] in by_phone.text) == (second["code"] in by_phone.text)
    assert second["code"] not in none.text
    home = await browser.get("/admin")
    assert "Doanh thu hôm nay" in home.text


async def test_without_a_session_nothing_is_shown_or_changed(
    office: Store, browser: Browser, caplog: pytest.LogCaptureFixture
) -> None:
    for path in ("/admin", "/admin/orders", "/admin/products", "/admin/staff", "/admin/audit"):
        answer = await browser.get(path)
        assert answer.status_code == 303 and answer.headers["location"] == "/admin/login"
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    caplog.clear()
    before = price_of(office, office.goods.shirt)
    answer = await browser.post(f"/admin/products/{office.goods.shirt}", csrf="x", price="1")
    assert answer.status_code == 303
    assert price_of(office, office.goods.shirt) == before
    assert refusals(caplog) == ["admin: not signed in"]


async def test_a_form_without_its_csrf_token_changes_nothing(
    office: Store, browser: Browser, caplog: pytest.LogCaptureFixture
) -> None:
    order = await office.place(await office.cart((office.goods.shirt_m, 1)))
    await browser.signed_in(CLERK)
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    caplog.clear()
    for csrf in ("-", "", "0" * 64):
        answer = await browser.post(
            f"/admin/orders/{order['code']}/move", csrf=csrf, to="cancelled"
        )
        assert answer.status_code == 403
    other = Browser(office)  # another session's token does not fit this one
    await other.signed_in(OWNER)
    answer = await browser.post(
        f"/admin/orders/{order['code']}/move", csrf=other.csrf, to="cancelled"
    )
    await other.close()
    assert answer.status_code == 403
    assert status_of(office, order["code"]) == "pending"
    assert refusals(caplog) == ["admin: CSRF token missing or wrong"] * 4
    login = await browser.client.post(
        "/admin/login", data={"email": OWNER, "password": "x", "csrf": "forged"}
    )
    assert login.status_code == 403


async def test_logins_are_throttled_as_customers_are(
    template: Template, tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    async with opened_store(template, tmp_path, clock, login_attempts=3) as store:
        add_account(store, OWNER, Role.OWNER)
        browser = Browser(store)
        caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
        caplog.clear()
        for _ in range(3):
            wrong = await browser.login(OWNER, "not the password")
            assert wrong.status_code == 401 and "không đúng" in wrong.text
        refused = await browser.login(OWNER)  # the right password, after three wrong ones
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) == 900
        assert "sf_admin=" not in refused.headers.get("set-cookie", "")
        assert refusals(caplog) == [
            *["admin login refused: wrong e-mail or password"] * 3,
            "admin login throttled: this client, this e-mail",
        ]
        clock.advance(901)
        assert (await browser.login(OWNER)).status_code == 303
        await browser.close()


async def test_the_session_cookie(office: Store) -> None:
    for base, secure in (("http://test", False), ("https://test", True)):
        browser = Browser(office, base)
        answer = await browser.login(OWNER)
        await browser.close()
        [cookie] = [c for c in answer.headers.get_list("set-cookie") if c.startswith("sf_admin=")]
        flags = {part.strip().lower() for part in cookie.split(";")[1:]}
        assert {"httponly", "samesite=strict", "path=/admin"} <= flags
        assert ("secure" in flags) is secure


async def test_pages_carry_a_strict_content_security_policy(browser: Browser) -> None:
    await browser.signed_in(OWNER)
    for path in ("/admin/login", "/admin", "/admin/products", "/admin/admin.css"):
        answer = await browser.get(path)
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy
        assert answer.headers["cache-control"] == "no-store"
        assert answer.headers["x-frame-options"] == "DENY"
    assert "<script" not in (await browser.get("/admin")).text


async def test_only_the_owner_manages_staff_imports_and_reads_the_audit_log(
    office: Store, browser: Browser, caplog: pytest.LogCaptureFixture
) -> None:
    await browser.signed_in(CLERK)
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    caplog.clear()
    assert (await browser.get("/admin/staff")).status_code == 403
    assert (await browser.get("/admin/audit")).status_code == 403
    added = await browser.post(
        "/admin/staff", email="moi@shop.example", password="mot-mat-khau-dai", role="owner"
    )
    assert added.status_code == 403
    imported = await browser.client.post(
        "/admin/products/import",
        files={"file": ("p.csv", b"Handle\n")},
        data={"csrf": browser.csrf},
    )
    assert imported.status_code == 403
    assert refusals(caplog) == ["admin: the role does not allow this"] * 4
    assert (await browser.get("/admin/products")).status_code == 200
    assert (await browser.get("/admin/products/export.csv")).status_code == 200

    owner = Browser(office)
    await owner.signed_in(OWNER)
    assert (await owner.get("/admin/audit")).status_code == 200
    added = await owner.post(
        "/admin/staff", email="moi@shop.example", password="mot-mat-khau-dai", role="staff"
    )
    assert added.status_code == 303
    staff_page = await owner.get("/admin/staff")
    assert "moi@shop.example" in staff_page.text
    audit_page = await owner.get("/admin/audit")
    assert "staff.add" in audit_page.text and "moi@shop.example" in audit_page.text
    newcomer = Browser(office)
    assert (await newcomer.login("moi@shop.example", "mot-mat-khau-dai")).status_code == 303
    await newcomer.close()
    await owner.close()


async def test_a_price_edit_sets_every_variant_and_queues_the_content_webhook(
    office: Store, browser: Browser
) -> None:
    with office.engine.begin() as conn:
        add_subscription(
            conn,
            store_id=office.store_id,
            url="https://ci.example/hook",
            events=["product.updated"],
            now=office.clock.now(),
        )
    await browser.signed_in(CLERK)
    shirt = office.goods.shirt
    saved = await browser.post(
        f"/admin/products/{shirt}",
        price="1.590.000",
        **{f"stock_{office.goods.shirt_l}": "7"},
    )
    assert saved.status_code == 303
    assert price_of(office, shirt) == (1_590_000, [1_590_000, 1_590_000])
    assert office.stock(office.goods.shirt_l) == 7
    assert office.stock(office.goods.shirt_m) == 10  # unchanged: not written
    with office.engine.connect() as conn:
        queued = conn.execute(select(webhook_deliveries.c.event_type)).scalars().all()
    assert queued and set(queued) == {"product.updated"}
    token = await office.cart((office.goods.shirt_m, 1))
    cart = await office.ok("GET", "/cart", params={"token": token})
    assert int(cart["items"][0]["unit_price"]) == 1_590_000
    refused = await browser.post(f"/admin/products/{shirt}", price="abc")
    assert refused.status_code == 422
    assert price_of(office, shirt)[0] == 1_590_000


async def test_a_password_is_reset_by_e_mail(
    template: Template, tmp_path: Path, clock: ManualClock, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    async with opened_store(template, tmp_path, clock, **_mail_settings(port)) as store:
        add_account(store, OWNER, Role.OWNER)
        browser = Browser(store)
        form = await browser.get("/admin/password/forgot")
        for email in (OWNER, "nobody@shop.example"):
            sent = await browser.client.post(
                "/admin/password/forgot", data={"email": email, "csrf": csrf_of(form)}
            )
            assert sent.status_code == 200 and "Đã gửi" in sent.text
        [(recipients, message)] = inbox.messages  # none for an e-mail without an account
        assert recipients == [OWNER]
        body = message.get_payload(decode=True).decode()  # type: ignore[union-attr]
        token = body.split("?token=")[1].split()[0]
        page = await browser.get("/admin/password/new", token=token)
        new = {"token": token, "password": "mat-khau-moi-123", "csrf": csrf_of(page)}
        done = await browser.client.post("/admin/password/new", data=new)
        assert done.status_code == 200
        assert (await browser.login(OWNER, "mat-khau-moi-123")).status_code == 303
        again = await browser.client.post(
            "/admin/password/new", data={**new, "password": "mat-khau-khac-456"}
        )
        assert again.status_code == 400  # a link is used once
        await browser.close()


async def test_without_mail_the_login_page_offers_no_reset(browser: Browser) -> None:
    page = await browser.get("/admin/login")
    assert page.status_code == 200 and 'action="/admin/login"' in page.text
    assert "/admin/password/forgot" not in page.text


async def test_staff_switch_a_coupon_off_and_set_a_free_shipping_threshold(
    office: Store, browser: Browser
) -> None:
    with office.engine.connect() as conn:
        coupon = conn.execute(select(coupons).where(coupons.c.code == "GIAM10")).one()
        method = conn.execute(select(shipping_methods).order_by(shipping_methods.c.id)).first()
    assert method is not None
    await browser.signed_in(CLERK)
    page = await browser.get("/admin/offers")
    assert page.status_code == 200 and "GIAM10" in page.text
    off = await browser.post(
        f"/admin/offers/coupons/{coupon.id}", value=str(coupon.value), min_order="0"
    )
    assert off.status_code == 303  # the box unticked: off
    token = await office.cart((office.goods.shirt_m, 1))
    quote = await office.ok("GET", "/cart/quote", params={"token": token, "coupon_code": "GIAM10"})
    assert quote["coupon"]["reason"] == "inactive"
    free = await browser.post(
        f"/admin/offers/shipping/{method.id}", fee="30.000", free_over="500.000", enabled="1"
    )
    assert free.status_code == 303
    wrong = await browser.post(f"/admin/offers/coupons/{coupon.id}", value="150", active="1")
    assert wrong.status_code == 422  # a percent past 100: nothing saved
    forged = await browser.post(
        f"/admin/offers/shipping/{method.id}", csrf="-", fee="0", enabled="1"
    )
    assert forged.status_code == 403
    with office.engine.connect() as conn:
        assert (
            conn.execute(select(coupons.c.active).where(coupons.c.id == coupon.id)).scalar()
            is False
        )
        saved = conn.execute(
            select(shipping_methods).where(shipping_methods.c.id == method.id)
        ).one()
        actions = conn.execute(select(admin_audit_log.c.action)).scalars().all()
    assert (saved.fee, saved.free_over) == (30_000, 500_000)
    assert [a for a in actions if a != "login"] == ["coupon.edit", "shipping.edit"]


async def test_the_merchants_note_is_kept_apart_from_the_shoppers(
    office: Store, browser: Browser
) -> None:
    order = await office.place(await office.cart((office.goods.shirt_m, 1)))
    await browser.signed_in(CLERK)
    saved = await browser.post(f"/admin/orders/{order['code']}/note", note="Khách quen: gói quà")
    assert saved.status_code == 303
    page = await browser.get(f"/admin/orders/{order['code']}")
    assert "Khách quen: gói quà" in page.text
    with office.engine.connect() as conn:
        row = conn.execute(
            select(orders.c.merchant_note, orders.c.note).where(orders.c.code == order["code"])
        ).one()
        actions = conn.execute(select(admin_audit_log.c.action)).scalars().all()
    assert row.merchant_note == "Khách quen: gói quà" and row.note != row.merchant_note
    assert "order.note" in actions
    refused = await browser.post(f"/admin/orders/{order['code']}/note", csrf="-", note="x")
    assert refused.status_code == 403
