"""The read side of the public API (catalogue and content), included by ``create_app`` under
/public/v1. One module per resource group; every route needs a tenant (``CurrentTenant``)."""

from fastapi import APIRouter, Security

from companion.openapi import PROBLEM_RESPONSES, service_key_scheme
from companion.routes.read import (
    articles,
    categories,
    collections,
    filters,
    flash_sales,
    menus,
    pages,
    product_detail,
    products,
    resolve,
    site,
    sitemap,
)

router = APIRouter(
    dependencies=[Security(service_key_scheme())],
    responses=PROBLEM_RESPONSES,
)
for _tag, _module in (
    ("products", products),
    ("products", product_detail),
    ("categories", categories),
    ("collections", collections),
    ("articles", articles),
    ("pages", pages),
    ("navigation", menus),
    ("store", site),
    ("flash sales", flash_sales),
    ("products", filters),
    ("sitemap", sitemap),
    ("routes", resolve),
):
    router.include_router(_module.router, tags=[_tag])
