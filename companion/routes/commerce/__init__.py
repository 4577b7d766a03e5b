"""Cart, checkout, payments, customers and the other write endpoints.

``router`` is included by ``create_app`` under /public/v1 and, as the spec's aliases, under
/public. ``gateway_router`` (the sandbox gateway's pages and the IPN endpoint) is included at
the root: gateways and browsers reach it without a publishable key.
"""

from typing import Any

from fastapi import APIRouter, Security

from companion.openapi import PROBLEM_RESPONSES, ProblemBody, service_key_scheme
from companion.routes.commerce import (
    cart,
    checkout,
    contacts,
    customer_account,
    customer_activity,
    customer_addresses,
    customer_orders,
    payments,
    recommendations,
    reviews,
    search,
    shipping,
    storefront,
    tracking,
)
from companion.routes.commerce.gateway import router as gateway_router

COMMERCE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **PROBLEM_RESPONSES,
    400: {"description": "The body is not readable JSON", "model": ProblemBody},
    403: {"description": "Not the customer's to see or change", "model": ProblemBody},
    409: {
        "description": "The state forbids it (closed cart, stock gone, paid order, ...)",
        "model": ProblemBody,
    },
}

router = APIRouter(
    dependencies=[Security(service_key_scheme())],
    responses=COMMERCE_RESPONSES,
)
for _module in (
    cart,
    checkout,
    shipping,
    payments,
    customer_account,
    customer_addresses,
    customer_orders,
    customer_activity,
    contacts,
    reviews,
    search,
    recommendations,
    tracking,
    storefront,
):
    router.include_router(_module.router)

__all__ = ["gateway_router", "router"]
