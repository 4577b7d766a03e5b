"""Cart, checkout, payments, customers and the other write endpoints.

``router`` is mounted by ``create_app`` under /public/v1 and, as the spec's aliases, under
/public. ``gateway_router`` (the sandbox gateway's pages and the IPN endpoint) is mounted at the
root: gateways and browsers reach it without a publishable key. Routes that write run in one
worker-thread hop (``one_hop``).
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
from companion.routes.commerce.gateway import router as leaf_gateway_router
from companion.routes.commerce.one_hop import in_one_hop
from companion.routes.merge import add_routes

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
    add_routes(router, _module.router, endpoint_of=in_one_hop)

gateway_router = APIRouter()
add_routes(gateway_router, leaf_gateway_router, endpoint_of=in_one_hop)

__all__ = ["gateway_router", "router"]
