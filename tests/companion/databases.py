"""Where a test's database lives: a SQLite file in the test's folder, or, when
STOREFRONT_TEST_POSTGRES names a PostgreSQL server (``postgresql+psycopg://user@host:port/postgres``),
a fresh database on that server, dropped after the test.

``make test`` runs tests/companion on SQLite, then its tests that make a database (marked ``db``
by tests/companion/conftest.py) once more with the variable set (see make/postgres.mk), so every
companion test that touches a database holds on both.

On PostgreSQL a copy of a template is reused from test to test rather than made and dropped
each time (``CREATE DATABASE`` was most of a test's setup): before each use its connections are
ended and its rows and sequences are put back as the template had them; a copy whose schema a
test changed is dropped instead.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
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
    if template is not None:
        copy = _copies.take(server, str(make_url(template).database))
        try:
            yield copy.url
        finally:
            _copies.give_back(copy)
        return
    name = f"companion_test_{uuid.uuid4().hex[:12]}"
    _admin(server, f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        _admin(server, f'DROP DATABASE "{name}" WITH (FORCE)')


@contextmanager
def postgres_engine(folder: Path, why: str) -> Iterator[Engine]:
    """An engine on a new migrated PostgreSQL database, for a test of what only PostgreSQL has
    (skipped, ``why`` said, when the suite runs on SQLite)."""
    from companion.db.engine import make_engine
    from companion.db.migrate import upgrade

    if not postgres_server():
        pytest.skip(why)
    with fresh_database(folder) as url:
        made = make_engine(url)
        try:
            upgrade(made)
            yield made
        finally:  # a failed test too: its connections closed before its database is dropped
            made.dispose()


#: The schema a copy keeps its template's rows in (the app only uses ``public``).
_SEED = "pool_seed"
_SCHEMA_PRINT = text(
    "SELECT md5(coalesce(string_agg(x, ',' ORDER BY x), '')) FROM ("
    " SELECT table_name || '.' || column_name || ':' || data_type || ':' || is_nullable AS x"
    " FROM information_schema.columns WHERE table_schema = 'public'"
    " UNION ALL SELECT 'index ' || indexname FROM pg_indexes WHERE schemaname = 'public'"
    " UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
    " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public') AS parts"
)


@dataclass
class _Copy:
    template: str
    name: str
    url: str
    schema: str  # the schema's fingerprint as copied
    reset: str  # one statement putting the template's rows and sequences back


class _Copies:
    """Copies of template databases, free for the next test that asks for that template."""

    def __init__(self) -> None:
        self.free: dict[str, list[_Copy]] = {}
        self.every: list[tuple[str, str]] = []  # (server, name), dropped when the process ends
        atexit.register(self.drop_all)

    def take(self, server: str, template: str) -> _Copy:
        free = self.free.setdefault(template, [])
        while free:
            copy = free.pop()
            if _restored(copy):
                return copy
            self._drop(server, copy.name)
        return self._make(server, template)

    def give_back(self, copy: _Copy) -> None:
        self.free.setdefault(copy.template, []).append(copy)

    def _make(self, server: str, template: str) -> _Copy:
        name = f"companion_test_{uuid.uuid4().hex[:12]}"
        _admin(server, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        self.every.append((server, name))
        url = make_url(server).set(database=name).render_as_string(hide_password=False)
        engine = create_engine(url, poolclass=NullPool)
        try:
            with engine.begin() as conn:
                reset = _keep_rows(conn)
                schema = str(conn.execute(_SCHEMA_PRINT).scalar_one())
        finally:
            engine.dispose()
        return _Copy(template, name, url, schema, reset)

    def _drop(self, server: str, name: str) -> None:
        _admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.every.remove((server, name))

    def drop_all(self) -> None:
        for server, name in list(self.every):
            try:
                self._drop(server, name)
            except OperationalError:  # the server has gone: nothing left to drop
                return


def _keep_rows(conn: Connection) -> str:
    """Copy the template's rows aside (schema ``_SEED``); the statement that puts them back."""
    tables = list(conn.execute(text(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
    )).scalars())  # fmt: skip
    conn.execute(text(f"CREATE SCHEMA {_SEED}"))
    steps = ["SET LOCAL session_replication_role = replica"]  # no triggers, no key checks
    steps += [f'DELETE FROM public."{t}"' for t in tables]
    for table in tables:
        if conn.execute(text(f'SELECT EXISTS (SELECT FROM public."{table}")')).scalar_one():
            conn.execute(text(f'CREATE TABLE {_SEED}."{table}" AS TABLE public."{table}"'))
            columns = ", ".join(
                f'"{c}"'
                for c in conn.execute(
                    text(
                        "SELECT column_name FROM information_schema.columns WHERE table_schema"
                        " = 'public' AND table_name = :t AND is_generated = 'NEVER'"
                        " ORDER BY ordinal_position"
                    ),
                    {"t": table},
                ).scalars()
            )
            steps.append(
                f'INSERT INTO public."{table}" ({columns}) OVERRIDING SYSTEM VALUE'
                f' SELECT {columns} FROM {_SEED}."{table}"'
            )
    for sequence, last, called in conn.execute(text(
        "SELECT s.sequencename, coalesce(s.last_value, s.start_value), s.last_value IS NOT NULL"
        " FROM pg_sequences s WHERE s.schemaname = 'public'"
    )):  # fmt: skip
        steps.append(f"PERFORM setval('public.{sequence}', {last}, {str(called).lower()})")
    return "DO $reset$ BEGIN " + "; ".join(steps) + "; END $reset$"


def _restored(copy: _Copy) -> bool:
    """End the copy's connections and put its template's rows back; False when a test changed
    its schema (the copy is then of no use)."""
    engine = create_engine(copy.url, poolclass=NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(text(
                "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ))  # fmt: skip
            if conn.execute(_SCHEMA_PRINT).scalar_one() != copy.schema:
                return False
            conn.execute(text(copy.reset))
        return True
    finally:
        engine.dispose()


_copies = _Copies()


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
