"""The back office at /admin: server-rendered pages for the merchant's staff (not an API).

Served on the companion's host only: the static site's server proxies /public/, /sandbox/ and
/payments/, never /admin. Domain work is in ``companion.backoffice``; these modules read forms,
check the session, the role and the CSRF token, and render templates (``admin_templates``).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from starlette.responses import Response

from companion.routes.backoffice import login, offers, orders, owner, product_csv, products
from companion.routes.backoffice.render import TEMPLATES, secured

PAGES_PREFIX = "/admin"

router = APIRouter(include_in_schema=False)
for part in (login, orders, product_csv, products, offers, owner):  # /products/csv before /{id}
    router.include_router(part.router, prefix=PAGES_PREFIX)

_STYLES = (Path(TEMPLATES) / "admin.css").read_bytes


@router.get(f"{PAGES_PREFIX}/admin.css")
def get_styles() -> Response:
    return secured(Response(_STYLES(), media_type="text/css; charset=utf-8"))
