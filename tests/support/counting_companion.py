"""The demo store's companion under uvicorn on a free loopback port, counting what it answers.

Builds run against it as separate processes, so that they can be killed: what a killed build
sent is known only to the server. The count comes from the companion's own request log (one
line per request it answered, ``companion.logging_http``), read through a handler on its
logger for as long as the server runs. The store is the demo's, seeded at its fixed instant on
a stopped clock (``demo_companion``): every build of it gets the same answers. Its rate limits
are lifted, as the embedded companion's are: the builds are paced by nothing but the server.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from companion.logging_http import ACCESS_LOGGER
from companion.seed.demo import DEMO_KEY
from companion.seed.demo_app import demo_companion
from companion.settings import CompanionSettings
from tests.support.loopback import loopback_socket, serving_on

__all__ = ["DEMO_KEY", "CountingCompanion", "counting_companion"]

_NO_LIMIT = 10_000_000
_API_PREFIX = "/public/v1"


class CountingCompanion(logging.Handler):
    """The running companion: its base url, and every API request it has answered."""

    def __init__(self, base_url: str) -> None:
        super().__init__(level=logging.INFO)
        self.base_url = base_url
        self._lock = threading.Lock()
        self.answered: list[tuple[str, int]] = []  # (path, status), in the order logged
        self._trigger: tuple[int, Callable[[], None]] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        line = json.loads(record.getMessage())
        if not str(line.get("path", "")).startswith(_API_PREFIX):
            return  # not an API request (the session service's own lines share this log)
        with self._lock:
            self.answered.append((str(line["path"]).removeprefix(_API_PREFIX), int(line["status"])))
            trigger = self._trigger
            if trigger is not None and len(self.answered) >= trigger[0]:
                self._trigger = None
                trigger[1]()

    @property
    def requests(self) -> int:
        with self._lock:
            return len(self.answered)

    def when_answered(self, count: int, action: Callable[[], None]) -> None:
        """Run ``action`` (once, on the server's thread) as soon as ``count`` requests in all
        have been answered; replaces an earlier one not yet run."""
        with self._lock:
            if len(self.answered) >= count:
                self._trigger = None
                action()
            else:
                self._trigger = (count, action)

    def cancel(self) -> None:
        with self._lock:
            self._trigger = None


@contextmanager
def counting_companion(folder: Path, *, products: int) -> Iterator[CountingCompanion]:
    """The demo store of ``products`` products in a SQLite file under ``folder``, served on
    loopback for the length of the block."""
    settings = CompanionSettings(
        database=str(folder / "store.sqlite3"),
        rate_per_minute=_NO_LIMIT,
        rate_per_hour=_NO_LIMIT,
    )
    app = demo_companion(settings, products=products)
    sock, origin = loopback_socket()
    counting = CountingCompanion(f"{origin}{_API_PREFIX}")
    logger = logging.getLogger(ACCESS_LOGGER)
    level, propagate = logger.level, logger.propagate
    logger.addHandler(counting)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        with serving_on(sock, app, what="the companion", timeout=30):
            yield counting
    finally:
        logger.removeHandler(counting)
        logger.setLevel(level)
        logger.propagate = propagate
        app.state.services.engine.dispose()
