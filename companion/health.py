"""Liveness and readiness, for a load balancer or an orchestrator in front of the workers.

- ``GET /health/live``: the process answers (200 ``{"status": "ok"}``); nothing else is checked,
  so a slow database never gets a healthy worker restarted.
- ``GET /health/ready``: the database answers and its schema is at the latest migration
  (200); otherwise 503 with the reason, so traffic is held back until the worker can serve it.

Outside /public: no key, no tenant, no rate limit.
"""

from __future__ import annotations

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from companion.db.migrate import alembic_config

router = APIRouter(prefix="/health", include_in_schema=False)

NO_STORE = {"Cache-Control": "no-store"}


def migration_heads() -> set[str]:
    """The revisions a fully migrated database is at (read from the shipped migrations)."""
    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


def readiness(engine: Engine, heads: set[str]) -> str | None:
    """None when the database answers and is migrated; else why not, in one line."""
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            current = set(MigrationContext.configure(conn).get_current_heads())
    except SQLAlchemyError as exc:
        reason = (str(getattr(exc, "orig", None) or exc).splitlines() or ["failed"])[0]
        return f"database unreachable: {reason}"
    if current != heads:
        at = ", ".join(sorted(current)) or "none"
        return f"database schema at revision {at}, expected {', '.join(sorted(heads))}"
    return None


@router.get("/live")
async def live() -> JSONResponse:
    return JSONResponse({"status": "ok"}, headers=NO_STORE)


@router.get("/ready")
async def ready(request: Request) -> JSONResponse:
    engine: Engine = request.app.state.services.engine
    heads: set[str] = request.app.state.migration_heads
    reason = await run_in_threadpool(readiness, engine, heads)
    if reason is not None:
        return JSONResponse({"status": "unavailable", "detail": reason}, 503, headers=NO_STORE)
    return JSONResponse({"status": "ok"}, headers=NO_STORE)
