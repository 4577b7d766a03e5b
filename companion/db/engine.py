"""Engine construction: SQLite (WAL, foreign keys) by default, PostgreSQL by URL.

Every worker process builds its own engine, so pool sizes are per worker: N workers hold at most
``N * (POOL_SIZE + POOL_OVERFLOW)`` PostgreSQL connections (40 for two workers, well inside the
server's default ``max_connections`` of 100; see docs/deployment.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

#: Connections a worker keeps open: about one per request thread that is busy at once.
POOL_SIZE = 10
#: Extra connections a worker may open in a burst (closed again when returned).
POOL_OVERFLOW = 10
#: Seconds a request waits for a free connection before failing.
POOL_TIMEOUT = 30

#: URL schemes that name PostgreSQL without a driver; psycopg 3 is the driver we ship with.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def database_url(path_or_url: str) -> str:
    """Turn a plain file path into a SQLite URL; give driverless PostgreSQL URLs psycopg."""
    for scheme in POSTGRES_SCHEMES:
        if path_or_url.startswith(scheme):
            return "postgresql+psycopg://" + path_or_url[len(scheme) :]
    if "://" in path_or_url:
        return path_or_url
    return f"sqlite:///{Path(path_or_url).expanduser().resolve()}"


def make_engine(
    path_or_url: str,
    *,
    pool_size: int = POOL_SIZE,
    max_overflow: int = POOL_OVERFLOW,
    pooled: bool = True,
) -> Engine:
    """An engine on a SQLite file or a database URL.

    ``pooled=False`` closes every connection as soon as it is returned: right for one-shot
    commands, which then leave nothing open whether or not they dispose of the engine.
    """
    url = make_url(database_url(path_or_url))
    pool: dict[str, Any] = {} if pooled else {"poolclass": NullPool}
    if url.get_backend_name() != "sqlite":
        sizes = (
            {"pool_size": pool_size, "max_overflow": max_overflow, "pool_timeout": POOL_TIMEOUT}
            if pooled
            else {}
        )
        return create_engine(
            url,
            pool_pre_ping=True,  # a server restart or an idle timeout must not fail a request
            future=True,
            **sizes,
            **pool,
        )
    engine = create_engine(
        url, connect_args={"check_same_thread": False, "timeout": 30}, future=True, **pool
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    return engine
