"""A forgotten back-office password: a one-time link by e-mail, valid for a while.

The e-mail goes out only when the companion has an SMTP server, and only to an address with an
account; the page answers the same either way, so it tells no one which e-mails have one. The
token is kept as a digest and used once; using it signs every browser of the account out.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from email.message import EmailMessage
from functools import cache

import jinja2
from sqlalchemy import Connection, Engine, select, update

from companion.backoffice.sessions import digest
from companion.backoffice.staff import Staff, credentials, get_staff, set_password_hash
from companion.db.backoffice_schema import staff_password_resets
from companion.db.schema import stores
from companion.order_mail import TEMPLATES, send_message
from companion.settings import CompanionSettings


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=False,  # plain text
        undefined=jinja2.StrictUndefined,
    )


def send_reset(
    engine: Engine,
    settings: CompanionSettings,
    *,
    store_id: int,
    email: str,
    now: datetime,
    link_base: str,
) -> bool:
    """Mail a reset link to the account of ``email``; False when there is none (nothing sent)."""
    minutes = settings.staff_reset_seconds // 60
    with engine.begin() as conn:
        found = credentials(conn, store_id=store_id, email=email)
        if found is None:
            return False
        staff = found[0]
        token = secrets.token_urlsafe(32)
        conn.execute(
            staff_password_resets.insert().values(
                store_id=store_id,
                staff_id=staff.id,
                token_hash=digest(token),
                expires_at=now + timedelta(seconds=settings.staff_reset_seconds),
            )
        )
        store = conn.execute(select(stores.c.name).where(stores.c.id == store_id)).one()
    text = (
        _templates()
        .get_template("staff_password_reset.txt")
        .render(store=store, link=f"{link_base}?token={token}", minutes=minutes)
    )
    subject, _, body = text.lstrip().partition("\n")
    message = EmailMessage()
    message["Subject"] = subject.strip()
    message["From"] = settings.smtp_from or ""
    message["To"] = staff.email
    message.set_content(body.lstrip("\n"))
    send_message(message, settings)
    return True


def use_reset(conn: Connection, *, store_id: int, token: str, now: datetime) -> Staff | None:
    """The account a valid, unused token resets (the token is spent), else None."""
    if not token or len(token) > 100:
        return None
    row = conn.execute(
        update(staff_password_resets)
        .where(
            staff_password_resets.c.token_hash == digest(token),
            staff_password_resets.c.store_id == store_id,
            staff_password_resets.c.used_at.is_(None),
            staff_password_resets.c.expires_at > now,
        )
        .values(used_at=now)
        .returning(staff_password_resets.c.staff_id)
    ).first()
    return None if row is None else get_staff(conn, store_id=store_id, staff_id=row.staff_id)


def set_password(conn: Connection, *, staff: Staff, password_hash: str, now: datetime) -> None:
    set_password_hash(
        conn, store_id=staff.store_id, staff_id=staff.id, password_hash=password_hash, now=now
    )
