"""What a route handler may ask for: the app's services, a database connection, the tenant.

Everything here is built by ``create_app`` and reached through the request: no module globals.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated

from argon2 import PasswordHasher
from fastapi import Depends, Request
from sqlalchemy import Connection, Engine

from companion.answer_cache.feeds import Feed
from companion.clock import Clock
from companion.ratelimit.windows import RateLimiter
from companion.settings import CompanionSettings
from companion.tenant import Tenant


@dataclass(frozen=True, slots=True)
class Services:
    """Built once per app by ``create_app`` and kept on ``app.state.services``."""

    settings: CompanionSettings
    engine: Engine
    clock: Clock
    limiter: RateLimiter
    #: How this worker learns of other processes' changes (the answer cache and key check poll it).
    feed: Feed


async def get_services(request: Request) -> Services:
    # async, like get_tenant: FastAPI runs plain functions in a worker thread, a wasted hop here.
    return services_of(request)


def services_of(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def get_db(request: Request) -> Iterator[Connection]:
    """One transaction per request: committed when the handler returns, rolled back on error."""
    with services_of(request).engine.begin() as conn:
        yield conn


def get_read_db(request: Request) -> Iterator[Connection]:
    """A connection for routes that only read: on PostgreSQL in autocommit, so no BEGIN and no
    COMMIT round trip around the reads. The same guarantee as a transaction there: at READ
    COMMITTED every statement sees its own snapshot either way. (SQLite's driver opens no
    transaction for reads in the first place.)"""
    with read_connection(request) as conn:
        yield conn


@contextmanager
def read_connection(request: Request) -> Iterator[Connection]:
    with services_of(request).engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn.execution_options(isolation_level="AUTOCOMMIT")
        yield conn


async def get_tenant(request: Request) -> Tenant:
    tenant: Tenant = request.state.tenant
    return tenant


ServicesDep = Annotated[Services, Depends(get_services)]
# "function": committed before the answer is sent, so the next request reads the write.
Db = Annotated[Connection, Depends(get_db, scope="function")]
# Only for routes that never write (companion.routes.read): see get_read_db.
ReadDb = Annotated[Connection, Depends(get_read_db, scope="function")]
CurrentTenant = Annotated[Tenant, Depends(get_tenant)]


def password_hasher_of(request: Request) -> PasswordHasher:
    """The app's hasher (a test sets a cheap one on ``app.state``), else argon2's defaults."""
    hasher: PasswordHasher | None = getattr(request.app.state, "password_hasher", None)
    return hasher if hasher is not None else PasswordHasher()


Hasher = Annotated[PasswordHasher, Depends(password_hasher_of)]
