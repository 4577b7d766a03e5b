"""The companion, in-process, on the demo store: what a build uses when no API url is given."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fastapi import FastAPI

from companion.embedding import DEMO_KEY, CompanionSettings, demo_companion

# The embedded companion serves one build in this process: its rate limit must not pace it.
_NO_LIMIT = 10_000_000


@contextmanager
def embedded_companion(*, products: int) -> Iterator[tuple[FastAPI, str]]:
    """A fresh demo store in a throw-away SQLite file, and its publishable key.

    Seeded anew each time, at the demo's fixed date and on a clock stopped there
    (``demo_companion``): every build gets the same answers.
    """
    with tempfile.TemporaryDirectory(prefix="storefront-demo-") as folder:
        settings = CompanionSettings(
            database=str(Path(folder) / "demo.sqlite3"),
            rate_per_minute=_NO_LIMIT,
            rate_per_hour=_NO_LIMIT,
        )
        app = demo_companion(settings, products=products)
        engine = app.state.services.engine
        try:
            yield app, DEMO_KEY
        finally:
            engine.dispose()
