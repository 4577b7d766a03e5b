"""Liveness and readiness: what a load balancer asks each worker before sending it traffic."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


async def test_live_answers_without_a_key(api: Api) -> None:
    response = await api.client.get("/health/live")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["Cache-Control"] == "no-store"
    assert "RateLimit-Limit" not in response.headers  # outside the public API's limits


async def test_ready_when_the_database_is_migrated(api: Api) -> None:
    response = await api.client.get("/health/ready")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_not_ready_while_the_schema_is_behind(api: Api) -> None:
    with api.app.state.services.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    response = await api.client.get("/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["detail"].startswith("database schema at revision 0001, expected ")


async def test_not_ready_when_the_database_is_gone(api: Api) -> None:
    with api.app.state.services.engine.begin() as conn:
        conn.execute(text("DROP TABLE alembic_version"))
    response = await api.client.get("/health/ready")
    assert response.status_code == 503
    assert response.json()["detail"].startswith("database schema at revision none")
