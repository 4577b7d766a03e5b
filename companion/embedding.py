"""The companion as the generator embeds it: the one module of the companion the generator
imports (the import contracts say so). A build's demo store, the stack `storefront serve` and
`storefront watch` run, and the request log and HTTP protocol (a deadline on each request's
head) of `storefront session` come from here, so the companion's other modules stay its own to
change.

What only one command needs (the request log, uvicorn's log set-up) is imported when asked.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.types import ASGIApp

from companion.app import create_app
from companion.clock import ManualClock
from companion.header_deadline import HeaderDeadlineProtocol
from companion.payments.ipn_sender import HttpIpnSender
from companion.seed.demo import DEMO_KEY, seed_demo
from companion.seed.demo_app import demo_companion
from companion.session_mount import in_process
from companion.settings import CompanionSettings, browsable_origin

__all__ = [
    "DEMO_KEY",
    "CompanionSettings",
    "HeaderDeadlineProtocol",
    "HttpIpnSender",
    "ManualClock",
    "browsable_origin",
    "create_app",
    "demo_companion",
    "in_process",
    "log_config",
    "request_log",
    "request_logger",
    "seed_demo",
]


def request_log(app: ASGIApp) -> ASGIApp:
    """``app`` behind the companion's request log (one JSON line a request)."""
    from companion.logging_http import RequestLogMiddleware

    return RequestLogMiddleware(app)


def request_logger() -> logging.Logger:
    """The request log's logger, for a service's own lines (the session's activity counts)."""
    from companion.logging_http import ACCESS_LOGGER

    return logging.getLogger(ACCESS_LOGGER)


def log_config() -> dict[str, Any]:
    """uvicorn's logging set-up, as the companion's server uses it."""
    from companion.server import log_config as config

    return config()
