"""What every `storefront api` command builds on: user errors printed as one line, the database
it opens and the store it acts on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from companion.db.schema import stores


class CommandError(Exception):
    """A user error of `storefront api`: its message is printed as one line."""


def guarded(func: Any) -> Any:
    """Run a command; a user error becomes one line on stderr and exit status 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            code: int = func(args)
        except CommandError as exc:
            print(f"storefront api: error: {exc}", file=sys.stderr)
            return 2
        except SQLAlchemyError as exc:
            reason = (str(getattr(exc, "orig", None) or exc).splitlines() or ["failed"])[0]
            shown = shown_database(args.db)
            print(f"storefront api: error: database {shown}: {reason}", file=sys.stderr)
            return 2
        return code

    return run


def shown_database(db: str) -> str:
    """The database as printed: a URL's password is masked, a file path is left as it is."""
    if "://" not in db:
        return db
    try:
        return make_url(db).render_as_string(hide_password=True)
    except ArgumentError:
        return db.split("://", 1)[0] + "://..."


def open_database(db: str, *, create: bool = False) -> Engine:
    """The database of a command, migrated. A SQLite file that is not there is made only with
    ``create`` (the server's start): a command that manages a store's keys, staff or webhooks
    given a wrong path says so, rather than make an empty database and find nothing in it."""
    from companion.db.engine import database_url, make_engine
    from companion.db.migrate import upgrade

    url = make_url(database_url(db))
    if (
        not create
        and url.get_backend_name() == "sqlite"
        and url.database not in (None, "", ":memory:")
    ):
        if not Path(url.database).is_file():
            raise CommandError(
                f"no database at {db}; `storefront api stores create --db {db} NAME` makes one "
                "with your store, or give the --db the store runs on"
            )
    engine = make_engine(db, pooled=False)  # a command's connections close when it is done
    upgrade(engine)
    return engine


def pick_store(conn: Connection, store: int | None) -> int:
    ids = list(conn.execute(select(stores.c.id).order_by(stores.c.id)).scalars())
    if store is not None:
        if store not in ids:
            raise CommandError(f"no store {store} in the database (stores: {ids or 'none'})")
        return store
    if len(ids) != 1:
        hint = (
            "make one with `storefront api stores create NAME` (or the demo store with --seed demo)"
            if not ids
            else "choose with --store"
        )
        raise CommandError(f"the database holds {len(ids)} stores; {hint}")
    return int(ids[0])
