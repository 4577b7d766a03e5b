"""Where a test's database lives: a SQLite file in the test's folder, or, when
STOREFRONT_TEST_POSTGRES names a PostgreSQL server (``postgresql+psycopg://user@host:port/postgres``),
a fresh database on that server, dropped after the test.

``make test`` runs tests/companion on SQLite, then its tests that make a database (marked ``db``
by tests/companion/conftest.py) once more with the variable set (see make/postgres.mk), so every
companion test that touches a database holds on both.
"""

from __future__ import annotations

import os
import shutil
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

SERVER_VARIABLE = "STOREFRONT_TEST_POSTGRES"

#: How many databases ``fresh_database`` has made in this process (tests/companion/conftest.py
#: checks that the tests making one are marked ``db``).
made = 0


def postgres_server() -> str | None:
    """The PostgreSQL server the tests run on, or None for SQLite."""
    return os.environ.get(SERVER_VARIABLE) or None


def _admin(server: str, statement: str) -> None:
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(statement))
    finally:
        admin.dispose()


@contextmanager
def fresh_database(folder: Path, *, template: str | None = None) -> Iterator[str]:
    """A new database, empty or a copy of ``template`` (a database this module made).

    SQLite: a file in ``folder`` (the template file copied). PostgreSQL: a new database on the
    server, created from the template database when given (a cheap file-level copy).
    """
    global made
    made += 1
    server = postgres_server()
    if not server:
        database = folder / "companion.db"
        if template is not None:
            shutil.copyfile(template, database)
        yield str(database)
        return
    name = f"companion_test_{uuid.uuid4().hex[:12]}"
    source = f' TEMPLATE "{make_url(template).database}"' if template is not None else ""
    _admin(server, f'CREATE DATABASE "{name}"{source}')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        _admin(server, f'DROP DATABASE "{name}" WITH (FORCE)')


def refused_connection() -> OperationalError:
    """The error the driver raises when the database's port is closed: a real refusal, on a
    loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    engine = create_engine(
        f"postgresql+psycopg://postgres@127.0.0.1:{port}/none", poolclass=NullPool
    )
    try:
        with engine.connect():
            pass
    except OperationalError as error:
        return error
    finally:
        engine.dispose()
    raise AssertionError(f"something answered on 127.0.0.1:{port}")
