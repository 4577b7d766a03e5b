"""A service's refusal (companion.refusals) is answered at the edge as problem JSON: its
status, code, detail, field and extras as the routes' own problems carry them."""

from __future__ import annotations

import json

import httpx
import pytest
from fastapi import APIRouter, FastAPI

from companion.errors_http import install_error_handling
from companion.refusals import Conflict, Invalid, NotFound, NotSignedIn, NotYours, Refused

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("refusal", "status", "body"),
    [
        (NotFound("cart"), 404, {"code": "not_found", "detail": "cart was not found"}),
        (
            Invalid("cart_token", "the cart is empty"),
            422,
            {
                "code": "validation_error",
                "detail": "cart_token: the cart is empty",
                "errors": [{"field": "cart_token", "message": "the cart is empty"}],
            },
        ),
        (
            Conflict("out_of_stock", "not enough stock", variant_id=7),
            409,
            {"code": "out_of_stock", "detail": "not enough stock", "variant_id": 7},
        ),
        (NotYours("cart_not_yours", "another's"), 403, {"code": "cart_not_yours"}),
        (NotSignedIn("login_required", "send the JWT"), 401, {"code": "login_required"}),
        (Refused("odd", "a refusal of no kind"), 422, {"code": "odd"}),
    ],
)
async def test_a_refusal_is_answered_as_a_problem(
    refusal: Refused, status: int, body: dict[str, object]
) -> None:
    router = APIRouter()

    @router.get("/refuse")
    async def refuse() -> None:
        raise refusal

    app = FastAPI()
    install_error_handling(app)
    app.include_router(router)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        answer = await client.get("/refuse")
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/problem+json"
    sent = json.loads(answer.content)
    assert sent["status"] == status and sent["type"].endswith("/" + sent["code"])
    assert {name: sent[name] for name in body} == body
    assert ("www-authenticate" in answer.headers) is (status == 401)
