"""The back office's pages: Jinja templates beside the package (``admin_templates``), answered
with headers that keep them to themselves: a strict CSP (no script at all, styles from /admin
only), no framing, no caching, no referrer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from starlette.responses import HTMLResponse, Response

from companion.commerce.discounts import format_vnd

TEMPLATES = Path(__file__).resolve().parents[2] / "admin_templates"
VIETNAM_TIME = timezone(timedelta(hours=7), "ICT")

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self' data: https:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _vnd(amount: int | None) -> str:
    return "" if amount is None else format_vnd(int(amount))


def _when(moment: datetime | None) -> str:
    if moment is None:
        return ""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(VIETNAM_TIME).strftime("%H:%M %d/%m/%Y")


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["vnd"] = _vnd
    env.filters["when"] = _when
    return env


def page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    html = environment().get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


def secured(response: Response) -> Response:
    for header, value in SECURITY_HEADERS.items():
        response.headers.setdefault(header, value)
    return response
