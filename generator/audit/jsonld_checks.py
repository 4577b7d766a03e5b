"""JSON-LD: valid JSON, and what Google requires of the two types the theme emits.

- ``Product``: a ``name``; each offer with ``price`` > 0 written as a plain number (not
  "120.000 ₫"), ``priceCurrency`` VND and a schema.org ``availability`` - errors, since they make
  the item invalid. Merchant listings also need ``image`` and ``offers``; a product without a
  photo or without a price yet is still a valid product snippet, so those are warnings.
- ``BreadcrumbList``: ListItems with positions 1, 2, 3... in order, each with a name, and an
  absolute ``item`` url on every crumb but the last.

Only top-level nodes and ``@graph`` members are checked: nested products (an ItemList of cards)
are summaries, which Google does not hold to the merchant-listing rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from generator.audit.findings import Finding, error, info, warning
from generator.audit.site import Page
from generator.audit.urls import origin_of

_PLAIN_PRICE = re.compile(r"^\d+(\.\d{1,2})?$")
_AVAILABILITY = frozenset(
    {
        "BackOrder",
        "Discontinued",
        "InStock",
        "InStoreOnly",
        "LimitedAvailability",
        "MadeToOrder",
        "OnlineOnly",
        "OutOfStock",
        "PreOrder",
        "PreSale",
        "Reserved",
        "SoldOut",
    }
)
_SCHEMA_ORG = ("https://schema.org/", "http://schema.org/")


def check_jsonld(page: Page) -> list[Finding]:
    findings: list[Finding] = []
    for block in page.jsonld:
        where = page.at(block.line)
        try:
            data = json.loads(block.text)
        except json.JSONDecodeError as exc:
            findings.append(error("jsonld-invalid", where, f"JSON-LD is not valid JSON: {exc}"))
            continue
        for node in _nodes(data):
            if not _has_schema_context(node, data):
                findings.append(
                    warning("jsonld-context", where, 'JSON-LD without "@context": schema.org')
                )
            types = _types(node)
            if "Product" in types:
                findings += [error("jsonld-product", where, m) for m in product_problems(node)]
                # A product without a price or a photo yet is the store's legitimate data, not a
                # fault of the site: worth knowing, never a failure.
                findings += [info("jsonld-product", where, m) for m in merchant_listing_gaps(node)]
            if "BreadcrumbList" in types:
                findings += [
                    error("jsonld-breadcrumb", where, m) for m in breadcrumb_problems(node)
                ]
    return findings


def _nodes(data: Any) -> Iterator[dict[str, Any]]:
    items = data if isinstance(data, list) else [data]
    for item in items:
        if not isinstance(item, dict):
            continue
        graph = item.get("@graph")
        if isinstance(graph, list):
            yield from (node for node in graph if isinstance(node, dict))
        yield item


def _has_schema_context(node: dict[str, Any], data: Any) -> bool:
    context = node.get("@context")
    if context is None and isinstance(data, dict):
        context = data.get("@context")
    return isinstance(context, str) and context.rstrip("/").endswith("schema.org")


def _types(node: dict[str, Any]) -> set[str]:
    value = node.get("@type")
    values = value if isinstance(value, list) else [value]
    return {v for v in values if isinstance(v, str)}


def product_problems(node: dict[str, Any]) -> list[str]:
    """Why a Product node fails Google's merchant-listing requirements (empty: it passes)."""
    name = node.get("name")
    problems = []
    if not isinstance(name, str) or not name.strip():
        problems.append("Product has no name")
    label = f"Product {name!r}" if isinstance(name, str) else "Product"
    offers = node.get("offers")
    if offers is None:
        return problems
    for offer in offers if isinstance(offers, list) else [offers]:
        problems += [f"{label}: {p}" for p in offer_problems(offer)]
    return problems


def merchant_listing_gaps(node: dict[str, Any]) -> list[str]:
    """What keeps a valid Product out of merchant listings: no offers (no price yet) or no
    image. The product snippet stays valid, so these are warnings, not errors: a store may
    sell a product without a photo, and dropping its Product data would lose the snippet."""
    label = f"Product {node.get('name')!r}"
    gaps = []
    if "offers" not in node:
        gaps.append(f"{label} has no offers: not eligible for merchant listings")
    if not _has_image(node.get("image")):
        gaps.append(f"{label} has no image: not eligible for merchant listings")
    return gaps


def _has_image(image: Any) -> bool:
    if isinstance(image, str):
        return bool(image.strip())
    if isinstance(image, list):
        return any(_has_image(i) for i in image)
    if isinstance(image, dict):
        return _has_image(image.get("url") or image.get("contentUrl"))
    return False


def offer_problems(offer: Any) -> list[str]:
    if not isinstance(offer, dict):
        return ["offers is not an object"]
    kind = _types(offer)
    price_field = "lowPrice" if "AggregateOffer" in kind else "price"
    problems = []
    if not kind & {"Offer", "AggregateOffer"}:
        problems.append('offer has no "@type": "Offer"')
    price = offer.get(price_field)
    if price is None and isinstance(offer.get("priceSpecification"), dict):
        price = offer["priceSpecification"].get("price")
    problems += price_problems(price_field, price)
    currency = offer.get("priceCurrency")
    if currency != "VND":
        problems.append(f"priceCurrency is {currency!r}, not 'VND'")
    availability = offer.get("availability")
    if not isinstance(availability, str):
        problems.append("offer has no availability")
    elif _availability_name(availability) not in _AVAILABILITY:
        problems.append(f"availability {availability!r} is not a schema.org ItemAvailability")
    return problems


def price_problems(field: str, price: Any) -> list[str]:
    """A price must be a JSON number, or a string of digits with at most two decimals, over 0."""
    if price is None:
        return [f"offer has no {field}"]
    if isinstance(price, bool) or not isinstance(price, int | float | str):
        return [f"{field} {price!r} is not a number"]
    if isinstance(price, str):
        if not _PLAIN_PRICE.match(price.strip()):
            return [f"{field} {price!r} is not a plain number (write 120000, not '120.000 ₫')"]
        price = float(price)
    if price <= 0:
        return [f"{field} is {price!r}; a listed price must be greater than 0"]
    return []


def _availability_name(value: str) -> str:
    for prefix in _SCHEMA_ORG:
        if value.startswith(prefix):
            return value[len(prefix) :]
    return value


def breadcrumb_problems(node: dict[str, Any]) -> list[str]:
    items = node.get("itemListElement")
    if not isinstance(items, list) or not items:
        return ["BreadcrumbList has no itemListElement"]
    problems: list[str] = []
    positions = [i.get("position") if isinstance(i, dict) else None for i in items]
    if positions != list(range(1, len(items) + 1)):
        problems.append(f"BreadcrumbList positions are {positions}, expected 1..{len(items)}")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(f"crumb {index + 1} is not a ListItem object")
            continue
        target = item.get("item")
        target_url = target.get("@id") if isinstance(target, dict) else target
        name = item.get("name") or (target.get("name") if isinstance(target, dict) else None)
        if not isinstance(name, str) or not name.strip():
            problems.append(f"crumb {index + 1} has no name")
        is_last = index == len(items) - 1
        if target_url is None and not is_last:
            problems.append(f"crumb {index + 1} ({name!r}) has no item url")
        elif target_url is not None and (
            not isinstance(target_url, str) or origin_of(target_url) is None
        ):
            problems.append(f"crumb {index + 1} item {target_url!r} is not an absolute url")
    return problems
