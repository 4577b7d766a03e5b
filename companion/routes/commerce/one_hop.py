"""Write routes in one worker-thread hop: the transaction, the customer's token check and the
route in a single thread call.

FastAPI runs each plain dependency of a route in a worker thread of its own: a plain cart
write would open its transaction (``deps.get_db``) in one, check the customer's token (which
reads the database, ``customers.auth``) in a second, run in a third, end the transaction in a
fourth and validate its answer against the response model in a fifth. Under load each
hand-over is a wake-up of a thread and a pass of the GIL. ``in_one_hop`` turns a plain route taking
``db: Db`` into an async one that makes one thread call for the transaction, the customer (for
a ``CustomerId`` or ``OptionalCustomerId`` parameter, with the route's own connection) and the
route; its answer is then validated on the event loop. The parameters FastAPI sees are
otherwise the route's own, the customer's bearer credentials in place of the customer's id,
so validation and the OpenAPI document do not change.

One difference: a request whose parameters or body are invalid gets its 422 without its
customer token being checked first, and without opening a transaction.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

import anyio.to_thread
from starlette.requests import Request

from companion.customers.auth import (
    Credentials,
    CustomerId,
    OptionalCustomerId,
    customer_of,
    required,
)
from companion.deps import Db, services_of

REQUEST = "one_hop_request"
CREDENTIALS = "one_hop_credentials"


def in_one_hop(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` itself when it is async or takes no ``Db``; else its one-hop form."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint
    hints = get_type_hints(endpoint, include_extras=True)
    signature = inspect.signature(endpoint)
    dbs = [name for name in signature.parameters if hints.get(name) == Db]
    customers = [
        name for name in signature.parameters if hints.get(name) in (CustomerId, OptionalCustomerId)
    ]
    if len(dbs) != 1 or len(customers) > 1:
        return endpoint
    db = dbs[0]
    customer = customers[0] if customers else None
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
        services = services_of(request)

        def in_thread() -> Any:
            with services.engine.begin() as conn:
                if customer is not None:
                    found = customer_of(credentials, conn, services, request.state.tenant)
                    values[customer] = required(found) if needs_customer else found
                return endpoint(**values, **{db: conn})

        return await anyio.to_thread.run_sync(in_thread)

    route.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=parameters, return_annotation=hints.get("return", signature.return_annotation)
    )
    return route
