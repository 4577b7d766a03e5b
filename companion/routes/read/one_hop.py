"""Read routes in one worker-thread hop: the connection is opened and closed in the same thread
call as the route.

FastAPI runs a plain generator dependency's start in a worker thread, the route in another hand
over, and the dependency's end in a third; under load each hand-over is a wake-up of a thread
and a pass of the GIL, a noticeable share of a catalogue read's CPU. ``in_one_thread`` turns a
plain route taking ``db: ReadDb`` into one that takes the request instead and opens that
connection (``deps.read_connection``) itself, in the single thread call FastAPI makes for it.
The parameters FastAPI sees are otherwise the route's own, so validation and the OpenAPI
document do not change.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from starlette.requests import Request

from companion.deps import ReadDb, read_connection

REQUEST = "one_hop_request"


def in_one_thread(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` itself when it is async or takes no ``ReadDb``; else its one-hop form."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint
    hints = get_type_hints(endpoint, include_extras=True)
    signature = inspect.signature(endpoint)
    names = [name for name in signature.parameters if hints.get(name) == ReadDb]
    if len(names) != 1:
        return endpoint
    db = names[0]
    # Keyword-only, with resolved annotations: FastAPI calls routes with keywords.
    parameters = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name != db
    ]
    parameters.append(
        inspect.Parameter(REQUEST, inspect.Parameter.KEYWORD_ONLY, annotation=Request)
    )

    @functools.wraps(endpoint)
    def route(**values: Any) -> Any:
        with read_connection(values.pop(REQUEST)) as conn:
            return endpoint(**values, **{db: conn})

    route.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=parameters, return_annotation=hints.get("return", signature.return_annotation)
    )
    return route
