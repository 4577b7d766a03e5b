"""Serving the companion over HTTP with uvicorn: one worker process, or several.

One worker (the SQLite default) runs the app built here. Several workers (``--workers N``) are
separate processes started by uvicorn, each building its own app from the settings this process
puts in the environment (``app_from_env``); everything they must agree on (rate-limit counts,
login throttling, idempotency keys, stock, the webhook queue) lives in the shared database.
Migrations run once, here, before any worker starts. The workers also hand each other the
catalogue answers they read, through a directory this process makes for them and removes when
it stops (``companion.answer_cache.shared``).

Beside the server, one background thread (in this process, whatever the number of workers)
delivers due content-change webhooks every few seconds; each delivery is leased in the database
before it is sent, so even a second sender would never send the same attempt twice.

Stopping (Ctrl-C, SIGTERM): workers stop accepting connections, finish the requests in flight
(at most ``GRACEFUL_SECONDS``), then close their database pools.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from sqlalchemy import Engine
from starlette.types import ASGIApp

from companion.answer_cache.shared import DIRECTORY_VARIABLE, SharedAnswers
from companion.app import create_app
from companion.chain_bypass import ChainBypass
from companion.clock import Clock, SystemClock
from companion.db.engine import make_engine
from companion.logging_http import ACCESS_LOGGER
from companion.session_mount import with_session
from companion.settings import CompanionSettings
from companion.webhooks.worker import deliver_due
from session_service.worker_heap import freeze_start_up

#: Seconds between two rounds of webhook delivery.
WEBHOOK_INTERVAL = 5.0
#: Seconds a stopping worker waits for requests in flight before closing them.
GRACEFUL_SECONDS = 30
#: Seconds an idle keep-alive connection stays open: longer than a proxy's (nginx: 60 s), so the
#: proxy, not the worker, closes it and never sends on a connection being closed.
KEEP_ALIVE_SECONDS = 65
#: Environment variable carrying the settings to worker processes (JSON).
SETTINGS_VARIABLE = "STOREFRONT_API_SETTINGS"


class ServeError(Exception):
    """The server could not start (address in use, permission denied): one line for the user."""


def settings_to_env(settings: CompanionSettings) -> str:
    return json.dumps(dataclasses.asdict(settings))


def settings_from_env(environ: Mapping[str, str]) -> CompanionSettings:
    raw = environ.get(SETTINGS_VARIABLE)
    if not raw:
        raise ServeError(f"{SETTINGS_VARIABLE} is not set: start workers with `storefront api`")
    fields = {f.name for f in dataclasses.fields(CompanionSettings)}
    values = json.loads(raw)
    # JSON has no tuples: the origin lists come back as lists.
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    return CompanionSettings(**{k: v for k, v in values.items() if k in fields})


def app_from_env() -> ASGIApp:
    """The app of one worker process (uvicorn's factory when serving with several workers)."""
    settings = settings_from_env(os.environ)
    directory = os.environ.get(DIRECTORY_VARIABLE)
    shared = SharedAnswers(Path(directory)) if directory else None
    served = served_app(create_app(settings, shared_answers=shared), settings)
    freeze_start_up()
    return served


def served_app(api: ASGIApp, settings: CompanionSettings) -> ASGIApp:
    """What a worker serves: the API with the session endpoints beside it, the chain bypass
    in front of both."""
    return ChainBypass(with_session(api, settings), enabled=settings.chain_bypass)


def log_config() -> dict[str, Any]:
    """uvicorn's own messages as usual; request lines (JSON, one per request) on stderr."""
    config: dict[str, Any] = json.loads(json.dumps(uvicorn.config.LOGGING_CONFIG))
    config["formatters"]["request"] = {"format": "%(message)s"}
    config["handlers"]["request"] = {
        "class": "logging.StreamHandler",
        "formatter": "request",
        "stream": "ext://sys.stderr",
    }
    config["loggers"][ACCESS_LOGGER] = {
        "handlers": ["request"],
        "level": "INFO",
        "propagate": False,
    }
    return config


#: The HTTP protocol of the companion's workers (``companion.header_deadline``).
PROTOCOL = "companion.header_deadline:HeaderDeadlineProtocol"


def uvicorn_options(host: str, port: int) -> dict[str, Any]:
    """How uvicorn serves the companion; the load test serves its bare baseline the same way."""
    return {
        "host": host,
        "port": port,
        "log_level": "info",
        "log_config": log_config(),
        "access_log": False,  # the request log (companion.logging_http) replaces it
        "server_header": False,
        # A deadline on each request's head. Named, not given as the class: a
        # worker imports it after it starts answering uvicorn's health check, which kills a
        # worker that does not answer in 5 s (importing the companion can take longer).
        "http": PROTOCOL,
        "timeout_graceful_shutdown": GRACEFUL_SECONDS,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
    }


def serve(settings: CompanionSettings, *, host: str, port: int, workers: int = 1) -> None:
    """Run until interrupted. One worker builds the app first, so database errors surface
    before binding; several workers get the settings through the environment."""
    options = uvicorn_options(host, port)
    if workers <= 1:
        app = create_app(settings)
        services = app.state.services
        with delivering_webhooks(services.engine, services.clock), _bind_errors(host, port):
            served = served_app(app, settings)
            freeze_start_up()
            uvicorn.Server(uvicorn.Config(served, **options)).run()
        return
    # The workers share the database; this process migrated it already.
    shared = dataclasses.replace(settings, workers=workers, migrate=False)
    os.environ[SETTINGS_VARIABLE] = settings_to_env(shared)
    answers = tempfile.mkdtemp(prefix="storefront-answers-")
    os.environ[DIRECTORY_VARIABLE] = answers
    engine = make_engine(settings.database, pool_size=1, max_overflow=1)
    try:
        with delivering_webhooks(engine, SystemClock()), _bind_errors(host, port):
            uvicorn.run("companion.server:app_from_env", factory=True, workers=workers, **options)
    finally:
        engine.dispose()
        os.environ.pop(DIRECTORY_VARIABLE, None)
        shutil.rmtree(answers, ignore_errors=True)


def check_host(host: str, port: int) -> None:
    """A host that does not resolve is said as such (uvicorn's exit would read as a port in
    use), before anything starts."""
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ServeError(f"cannot listen on {host}:{port} ({exc.strerror})") from None


@contextmanager
def _bind_errors(host: str, port: int) -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt:  # Ctrl-C after a graceful shutdown: a normal way to stop
        return
    except SystemExit as exc:  # uvicorn exits when it cannot bind the socket
        if exc.code:
            raise ServeError(f"cannot listen on {host}:{port} (in use, or not allowed)") from None


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
