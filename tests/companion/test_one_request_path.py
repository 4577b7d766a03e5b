"""One request path: every request goes down the middleware chain, the routers are included
the framework's way, and the HTTP protocol replaces no private method of uvicorn."""

from __future__ import annotations

import importlib

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from companion.server import uvicorn_options
from tests.companion.conftest import Api

pytestmark = pytest.mark.anyio


def _protocol() -> type:
    named = uvicorn_options("127.0.0.1", 0)["http"]
    if isinstance(named, type):
        return named
    module, _, name = str(named).partition(":")
    protocol = getattr(importlib.import_module(module), name)
    assert isinstance(protocol, type)
    return protocol


def test_the_http_protocol_replaces_no_private_method_of_uvicorn() -> None:
    protocol = _protocol()
    assert issubclass(protocol, HttpToolsProtocol)
    ours = [cls for cls in protocol.__mro__ if cls.__module__.startswith("companion.")]
    replaced = {
        f"{cls.__name__}.{name}"
        for cls in ours
        for name in vars(cls)
        if name.startswith("_") and not name.startswith("__") and hasattr(HttpToolsProtocol, name)
    }
    assert replaced == set()


async def test_every_request_enters_the_app_as_fastapi_serves_it(api: Api) -> None:
    assert type(api.app).__call__ is FastAPI.__call__


async def test_the_routers_are_included_not_copied(api: Api) -> None:
    copied = [route.path for route in api.app.router.routes if isinstance(route, APIRoute)]
    assert copied == []
    assert (await api.get("/store")).status_code == 200
