"""What shoppers sent the merchant: contact messages (``POST /contacts``) and reviews.

A message is ``new`` until the merchant marks it ``read`` (or ``archived``). A review is shown
as soon as it is posted; the merchant may hide it (the public API leaves it out) and approve it
again.
"""

from __future__ import annotations

from sqlalchemy import Connection, select, update

from companion.admin.errors import Invalid, NotFound
from companion.admin.paging import Page, newest_first
from companion.db.commerce_schema import contacts, reviews

MESSAGE_STATES = ("new", "read", "archived")
REVIEW_STATES = {"approve": "published", "hide": "hidden"}


def list_messages(
    conn: Connection, *, store_id: int, status: str | None, cursor: str | None, limit: int
) -> Page:
    query = select(contacts).where(contacts.c.store_id == store_id)
    if status is not None:
        if status not in MESSAGE_STATES:
            raise Invalid("status", f"one of {', '.join(MESSAGE_STATES)}")
        query = query.where(contacts.c.status == status)
    return newest_first(
        conn,
        query,
        time_col=contacts.c.created_at,
        id_col=contacts.c.id,
        cursor=cursor,
        limit=limit,
    )


def mark_message(conn: Connection, *, store_id: int, message_id: int, status: str) -> None:
    if status not in MESSAGE_STATES:
        raise Invalid("status", f"one of {', '.join(MESSAGE_STATES)}")
    changed = conn.execute(
        update(contacts)
        .where(contacts.c.store_id == store_id, contacts.c.id == message_id)
        .values(status=status)
    )
    if changed.rowcount != 1:
        raise NotFound(f"message {message_id}")


def list_reviews(
    conn: Connection, *, store_id: int, status: str | None, cursor: str | None, limit: int
) -> Page:
    query = select(reviews).where(reviews.c.store_id == store_id)
    if status is not None:
        if status not in REVIEW_STATES.values():
            raise Invalid("status", f"one of {', '.join(REVIEW_STATES.values())}")
        query = query.where(reviews.c.status == status)
    return newest_first(
        conn,
        query,
        time_col=reviews.c.created_at,
        id_col=reviews.c.id,
        cursor=cursor,
        limit=limit,
    )


def moderate_review(conn: Connection, *, store_id: int, review_id: int, action: str) -> str:
    """``approve`` or ``hide``; the review's status after."""
    status = REVIEW_STATES.get(action)
    if status is None:
        raise Invalid("action", f"one of {', '.join(REVIEW_STATES)}")
    changed = conn.execute(
        update(reviews)
        .where(reviews.c.store_id == store_id, reviews.c.id == review_id)
        .values(status=status)
    )
    if changed.rowcount != 1:
        raise NotFound(f"review {review_id}")
    return status
