"""Cart, checkout, payments, customers and the other write endpoints.

``router`` is mounted by ``create_app`` under /public/v1 and, as the spec's aliases, under
/public. ``gateway_router`` (the sandbox gateway's pages and the IPN endpoint) is mounted at the
root: gateways and browsers reach it without a publishable key.
"""

from fastapi import APIRouter, Security

from companion.openapi import PROBLEM_RESPONSES, service_key_scheme
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

router = APIRouter(
    dependencies=[Security(service_key_scheme())],
    responses=PROBLEM_RESPONSES,
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
