"""Every error is RFC 9457 problem JSON with one clear line; bad input is never a 500."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.pool import NullPool

from tests.companion.conftest import PREFIX, Api
from tests.companion.databases import postgres_server, refused_connection

pytestmark = pytest.mark.anyio


def assert_problem(response_json: dict[str, object], status: int, code: str) -> None:
    assert response_json["status"] == status
    assert response_json["code"] == code
    assert response_json["type"] == f"https://errors.storefront.dev/{code}"
    assert isinstance(response_json["title"], str)
    detail = response_json["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail


async def test_unknown_route_is_a_404_problem(api: Api) -> None:
    response = await api.get("/no-such-thing")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert_problem(response.json(), 404, "not_found")


async def test_wrong_method_is_a_405_problem_with_allow(api: Api) -> None:
    response = await api.client.delete(f"{PREFIX}/products", headers={"X-Service-Key": api.key})
    assert response.status_code == 405
    assert "GET" in response.headers["Allow"]
    assert_problem(response.json(), 405, "method_not_allowed")


async def test_validation_error_lists_fields_and_messages(api: Api) -> None:
    response = await api.get("/products", limit="many", sort="cheapest")
    assert response.status_code == 422
    body = response.json()
    assert_problem(body, 422, "validation_error")
    assert {e["field"] for e in body["errors"]} == {"limit", "sort"}
    assert all(e["message"] for e in body["errors"])


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/products/99999999999999999999999999", {}),
        ("/products/-5", {}),
        ("/products/0", {}),
        ("/categories/1e9", {}),
        ("/products", {"cursor": "garbage"}),
        ("/products", {"cursor": "2026-13-45T00:00:00|1"}),
        ("/products", {"cursor": "x|99999999999999999999"}),
        ("/products", {"cursor": "x|\u00b9"}),
        ("/products", {"sort": "price_asc", "cursor": "99999999999999999999999|1"}),
        ("/products", {"ids": "1,two"}),
        ("/products", {"ids": ",".join(["1"] * 101)}),
        ("/products", {"limit": "0"}),
        ("/products", {"q": "x" * 201}),
        ("/sitemap/everything", {}),
        ("/routes/resolve", {}),
        ("/articles", {"cursor": "2026-11-20T03:00:00+07:00|3"}),
    ],
)
async def test_bad_input_is_a_422_never_a_500(api: Api, path: str, params: dict[str, str]) -> None:
    response = await api.get(path, **params)
    assert response.status_code == 422, response.text
    assert_problem(response.json(), 422, "validation_error")


@pytest.mark.parametrize(
    "params",
    [
        {"limit": "99999999999999999999999"},
        {"category": "99999999999999999999999"},
        {"category": "\u0661\u0662"},
        {"collection": "%ff"},
        {"ids": "99999999999999999"},
        {"q": "%_\\"},
    ],
)
async def test_odd_but_valid_input_is_answered(api: Api, params: dict[str, str]) -> None:
    api.shop.product("Áo thun")
    response = await api.get("/products", **params)
    assert response.status_code == 200, response.text


async def test_nul_in_query_is_refused(api: Api) -> None:
    response = await api.client.get(
        f"{PREFIX}/products/by-slug/x?q=a%00b", headers={"X-Service-Key": api.key}
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "query"


async def test_non_utf8_query_bytes_are_not_a_500(api: Api) -> None:
    response = await api.client.get(
        f"{PREFIX}/routes/resolve?path=%ff%fe", headers={"X-Service-Key": api.key}
    )
    assert response.status_code == 404


async def test_unexpected_exception_is_a_500_problem_without_traceback(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    def explode() -> None:
        raise RuntimeError("secret internals")

    api.app.add_api_route(f"{PREFIX}/explode", explode)
    with caplog.at_level(logging.ERROR, logger="companion.errors"):
        response = await api.get("/explode")
    assert response.status_code == 500
    assert "secret internals" not in response.text
    assert "Traceback" not in response.text
    assert_problem(response.json(), 500, "internal_error")
    assert "secret internals" in caplog.text  # logged for the operator


async def test_a_database_that_cannot_be_reached_is_a_503_with_retry_after(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    refusal = refused_connection()  # the driver's own error for a closed port

    def read() -> None:
        raise refusal

    api.app.add_api_route(f"{PREFIX}/unreachable", read)
    with caplog.at_level(logging.ERROR, logger="companion.errors"):
        response = await api.get("/unreachable")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    assert_problem(response.json(), 503, "database_unavailable")
    assert response.json()["retry_after"] == 5
    assert "127.0.0.1" not in response.text  # the driver's words stay in the log
    assert "database unavailable on /public/v1/unreachable" in caplog.text
    assert "Traceback" not in caplog.text  # one line a request while it lasts


async def answer_to_statement(api: Api, engine: Engine, statement: str) -> httpx.Response:
    """The answer to a route that runs ``statement`` on ``engine`` (disposed after)."""

    def run() -> None:
        with engine.begin() as conn:
            conn.execute(text(statement))

    api.app.add_api_route(f"{PREFIX}/statement", run)
    try:
        return await api.get("/statement")
    finally:
        engine.dispose()


async def test_a_sqlite_file_locked_too_long_is_a_503(api: Api, tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN EXCLUSIVE")
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.05}, poolclass=NullPool)
    try:
        response = await answer_to_statement(api, engine, "INSERT INTO t VALUES (1)")
    finally:
        holder.close()
    assert response.status_code == 503
    assert_problem(response.json(), 503, "database_unavailable")


async def test_a_bad_statement_is_still_a_500(api: Api, tmp_path: Path) -> None:
    # SQLite's driver calls a syntax error an OperationalError too: a bug, not an outage.
    engine = create_engine(f"sqlite:///{tmp_path / 'bug.sqlite3'}", poolclass=NullPool)
    response = await answer_to_statement(api, engine, "SELEKT 1")
    assert response.status_code == 500
    assert_problem(response.json(), 500, "internal_error")


async def test_a_statement_postgresql_finds_too_large_is_still_a_500(api: Api) -> None:
    server = postgres_server()
    if server is None:
        pytest.skip("PostgreSQL's own limits (the PostgreSQL pass runs it)")
    engine = create_engine(server, poolclass=NullPool)
    # More columns than a target list may hold: SQLSTATE 54011.
    response = await answer_to_statement(api, engine, "SELECT " + ", ".join(["1"] * 1700))
    assert response.status_code == 500
    assert_problem(response.json(), 500, "internal_error")
