"""Request logs: one JSON line per request, with the request id that is echoed to the client."""

from __future__ import annotations

import json
import logging

import pytest

from companion.logging_http import ACCESS_LOGGER
from tests.companion.conftest import PREFIX, Api

pytestmark = pytest.mark.anyio


def logged(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == ACCESS_LOGGER]


async def test_a_given_request_id_is_echoed_and_logged(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    response = await api.client.get(
        f"{PREFIX}/products",
        params={"cart_token": "secret-token"},
        headers={"X-Service-Key": api.key, "X-Request-Id": "lb-42.a"},
    )
    assert response.headers["X-Request-Id"] == "lb-42.a"
    [line] = logged(caplog)
    assert line["request_id"] == "lb-42.a"
    assert line["method"] == "GET"
    assert line["path"] == f"{PREFIX}/products"  # the query (cart tokens) is never logged
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], float)
    assert "secret-token" not in caplog.text


@pytest.mark.parametrize("given", [None, "two words", "x" * 129, "id\nforged log line"])
async def test_a_missing_or_unsafe_request_id_is_replaced(
    api: Api, caplog: pytest.LogCaptureFixture, given: str | None
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    headers = {} if given is None else {"X-Request-Id": given}
    response = await api.client.get("/health/live", headers=headers)
    made = response.headers["X-Request-Id"]
    assert len(made) == 32 and made != given
    assert logged(caplog)[0]["request_id"] == made


async def test_refused_requests_are_logged_with_their_status(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS_LOGGER)
    response = await api.client.get(f"{PREFIX}/store", headers={"X-Service-Key": "pk_wrong"})
    assert response.status_code == 401
    assert "X-Request-Id" in response.headers
    assert [line["status"] for line in logged(caplog)] == [401]
