"""The read side of the public API (catalogue and content), mounted by ``create_app`` under
/public/v1. One module per resource group; every route needs a tenant (``CurrentTenant``)."""

from fastapi import APIRouter, Security

from companion.openapi import PROBLEM_RESPONSES, service_key_scheme
from companion.routes.merge import add_routes
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
from companion.routes.read.one_hop import in_one_thread

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
    # Each route's connection opened in its own thread call: one hand-over, not three.
    add_routes(router, _module.router, tags=[_tag], endpoint_of=in_one_thread)
