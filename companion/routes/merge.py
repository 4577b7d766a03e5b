"""Adding the routes of one router to another as its own, in place of ``include_router``.

FastAPI keeps an included router as a nested router and, on every request, matches the path
level by level through every included router in turn (then once more to dispatch). With this
app's two hundred routes in three levels that cost about a millisecond of CPU per request.
Routes added with ``add_routes`` sit in one flat list, matched in one pass; the OpenAPI document
is the same as with ``include_router`` (tests/companion/test_app.py compares them).

``built_routes`` makes those copies once per process: FastAPI analyses each route's signature
and models when it is added (about a millisecond a route, three hundred of them), and the routes
of every app made from the same routers are the same (they read the app from the request).

Only ``APIRoute``s are copied (the routers of this package hold nothing else). The target merges
its own dependencies, responses and tags into each route, as ``add_api_route`` always does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fastapi import APIRouter
from fastapi.routing import APIRoute


def add_routes(
    target: APIRouter,
    source: APIRouter,
    *,
    prefix: str = "",
    tags: Sequence[str] = (),
    include_in_schema: bool = True,
    endpoint_of: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda endpoint: endpoint,
) -> None:
    """Add every route of ``source`` to ``target`` under ``prefix``, with ``tags`` first;
    ``endpoint_of`` may stand a route's function in for it (``routes.read.one_hop``)."""
    for route in source.routes:
        if not isinstance(route, APIRoute):
            raise TypeError(f"only API routes can be added, not {route!r}")
        target.add_api_route(
            prefix + route.path,
            endpoint_of(route.endpoint),
            response_model=route.response_model,
            status_code=route.status_code,
            tags=[*tags, *route.tags],
            dependencies=route.dependencies,
            summary=route.summary,
            description=route.description,
            response_description=route.response_description,
            responses=route.responses,
            deprecated=route.deprecated,
            methods=route.methods,
            operation_id=route.operation_id,
            response_model_include=route.response_model_include,
            response_model_exclude=route.response_model_exclude,
            response_model_by_alias=route.response_model_by_alias,
            response_model_exclude_unset=route.response_model_exclude_unset,
            response_model_exclude_defaults=route.response_model_exclude_defaults,
            response_model_exclude_none=route.response_model_exclude_none,
            include_in_schema=route.include_in_schema and include_in_schema,
            response_class=route.response_class,
            name=route.name,
            callbacks=route.callbacks,
            openapi_extra=route.openapi_extra,
            generate_unique_id_function=route.generate_unique_id_function,
        )


# (id of the source router, prefix, include_in_schema) -> (the router, kept alive; its routes)
_built: dict[tuple[int, str, bool], tuple[APIRouter, tuple[APIRoute, ...]]] = {}


def built_routes(
    source: APIRouter, *, prefix: str = "", include_in_schema: bool = True
) -> tuple[APIRoute, ...]:
    """The routes ``add_routes`` adds for ``source`` under ``prefix``, built once per process.

    They are made on a router of their own, so they use no app's ``dependency_overrides``
    (this package sets none)."""
    key = (id(source), prefix, include_in_schema)  # routers compare by value: not hashable
    if key not in _built:
        holder = APIRouter()
        add_routes(holder, source, prefix=prefix, include_in_schema=include_in_schema)
        routes = tuple(route for route in holder.routes if isinstance(route, APIRoute))
        _built[key] = (source, routes)
    return _built[key][1]
