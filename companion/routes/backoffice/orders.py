"""The back office's home (today's orders and revenue), the order list, an order's page with its
moves, and its packing slip."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.responses import RedirectResponse, Response

from companion.admin.errors import Invalid
from companion.admin.orders import set_merchant_note
from companion.backoffice import audit
from companion.backoffice.orders import OrderFilter, list_orders, order_page, today
from companion.backoffice.staff import Power
from companion.commerce.order_states import OrderStatus, TransitionRefused
from companion.commerce.order_transitions import transition_order
from companion.deps import ServicesDep
from companion.routes.backoffice.access import (
    AdminRoute,
    Desk,
    DeskDep,
    Form,
    PageMissing,
    StoreId,
    needs,
    posted_needs,
)
from companion.routes.backoffice.render import page

router = APIRouter(route_class=AdminRoute)

OrdersDesk = Annotated[Desk, Depends(needs(Power.ORDERS))]
PostedOrdersDesk = Annotated[Desk, Depends(posted_needs(Power.ORDERS))]
REASON_CHARS = 200


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


@router.get("")
def get_home(desk: DeskDep, services: ServicesDep, store_id: StoreId) -> Response:
    now = services.clock.now()
    with services.engine.connect() as conn:
        figures = today(conn, store_id=store_id, now=now)
        latest = list_orders(conn, store_id=store_id, where=OrderFilter(), limit=10)
    return page("home.html", desk=desk, today=figures, orders=latest, here="home")


@router.get("/orders")
def get_orders(
    desk: OrdersDesk,
    services: ServicesDep,
    store_id: StoreId,
    status: str = "",
    placed_from: str = "",
    placed_to: str = "",
    q: str = "",
) -> Response:
    where = OrderFilter(
        status=status if status in set(OrderStatus) else "",
        placed_from=_day(placed_from),
        placed_to=_day(placed_to),
        search=q[:254],
    )
    with services.engine.connect() as conn:
        found = list_orders(conn, store_id=store_id, where=where)
    return page(
        "orders.html",
        desk=desk,
        orders=found,
        where=where,
        statuses=list(OrderStatus),
        here="orders",
    )


@router.get("/orders/{code}")
def get_order(
    code: str, desk: OrdersDesk, services: ServicesDep, store_id: StoreId, error: str = ""
) -> Response:
    with services.engine.connect() as conn:
        shown = order_page(conn, store_id=store_id, code=code[:20])
    if shown is None:
        raise PageMissing
    return page("order.html", desk=desk, o=shown, error=error[:300], here="orders")


@router.get("/orders/{code}/slip")
def get_slip(code: str, desk: OrdersDesk, services: ServicesDep, store_id: StoreId) -> Response:
    with services.engine.connect() as conn:
        shown = order_page(conn, store_id=store_id, code=code[:20])
    if shown is None:
        raise PageMissing
    return page("slip.html", desk=desk, o=shown, here="orders")


@router.post("/orders/{code}/move")
def post_move(
    code: str,
    desk: PostedOrdersDesk,
    form: Form,
    services: ServicesDep,
    store_id: StoreId,
) -> Response:
    """One move of the state machine, with the reason the staff member gives."""
    target, reason = form.get("to", ""), form.get("reason", "").strip()[:REASON_CHARS]
    now = services.clock.now()
    try:
        with services.engine.begin() as conn:
            shown = order_page(conn, store_id=store_id, code=code[:20])
            if shown is None:
                raise PageMissing
            goal = transition_order(
                conn,
                store_id=store_id,
                order_id=shown.order.id,
                target=target,
                reason=reason or f"back office: {desk.staff.email}",
                now=now,
            )
            audit.record(
                conn,
                staff=desk.staff,
                action="order.status",
                subject=shown.order.code,
                detail=f"{shown.order.current_status} -> {goal.value}: {reason}",
                now=now,
            )
    except TransitionRefused as exc:
        with services.engine.connect() as conn:
            shown = order_page(conn, store_id=store_id, code=code[:20])
        assert shown is not None
        return page("order.html", 409, desk=desk, o=shown, error=str(exc), here="orders")
    return RedirectResponse(f"/admin/orders/{shown.order.code}", status_code=303)


@router.post("/orders/{code}/note")
def post_note(
    code: str, desk: PostedOrdersDesk, form: Form, services: ServicesDep, store_id: StoreId
) -> Response:
    """The merchant's own note (the admin API's ``set_merchant_note``), apart from the
    shopper's."""
    note, now = form.get("note", "").strip(), services.clock.now()
    try:
        with services.engine.begin() as conn:
            shown = order_page(conn, store_id=store_id, code=code[:20])
            if shown is None:
                raise PageMissing
            set_merchant_note(
                conn, store_id=store_id, order_id=shown.order.id, note=note or None, now=now
            )
            audit.record(
                conn,
                staff=desk.staff,
                action="order.note",
                subject=shown.order.code,
                detail=note,
                now=now,
            )
    except Invalid as exc:
        with services.engine.connect() as conn:
            again = order_page(conn, store_id=store_id, code=code[:20])
        assert again is not None
        return page("order.html", 422, desk=desk, o=again, error=str(exc), here="orders")
    return RedirectResponse(f"/admin/orders/{shown.order.code}", status_code=303)
