"""`storefront api staff add|list`: the back office's staff accounts.

    storefront api staff add [--db ...] [--store ID] [--role owner|staff] EMAIL
    storefront api staff list [--db ...] [--store ID]

The password is asked twice on a terminal, or read as one line from standard input (a script:
``printf '%s\\n' "$PASSWORD" | storefront api staff add ...``); it never appears in arguments,
where other users of the machine could read it.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from argon2 import PasswordHasher

from companion.backoffice.demo_staff import refuse_demo_password
from companion.backoffice.staff import Role, StaffError, add_staff, check_password, list_staff
from companion.cli_support import CommandError, guarded, open_database, pick_store
from companion.clock import SystemClock
from companion.customers.passwords import hash_password


def add_staff_parser(subparsers: Any) -> None:
    staff = subparsers.add_parser("staff", help="add or list the back office's staff accounts")
    actions = staff.add_subparsers(dest="staff_action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add",
        help="add a staff account (the password is asked, or read from standard input)",
        description="Add an account that signs in to the back office at /admin. An owner may "
        "do everything; staff work on orders and the catalogue.",
    )
    listed = actions.add_parser("list", help="list the staff accounts")
    for action in (add, listed):
        action.add_argument("--db", default=argparse.SUPPRESS, help="SQLite file or URL")
        action.add_argument("--store", type=int, help="store id (needed with several stores)")
    add.add_argument("--role", choices=[r.value for r in Role], default=Role.STAFF.value)
    add.add_argument("email", help="the e-mail the account signs in with")
    add.set_defaults(func=guarded(run_add))
    listed.set_defaults(func=guarded(run_list))


def read_password() -> str:
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise CommandError("the two passwords differ")
    return first


def run_add(args: argparse.Namespace) -> int:
    password = read_password()
    try:
        check_password(password)
    except StaffError as exc:
        raise CommandError(str(exc)) from None
    engine = open_database(args.db)
    with engine.begin() as conn:
        store_id = pick_store(conn, args.store)
        try:
            refuse_demo_password(conn, store_id=store_id, password=password)
            staff = add_staff(
                conn,
                store_id=store_id,
                email=args.email,
                password_hash=hash_password(PasswordHasher(), password),
                role=Role(args.role),
                now=SystemClock().now(),
            )
        except StaffError as exc:
            raise CommandError(str(exc)) from None
    print(f"added {staff.role.value} {staff.email} to store {store_id}; they sign in at /admin")
    return 0


def run_list(args: argparse.Namespace) -> int:
    engine = open_database(args.db)
    with engine.connect() as conn:
        store_id = pick_store(conn, args.store)
        accounts = list_staff(conn, store_id=store_id)
    for staff in accounts:
        print(f"{staff.id}\t{staff.role.value}\t{staff.email}")
    if not accounts:
        print("no staff accounts", file=sys.stderr)
    return 0
