"""The order e-mails, sent through the store's SMTP server when one is set: to the shopper once
the order is placed, to the merchant (``merchant_email``) of each new and each paid order.

The words are the templates' (``mail_templates/order_placed.txt``, ``merchant_order.txt``: the
first line the subject); this module gathers the order for them and hands the messages to the
server. ``send_order_mails`` runs after the answer, on a connection of its own: the messages
are made outside the order's transaction (which holds no lock for them) and a slow or failing
mail server never holds or fails an order: a failure is logged, the order stands.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from functools import cache
from pathlib import Path

import jinja2
from sqlalchemy import Connection, Engine, select

from companion.commerce.discounts import format_vnd
from companion.commerce.order_reads import order_item_rows, order_row
from companion.db.schema import stores
from companion.settings import CompanionSettings

log = logging.getLogger("storefront.mail")
TEMPLATES = Path(__file__).parent / "mail_templates"
VIETNAM_TIME = timezone(timedelta(hours=7), "ICT")


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=False,  # plain text
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["vnd"] = lambda amount: format_vnd(int(amount))
    env.filters["datetime_vi"] = _datetime_vi
    return env


def _datetime_vi(moment: datetime) -> str:
    """HH:MM dd/mm/yyyy in Vietnam's time (stored moments are naive UTC)."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(VIETNAM_TIME).strftime("%H:%M %d/%m/%Y")


def order_message(
    conn: Connection,
    *,
    store_id: int,
    order_id: int,
    sender: str,
    merchant: str | None = None,
    event: str = "new",
) -> EmailMessage | None:
    """The shopper's e-mail of a placed order (None when the order names no e-mail address),
    or with ``merchant`` the merchant's of a ``new`` or ``paid`` order, sent to that address."""
    order = order_row(conn, store_id=store_id, order_id=order_id)
    store = conn.execute(select(stores).where(stores.c.id == store_id)).first()
    if order is None or store is None:
        return None
    address = dict(order.address or {})
    recipient = merchant or order.email or address.get("email")
    if not recipient:
        return None
    items = [
        {
            "name": item.name,
            "variant_name": item.variant_name,
            "quantity": item.quantity,
            "line_total": item.unit_price * item.quantity,
        }
        for item in order_item_rows(conn, order_id=order_id)
    ]
    for field in ("full_name", "phone", "street", "ward", "province", "city"):
        address.setdefault(field, None)
    template = "merchant_order.txt" if merchant else "order_placed.txt"
    text = (
        _environment()
        .get_template(template)
        .render(store=store, order=order, items=items, address=address, event=event)
    )
    subject, _, body = text.lstrip().partition("\n")
    message = EmailMessage()
    message["Subject"] = subject.strip()
    message["From"] = sender
    message["To"] = recipient
    reply_to = (order.email or address.get("email")) if merchant else store.email
    if reply_to:
        message["Reply-To"] = reply_to
    message.set_content(body.lstrip("\n"))
    return message


def mail_is_on(settings: CompanionSettings) -> bool:
    """Whether order e-mails are sent at all (an SMTP server and a sender are set): without,
    nothing is scheduled after the answer."""
    return bool(settings.smtp_host and settings.smtp_from)


def send_order_mails(
    engine: Engine,
    settings: CompanionSettings,
    *,
    store_id: int,
    order_id: int,
    event: str,
) -> None:
    """After the answer: the e-mails of a ``new`` order (the shopper's and the merchant's) or of
    a ``paid`` one (the merchant's), made on a connection of their own, then sent."""
    sender = settings.smtp_from
    if not mail_is_on(settings) or not sender:
        return
    messages: list[EmailMessage | None] = []
    with engine.connect() as conn:
        if event == "new":
            messages.append(
                order_message(conn, store_id=store_id, order_id=order_id, sender=sender)
            )
        if settings.merchant_email:
            messages.append(
                order_message(
                    conn,
                    store_id=store_id,
                    order_id=order_id,
                    sender=sender,
                    merchant=settings.merchant_email,
                    event=event,
                )
            )
    for message in messages:
        if message is not None:
            send_message(message, settings)


def send_message(message: EmailMessage, settings: CompanionSettings) -> None:
    """Hand ``message`` to the SMTP server; a failure is logged, never raised."""
    host = settings.smtp_host
    assert host is not None
    try:
        context = ssl.create_default_context()
        client: smtplib.SMTP
        if settings.smtp_tls == "tls":
            client = smtplib.SMTP_SSL(
                host, settings.smtp_port, timeout=settings.smtp_timeout, context=context
            )
        else:
            client = smtplib.SMTP(host, settings.smtp_port, timeout=settings.smtp_timeout)
        with client:
            if settings.smtp_tls == "starttls":
                client.starttls(context=context)
            if settings.smtp_user:
                client.login(settings.smtp_user, settings.smtp_password or "")
            client.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        log.warning("order e-mail to %s not sent: %s", message["To"], exc)
