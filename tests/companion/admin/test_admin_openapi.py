"""docs/admin-openapi.json is the admin API the running app serves: regenerate it with
``UPDATE_ADMIN_OPENAPI=1`` when a route changes on purpose."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from companion.keys.permissions import PERMISSIONS
from tests.companion.commerce.conftest import Store

pytestmark = pytest.mark.anyio
DOCUMENT = Path(__file__).parents[3] / "docs" / "admin-openapi.json"


async def test_the_admin_openapi_file_is_what_the_app_serves(store: Store) -> None:
    served = await store.client.get("/admin/api/v1/openapi.json")
    assert served.status_code == 200
    document = served.json()
    if os.environ.get("UPDATE_ADMIN_OPENAPI"):
        DOCUMENT.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    assert json.loads(DOCUMENT.read_text()) == document
    paths = document["paths"]
    assert all(path.startswith("/admin/api/v1/") for path in paths)
    assert "/admin/api/v1/orders/{order_id}/moves" in paths
    # The public API's document never lists the admin API.
    public = (await store.client.get("/public/v1/openapi.json")).json()
    assert not any(path.startswith("/admin") for path in public["paths"])


def test_every_permission_is_documented() -> None:
    text = (DOCUMENT.parent / "admin-api.md").read_text()
    assert all(f"`{permission}`" in text for permission in PERMISSIONS)
