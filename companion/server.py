"""Serving the companion over HTTP with uvicorn (one worker: the rate limiter is in-process)."""

from __future__ import annotations

import uvicorn

from companion.app import create_app
from companion.settings import CompanionSettings


class ServeError(Exception):
    """The server could not start (address in use, permission denied): one line for the user."""


def serve(settings: CompanionSettings, *, host: str, port: int) -> None:
    """Run until interrupted. Builds the app first, so database errors surface before binding."""
    app = create_app(settings)
    config = uvicorn.Config(app, host=host, port=port, log_level="info", server_header=False)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:  # Ctrl-C after a graceful shutdown: a normal way to stop
        return
    except SystemExit as exc:  # uvicorn exits when it cannot bind the socket
        if exc.code:
            raise ServeError(f"cannot listen on {host}:{port} (in use, or not allowed)") from None
