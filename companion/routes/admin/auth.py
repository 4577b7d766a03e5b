"""Who may call the admin API: a secret key of the store (``Authorization: Bearer sk_live_...``)
holding the permission the route names.

A publishable key, a customer token or nothing is a 401 (``secret_key_required``); an unknown
or revoked secret key a 401 (``invalid_key``); a secret key without the route's permission a
403 (``permission_denied``). Each refusal is written to the request log with its reason. The
key is looked up on every call: a revocation holds from the next request, in every worker.

Each call of a known key spends a unit of that key's rate limit (the public API's policy, shared
by every worker, as a publishable key's): past it a 429 (``rate_limited``, with Retry-After), so a
merchant's script in a loop cannot take the database from the shoppers. Every answer carries the
key's RateLimit headers.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from fastapi import Request, Response
from sqlalchemy import Engine, select

from companion.db.schema import api_keys
from companion.deps import services_of
from companion.keys.material import SECRET_PREFIX, hash_key
from companion.logging_http import note_refusal
from companion.problems import Problem, forbidden
from companion.ratelimit.middleware import key_bucket, rate_limit_headers, refused_problem

MAX_KEY_LENGTH = 200


@dataclass(frozen=True, slots=True)
class AdminKey:
    key_id: int
    store_id: int
    permissions: frozenset[str]


def _unauthorized(code: str, detail: str) -> Problem:
    return Problem(401, code, "Unauthorized", detail, headers={"WWW-Authenticate": "Bearer"})


def _secret_key_of(request: Request) -> str:
    bearer = request.headers.get("authorization", "").strip()
    scheme, _, token = bearer.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token.startswith(SECRET_PREFIX):
        kind = (
            "a publishable key"
            if request.headers.get("x-service-key") or token.startswith("pk_")
            else "a customer token"
            if token
            else "no key"
        )
        note_refusal(request.scope, f"admin API: {kind}")
        raise _unauthorized(
            "secret_key_required",
            "the admin API takes a secret key of the store: Authorization: Bearer sk_live_...",
        )
    if len(token) > MAX_KEY_LENGTH:
        note_refusal(request.scope, "admin API: malformed_key")
        raise _unauthorized("invalid_key", "not a secret key of this API (unknown or revoked)")
    return token


def _lookup(engine: Engine, digest: str) -> AdminKey | str:
    """The key, or why it is refused (the request log's words)."""
    with engine.connect() as conn:
        row = conn.execute(
            select(
                api_keys.c.id,
                api_keys.c.store_id,
                api_keys.c.kind,
                api_keys.c.permissions,
                api_keys.c.revoked_at,
            ).where(api_keys.c.key_hash == digest)
        ).first()
    if row is None or row.kind != "secret":
        return "unknown_key"
    if row.revoked_at is not None:
        return "revoked_key"
    return AdminKey(row.id, row.store_id, frozenset(row.permissions or ()))


async def admin_key(request: Request, response: Response) -> AdminKey:
    """The request's secret key, a unit of its rate limit spent (its headers on ``response``)."""
    token = _secret_key_of(request)
    services = services_of(request)
    found = await anyio.to_thread.run_sync(_lookup, services.engine, hash_key(token))
    if isinstance(found, str):
        note_refusal(request.scope, f"admin API: {found}")
        raise _unauthorized("invalid_key", "not a secret key of this API (unknown or revoked)")
    bucket = key_bucket(found.key_id)
    decision = await services.limiter.hit(bucket)
    if not decision.allowed:
        note_refusal(request.scope, f"admin API: key {found.key_id} rate limited")
        raise refused_problem(decision)
    response.headers.update(rate_limit_headers(decision))
    return found


def permitted(permission: str) -> Callable[[Request, Response], Coroutine[Any, Any, AdminKey]]:
    """A dependency: the request's secret key, which must hold ``permission``."""

    async def check(request: Request, response: Response) -> AdminKey:
        key = await admin_key(request, response)
        if permission not in key.permissions:
            note_refusal(request.scope, f"admin API: key {key.key_id} lacks {permission}")
            raise forbidden("permission_denied", f"this key does not hold {permission}")
        return key

    check.__name__ = f"permitted_{permission.replace(':', '_')}"
    return check
