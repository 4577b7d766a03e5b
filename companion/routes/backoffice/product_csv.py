"""CSV export and import of products and variants. Import is the owner's (it rewrites the
catalogue wholesale, and makes the products of Handles the store does not have); a dry run
shows what it would change and create, and a file with any error changes nothing. The file is
refused while it is read once past ``admin_csv_max_bytes``."""

from __future__ import annotations

import email.parser
import email.policy
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from companion.backoffice import audit
from companion.backoffice.product_csv import CsvRefused, Plan, apply_plan, export_csv, plan_import
from companion.backoffice.sessions import csrf_matches
from companion.backoffice.staff import Power
from companion.deps import ServicesDep
from companion.logging_http import note_refusal
from companion.routes.backoffice.access import (
    SESSION_COOKIE,
    AdminRoute,
    Desk,
    FormRefused,
    StoreId,
    needs,
)
from companion.routes.backoffice.render import page

router = APIRouter(route_class=AdminRoute)

CatalogueDesk = Annotated[Desk, Depends(needs(Power.CATALOGUE))]
ImportDesk = Annotated[Desk, Depends(needs(Power.IMPORT))]
#: Room for the form's other fields and the parts' headers around the file.
FORM_OVERHEAD = 16 * 1024


class TooLarge(Exception):
    pass


@router.get("/products/csv")
def get_csv_page(desk: CatalogueDesk) -> Response:
    return page("csv.html", desk=desk, plan=None, applied=False, refused="", here="csv")


@router.get("/products/export.csv")
def get_export(desk: CatalogueDesk, services: ServicesDep, store_id: StoreId) -> Response:
    with services.engine.connect() as conn:
        text = export_csv(conn, store_id=store_id)
    return Response(
        text.encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="products.csv"'},
    )


async def read_upload(request: Request, limit: int) -> dict[str, bytes]:
    """The parts of a multipart form, refused as soon as the body passes ``limit``."""
    kind = request.headers.get("content-type", "")
    if not kind.startswith("multipart/form-data"):
        raise FormRefused("an import that is not a multipart form")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit + FORM_OVERHEAD:
            raise TooLarge
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + kind.encode("latin-1") + b"\r\n\r\n" + bytes(body)
    )
    parts: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            parts.setdefault(name, payload)
    return parts


Upload = dict[str, bytes]


async def upload_of(request: Request, services: ServicesDep) -> Upload:
    try:
        return await read_upload(request, services.settings.admin_csv_max_bytes)
    except TooLarge:
        return {"": b""}  # the page says it; nothing of it is read further


@router.post("/products/import")
def post_import(
    request: Request,
    desk: ImportDesk,
    upload: Annotated[Upload, Depends(upload_of)],
    services: ServicesDep,
    store_id: StoreId,
) -> Response:
    settings = services.settings
    if "" in upload:
        note_refusal(request.scope, "admin import refused: file over admin_csv_max_bytes")
        return csv_page(desk, None, refused="size", status=413, limit=settings.admin_csv_max_bytes)
    sent = upload.get("csrf", b"").decode("ascii", "replace")
    if not csrf_matches(request.cookies.get(SESSION_COOKIE, ""), sent):
        raise FormRefused("CSRF token missing or wrong")
    data = upload.get("file", b"")
    if len(data) > settings.admin_csv_max_bytes:
        note_refusal(request.scope, "admin import refused: file over admin_csv_max_bytes")
        return csv_page(desk, None, refused="size", status=413, limit=settings.admin_csv_max_bytes)
    dry_run = upload.get("dry_run", b"") == b"1"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return csv_page(desk, None, refused="encoding", status=422)
    now = services.clock.now()
    try:
        with services.engine.begin() as conn:
            plan = plan_import(
                conn, store_id=store_id, text=text, max_rows=settings.admin_csv_max_rows
            )
            if plan.errors or dry_run:
                return csv_page(desk, plan, status=422 if plan.errors else 200)
            apply_plan(conn, plan, store_id=store_id, now=now)
            audit.record(
                conn,
                staff=desk.staff,
                action="products.import",
                detail=f"{len(plan.changes)} changes, {len(plan.created)} new products",
                now=now,
            )
    except CsvRefused as exc:
        return csv_page(desk, None, refused=str(exc), status=422)
    return csv_page(desk, plan, applied=True)


def csv_page(
    desk: Desk,
    plan: Plan | None,
    *,
    refused: str = "",
    status: int = 200,
    applied: bool = False,
    limit: int = 0,
) -> Response:
    return page(
        "csv.html",
        status,
        desk=desk,
        plan=plan,
        applied=applied,
        refused=refused,
        limit=limit,
        here="csv",
    )
