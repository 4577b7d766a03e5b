"""The companion's one fast path: a plain route, its connection and its customer check in a
single worker-thread call (``OneHopRoute``, the route class of the API's routers).

What it skips, and why: FastAPI runs every plain (not async) dependency of a route, and the
route, in a worker thread of its own. A cart write would open its transaction (``deps.get_db``)
in one, check the customer's token (``routes.customer_auth``, which reads the database) in a
second, run in a third and end the transaction in a fourth; under load each hand-over is a
wake-up of a thread and a pass of the GIL, paid on every write and every read the answer cache
does not hold. ``OneHopRoute`` gives FastAPI, for a plain route taking one ``Db`` or ``ReadDb``,
an async route that makes one thread call for the connection, the customer (a ``CustomerId`` or
``OptionalCustomerId`` parameter, checked with the route's own connection) and the route. The
parameters FastAPI sees are otherwise the route's own, the customer's bearer credentials in
place of the customer's id, so validation and the OpenAPI document do not change. It uses only
FastAPI's documented extension point (a custom ``APIRoute`` class) and the endpoint's signature.

One difference: a request whose parameters or body are invalid gets its 422 without its
customer token being checked first, and without opening a connection.

Kept while ``make loadtest`` shows it paying for itself (CONTRIBUTING.md): the mix's CPU per
request with and without it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

import anyio.to_thread
from fastapi.routing import APIRoute
from starlette.requests import Request

from companion.customers.auth import required
from companion.deps import Db, ReadDb, read_connection, services_of
from companion.routes.customer_auth import (
    Credentials,
    CustomerId,
    OptionalCustomerId,
    customer_of_request,
)

REQUEST = "one_hop_request"
CREDENTIALS = "one_hop_credentials"


class OneHopRoute(APIRoute):
    """An ``APIRoute`` whose plain endpoint taking a connection runs in one thread call."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, in_one_hop(endpoint), **kwargs)


def in_one_hop(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` itself when it is async or takes no single ``Db`` or ``ReadDb``; else its
    one-hop form."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint
    hints = get_type_hints(endpoint, include_extras=True)
    signature = inspect.signature(endpoint)
    dbs = [name for name in signature.parameters if hints.get(name) in (Db, ReadDb)]
    customers = [
        name for name in signature.parameters if hints.get(name) in (CustomerId, OptionalCustomerId)
    ]
    if len(dbs) != 1 or len(customers) > 1:
        return endpoint
    db = dbs[0]
    writes = hints[db] == Db
    customer = customers[0] if customers else None
    if customer is not None and not writes:
        return endpoint
    needs_customer = customer is not None and hints[customer] == CustomerId
    # Keyword-only, with resolved annotations: FastAPI calls routes with keywords.
    parameters = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name not in (db, customer)
    ]
    # FastAPI hands the request to one parameter only: the route's own, if it has one.
    own = [p.name for p in parameters if p.annotation is Request]
    request_name = own[0] if own else REQUEST
    if not own:
        parameters.append(
            inspect.Parameter(REQUEST, inspect.Parameter.KEYWORD_ONLY, annotation=Request)
        )
    if customer is not None:
        parameters.append(
            inspect.Parameter(CREDENTIALS, inspect.Parameter.KEYWORD_ONLY, annotation=Credentials)
        )

    @functools.wraps(endpoint)
    async def route(**values: Any) -> Any:
        request: Request = values[request_name] if own else values.pop(REQUEST)
        credentials = values.pop(CREDENTIALS, None)

        def in_thread() -> Any:
            if not writes:
                with read_connection(request) as conn:
                    return endpoint(**values, **{db: conn})
            with services_of(request).engine.begin() as conn:
                if customer is not None:
                    found = customer_of_request(credentials, conn, request)
                    values[customer] = required(found) if needs_customer else found
                return endpoint(**values, **{db: conn})

        return await anyio.to_thread.run_sync(in_thread)

    returns = hints.get("return", signature.return_annotation)
    if returns is type(None):  # as written (``-> None``): no response model, as for a 204
        returns = None
    route.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=parameters, return_annotation=returns
    )
    return route
