"""The owner's pages: the staff accounts, and the audit log of every change staff made."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import RedirectResponse, Response

from companion.backoffice import audit
from companion.backoffice.demo_staff import refuse_demo_password
from companion.backoffice.staff import (
    Power,
    Role,
    StaffError,
    add_staff,
    check_password,
    disable_staff,
    list_staff,
)
from companion.customers.passwords import hash_password
from companion.deps import ServicesDep, password_hasher_of
from companion.routes.backoffice.access import AdminRoute, Desk, Form, StoreId, needs, posted_needs
from companion.routes.backoffice.render import page

router = APIRouter(route_class=AdminRoute)

StaffDesk = Annotated[Desk, Depends(needs(Power.STAFF_ACCOUNTS))]
PostedStaffDesk = Annotated[Desk, Depends(posted_needs(Power.STAFF_ACCOUNTS))]
AuditDesk = Annotated[Desk, Depends(needs(Power.AUDIT))]


def staff_page(desk: Desk, services: ServicesDep, store_id: int, error: str = "") -> Response:
    with services.engine.connect() as conn:
        accounts = list_staff(conn, store_id=store_id)
    return page(
        "staff.html",
        422 if error else 200,
        desk=desk,
        accounts=accounts,
        roles=list(Role),
        error=error,
        here="staff",
    )


@router.get("/staff")
def get_staff_page(desk: StaffDesk, services: ServicesDep, store_id: StoreId) -> Response:
    return staff_page(desk, services, store_id)


@router.post("/staff")
def post_staff(
    request: Request, desk: PostedStaffDesk, form: Form, services: ServicesDep, store_id: StoreId
) -> Response:
    password, now = form.get("password", ""), services.clock.now()
    try:
        check_password(password)
        role = Role(form.get("role", "staff")) if form.get("role") in set(Role) else Role.STAFF
        with services.engine.begin() as conn:
            refuse_demo_password(conn, store_id=store_id, password=password)
            added = add_staff(
                conn,
                store_id=store_id,
                email=form.get("email", ""),
                password_hash=hash_password(password_hasher_of(request), password),
                role=role,
                now=now,
            )
            audit.record(
                conn,
                staff=desk.staff,
                action="staff.add",
                subject=added.email,
                detail=role,
                now=now,
            )
    except StaffError as exc:
        return staff_page(desk, services, store_id, str(exc))
    return RedirectResponse("/admin/staff", status_code=303)


@router.post("/staff/{staff_id}/remove")
def post_remove(
    staff_id: int, desk: PostedStaffDesk, services: ServicesDep, store_id: StoreId
) -> Response:
    now = services.clock.now()
    try:
        with services.engine.begin() as conn:
            disable_staff(conn, store_id=store_id, staff_id=staff_id, now=now)
            audit.record(
                conn, staff=desk.staff, action="staff.remove", subject=str(staff_id), now=now
            )
    except StaffError as exc:
        return staff_page(desk, services, store_id, str(exc))
    return RedirectResponse("/admin/staff", status_code=303)


@router.get("/audit")
def get_audit(desk: AuditDesk, services: ServicesDep, store_id: StoreId) -> Response:
    with services.engine.connect() as conn:
        entries = audit.recent(conn, store_id=store_id)
    return page("audit.html", desk=desk, entries=entries, here="audit")
