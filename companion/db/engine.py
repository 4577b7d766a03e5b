"""Engine construction: SQLite (WAL, foreign keys, write transactions that begin as writes) by
default, PostgreSQL by URL.

Every worker process builds its own engine, so pool sizes are per worker: N workers hold at most
``N * (POOL_SIZE + POOL_OVERFLOW)`` PostgreSQL connections (40 for two workers, well inside the
server's default ``max_connections`` of 100; see docs/deployment.md).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import NoSuchModuleError, SQLAlchemyError
from sqlalchemy.pool import NullPool, QueuePool

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
        try:
            return create_engine(
                url,
                pool_pre_ping=True,  # a server restart or an idle timeout must not fail a request
                future=True,
                **sizes,
                **pool,
            )
        except ModuleNotFoundError as exc:  # the driver is the optional postgres extra
            raise NoSuchModuleError(
                f"no driver for {url.get_backend_name()} ({exc.name} is not installed): "
                "pip install 'storefront[postgres]'"
            ) from None
    engine = create_engine(
        url, connect_args={"check_same_thread": False, "timeout": 30}, future=True, **pool
    )
    event.listen(engine, "connect", _sqlite_pragmas)
    # The driver begins a transaction just before a connection's first write statement (reads
    # before it run outside any transaction), so such a transaction begins as a write. Only a
    # savepoint can begin one before any write:
    event.listen(engine, "savepoint", _begin_before_savepoint)
    return engine


def open_pool(engine: Engine) -> int:
    """Open the pool's connections at once and return them to it; how many it opened.

    A PostgreSQL connection takes a few ms to make: a worker that just started would otherwise
    make one for each of its first requests at once, in its busiest second. Nothing on SQLite;
    it stops at the first connection that fails (the database not up yet: the requests make
    them later, and /health/ready says why)."""
    pool = engine.pool
    if engine.dialect.name == "sqlite" or not isinstance(pool, QueuePool):
        return 0
    opened: list[Connection] = []
    try:
        for _ in range(pool.size()):
            opened.append(engine.connect())
    except SQLAlchemyError:
        pass
    finally:
        for conn in opened:
            conn.close()
    return len(opened)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()


def _begin_before_savepoint(conn: Connection, _name: str | None) -> None:
    """Begin a write transaction before a savepoint that no transaction encloses yet.

    SQLite begins such a savepoint's transaction as a read (BEGIN DEFERRED). If the block reads
    and then writes while another connection has written meanwhile, its write cannot wait for
    the lock: it fails at once with "database is locked", whatever the busy timeout. A block in
    a savepoint is one that means to write (the IPN, placing an order), so it waits for the
    write lock up front instead, as long as the busy timeout allows."""
    dbapi_conn = cast(sqlite3.Connection, conn.connection.dbapi_connection)
    if not dbapi_conn.in_transaction:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
