"""Coupons, automatic promotions and shipping thresholds: one small form per row."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends
from sqlalchemy import Connection
from starlette.responses import RedirectResponse, Response

from companion.backoffice import audit
from companion.backoffice.catalogue import EditRefused
from companion.backoffice.offers import (
    OfferRefused,
    add_coupon,
    offers,
    set_coupon,
    set_promotion,
    set_shipping,
)
from companion.backoffice.staff import Power
from companion.deps import ServicesDep
from companion.routes.backoffice.access import AdminRoute, Desk, Form, StoreId, needs, posted_needs
from companion.routes.backoffice.products import read_amount
from companion.routes.backoffice.render import page

router = APIRouter(route_class=AdminRoute)

OffersDesk = Annotated[Desk, Depends(needs(Power.CATALOGUE))]
PostedOffersDesk = Annotated[Desk, Depends(posted_needs(Power.CATALOGUE))]


def offers_page(desk: Desk, services: ServicesDep, store_id: int, error: str = "") -> Response:
    with services.engine.connect() as conn:
        shown = offers(conn, store_id=store_id)
    return page(
        "offers.html", 422 if error else 200, desk=desk, error=error, here="offers", **shown
    )


@router.get("/offers")
def get_offers(desk: OffersDesk, services: ServicesDep, store_id: StoreId) -> Response:
    return offers_page(desk, services, store_id)


def _whole(form: dict[str, str], name: str) -> int:
    return read_amount(form.get(name, "")) or 0


def _saved(
    desk: Desk,
    services: ServicesDep,
    store_id: int,
    action: str,
    change: Callable[[Connection], str],
    detail: str,
) -> Response:
    now = services.clock.now()
    try:
        with services.engine.begin() as conn:
            subject = change(conn)
            audit.record(
                conn, staff=desk.staff, action=action, subject=subject, detail=detail, now=now
            )
    except (OfferRefused, EditRefused) as exc:
        return offers_page(desk, services, store_id, str(exc))
    return RedirectResponse("/admin/offers", status_code=303)


@router.post("/offers/coupons")
def post_new_coupon(
    desk: PostedOffersDesk, form: Form, services: ServicesDep, store_id: StoreId
) -> Response:
    try:
        value, minimum = _whole(form, "value"), _whole(form, "min_order")
    except EditRefused as exc:
        return offers_page(desk, services, store_id, str(exc))

    def change(conn: Connection) -> str:
        add_coupon(
            conn,
            store_id=store_id,
            code=form.get("code", ""),
            kind=form.get("kind", ""),
            value=value,
            min_order=minimum,
        )
        return form.get("code", "").strip().upper()

    detail = f"{form.get('kind', '')} {value}, from {minimum}"
    return _saved(desk, services, store_id, "coupon.add", change, detail)


@router.post("/offers/coupons/{coupon_id}")
def post_coupon(
    coupon_id: int, desk: PostedOffersDesk, form: Form, services: ServicesDep, store_id: StoreId
) -> Response:
    setter = partial(set_coupon, coupon_id=coupon_id)
    return _edit_offer(desk, form, services, store_id, "coupon.edit", setter)


@router.post("/offers/promotions/{promotion_id}")
def post_promotion(
    promotion_id: int, desk: PostedOffersDesk, form: Form, services: ServicesDep, store_id: StoreId
) -> Response:
    setter = partial(set_promotion, promotion_id=promotion_id)
    return _edit_offer(desk, form, services, store_id, "promotion.edit", setter)


def _edit_offer(
    desk: PostedOffersDesk,
    form: Form,
    services: ServicesDep,
    store_id: StoreId,
    action: str,
    setter: Callable[..., str],
) -> Response:
    """A coupon's or a promotion's value, minimum and switch, as the form sets them."""
    try:
        value, minimum = _whole(form, "value"), _whole(form, "min_order")
    except EditRefused as exc:
        return offers_page(desk, services, store_id, str(exc))
    active = form.get("active") == "1"

    def change(conn: Connection) -> str:
        return setter(conn, store_id=store_id, value=value, min_order=minimum, active=active)

    detail = f"value {value}, from {minimum}, {'on' if active else 'off'}"
    return _saved(desk, services, store_id, action, change, detail)


@router.post("/offers/shipping/{method_id}")
def post_shipping(
    method_id: int, desk: PostedOffersDesk, form: Form, services: ServicesDep, store_id: StoreId
) -> Response:
    try:
        fee, free_over = _whole(form, "fee"), read_amount(form.get("free_over", ""))
    except EditRefused as exc:
        return offers_page(desk, services, store_id, str(exc))
    enabled = form.get("enabled") == "1"

    def change(conn: Connection) -> str:
        return set_shipping(
            conn,
            store_id=store_id,
            method_id=method_id,
            fee=fee,
            free_over=free_over,
            enabled=enabled,
        )

    detail = f"fee {fee}, free from {free_over}, {'on' if enabled else 'off'}"
    return _saved(desk, services, store_id, "shipping.edit", change, detail)
