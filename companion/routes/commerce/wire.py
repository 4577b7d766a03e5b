"""Request parameters and wire conversions shared by the commerce routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

CartTokenQuery = Annotated[
    str | None, Query(max_length=100, description="The cart token (service_cart cookie)")
]
RequiredCartToken = Annotated[
    str, Query(min_length=1, max_length=100, description="The cart token (service_cart cookie)")
]


def money(amount: int) -> str:
    """Quote and order money travels as a decimal string (spec, Conventions on values)."""
    return str(amount)
