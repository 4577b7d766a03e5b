"""`storefront serve`'s own stack under uvicorn, in a thread, on a free loopback port.

The same ``embedded_stack`` the command runs: the demo output, the companion on a fresh SQLite
file seeded with the demo store, and the session endpoints, all on one origin.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from generator.serve.stack import serving_stack

#: The demo build of tests/support/demo_build.py has this many products; the served database
#: must be seeded the same way so the pages' product ids exist.
DEMO_PRODUCTS = 300


@contextmanager
def live_server(
    out: Path, database: Path, *, rate_per_minute: int | None = None, now: datetime | None = None
) -> Iterator[str]:
    """The origin (``http://127.0.0.1:<port>``) serving ``out`` with the embedded companion
    (``now``: its seed instant and stopped clock, see ``embedded_stack``)."""
    with serving_stack(
        out, database, seed_products=DEMO_PRODUCTS, rate_per_minute=rate_per_minute, now=now
    ) as origin:
        yield origin
