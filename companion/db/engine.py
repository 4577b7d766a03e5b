"""Engine construction: SQLite (WAL, foreign keys) by default, PostgreSQL by URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url


def database_url(path_or_url: str) -> str:
    """Turn a plain file path into a SQLite URL; pass URLs through."""
    if "://" in path_or_url:
        return path_or_url
    return f"sqlite:///{Path(path_or_url).expanduser().resolve()}"


def make_engine(path_or_url: str) -> Engine:
    url = make_url(database_url(path_or_url))
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, future=True)
    engine = create_engine(
        url, connect_args={"check_same_thread": False, "timeout": 30}, future=True
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
