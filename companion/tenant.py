"""The store a request is for: below the middlewares that read it and the routes' dependencies."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Tenant:
    """The store a request is for, set on ``request.state.tenant`` by the tenancy middleware."""

    store_id: int
    key_id: int | None  # None: unkeyed request, store chosen by the Host header
