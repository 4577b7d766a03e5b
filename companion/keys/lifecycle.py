"""Keys of a store, publishable (the public API) or secret (the admin API): create (the full
key is returned once), list, revoke, rotate.

Only a digest is stored (``material.hash_key``); revocation is a timestamp. Workers keep a key's
store (``keys.cache``): a revocation in this process moves ``revocations``, which empties those
caches at once; for one made by another process, see ``keys.everywhere``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, event, insert, select, update

from companion.db.schema import api_keys
from companion.keys.material import (
    display_prefix,
    hash_key,
    new_publishable_key,
    new_secret_key,
)
from companion.keys.permissions import checked_permissions

PUBLISHABLE, SECRET = "publishable", "secret"


class Generation:
    """A number that only moves forward; read ``value``, move it with ``bump``."""

    def __init__(self) -> None:
        self.value = 0

    def bump(self, *_args: object) -> None:
        self.value += 1


#: Moves on every revocation made in this process (and again when its transaction commits).
revocations = Generation()


@dataclass(frozen=True, slots=True)
class KeyInfo:
    id: int
    store_id: int
    name: str
    prefix: str
    created_at: datetime
    revoked_at: datetime | None
    kind: str = PUBLISHABLE
    permissions: tuple[str, ...] = ()


def create_key(
    conn: Connection,
    store_id: int,
    *,
    now: datetime,
    name: str = "",
    key: str | None = None,
    permissions: list[str] | tuple[str, ...] | None = None,
) -> tuple[KeyInfo, str]:
    """Store a new key for ``store_id``; returns its record and the full key (shown once).

    ``permissions`` (a list, even empty) makes a secret key with them (``UnknownPermission``
    for a name the admin API does not have, or none); None, a publishable key. ``key`` fixes
    the key's text (the demo store's well-known key); normally it is random.
    """
    secret = permissions is not None
    granted = tuple(checked_permissions(list(permissions))) if permissions is not None else ()
    full = key or (new_secret_key() if secret else new_publishable_key())
    prefix = display_prefix(full)
    kind = SECRET if secret else PUBLISHABLE
    key_id = conn.execute(
        insert(api_keys).values(
            store_id=store_id,
            name=name,
            prefix=prefix,
            key_hash=hash_key(full),
            created_at=now,
            kind=kind,
            permissions=list(granted) if secret else None,
        )
    ).inserted_primary_key
    assert key_id is not None
    return KeyInfo(int(key_id[0]), store_id, name, prefix, now, None, kind, granted), full


def list_keys(conn: Connection, store_id: int | None = None) -> list[KeyInfo]:
    query = select(api_keys).order_by(api_keys.c.id)
    if store_id is not None:
        query = query.where(api_keys.c.store_id == store_id)
    return [key_info(r) for r in conn.execute(query)]


def key_info(r: Row[Any]) -> KeyInfo:
    return KeyInfo(
        r.id,
        r.store_id,
        r.name,
        r.prefix,
        r.created_at,
        r.revoked_at,
        r.kind,
        tuple(r.permissions or ()),
    )


def revoke_key(
    conn: Connection, key_id: int, *, now: datetime, store_id: int | None = None
) -> bool:
    """Revoke a key (idempotent); False when there is no such key (in that store)."""
    query = select(api_keys.c.id, api_keys.c.revoked_at).where(api_keys.c.id == key_id)
    if store_id is not None:
        query = query.where(api_keys.c.store_id == store_id)
    row = conn.execute(query).first()
    if row is None:
        return False
    if row.revoked_at is None:
        conn.execute(update(api_keys).where(api_keys.c.id == key_id).values(revoked_at=now))
        revocations.bump()  # caches drop the key now, and again once the revocation is visible
        event.listen(conn, "commit", revocations.bump, once=True)
    return True


def rotate_key(
    conn: Connection, key_id: int, *, now: datetime, store_id: int | None = None
) -> tuple[KeyInfo, str] | None:
    """Replace active key ``key_id`` (in that store) by a new one of the same store and name,
    and revoke it: the new key's record and its full text (shown once). None when there is no
    such active key."""
    query = select(api_keys.c.store_id, api_keys.c.name, api_keys.c.permissions).where(
        api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None)
    )
    if store_id is not None:
        query = query.where(api_keys.c.store_id == store_id)
    row = conn.execute(query.with_for_update()).first()
    if row is None:
        return None
    # A secret key's successor is secret, with the same permissions.
    created = create_key(conn, row.store_id, now=now, name=row.name, permissions=row.permissions)
    revoke_key(conn, key_id, now=now)
    return created
