"""Serving the companion over HTTP with uvicorn (one worker: the rate limiter is in-process).

Beside the server, a background thread delivers due content-change webhooks every few seconds,
so subscribers (a CI job that rebuilds) hear about changes without a separate worker process.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from sqlalchemy import Engine

from companion.app import create_app
from companion.clock import Clock
from companion.settings import CompanionSettings
from companion.webhooks.worker import deliver_due

#: Seconds between two rounds of webhook delivery.
WEBHOOK_INTERVAL = 5.0


class ServeError(Exception):
    """The server could not start (address in use, permission denied): one line for the user."""


def serve(settings: CompanionSettings, *, host: str, port: int) -> None:
    """Run until interrupted. Builds the app first, so database errors surface before binding."""
    app = create_app(settings)
    services = app.state.services
    config = uvicorn.Config(app, host=host, port=port, log_level="info", server_header=False)
    with delivering_webhooks(services.engine, services.clock):
        try:
            uvicorn.Server(config).run()
        except KeyboardInterrupt:  # Ctrl-C after a graceful shutdown: a normal way to stop
            return
        except SystemExit as exc:  # uvicorn exits when it cannot bind the socket
            if exc.code:
                raise ServeError(
                    f"cannot listen on {host}:{port} (in use, or not allowed)"
                ) from None


@contextmanager
def delivering_webhooks(
    engine: Engine,
    clock: Clock,
    *,
    interval: float = WEBHOOK_INTERVAL,
    client: httpx.Client | None = None,
) -> Iterator[threading.Thread]:
    """Deliver due webhooks on a daemon thread until the block ends.

    ``client`` sends to the subscribers (tests pass one over ``httpx.MockTransport``).
    """
    stop = threading.Event()

    def loop() -> None:
        with client or httpx.Client(timeout=10.0) as sender:
            while not stop.wait(interval):
                try:
                    deliver_due(engine, sender, clock)
                except Exception as exc:  # a bad round must not end the loop; report and go on
                    print(f"webhook delivery round failed: {exc}")

    thread = threading.Thread(target=loop, name="webhook-delivery", daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        stop.set()
        thread.join(timeout=interval + 1)
