"""Publishable and secret keys: generated with high entropy, stored only as a SHA-256 digest."""

from __future__ import annotations

import hashlib
import secrets

PUBLISHABLE_PREFIX = "pk_live_"
#: A secret key serves the admin API only, and must never reach client code.
SECRET_PREFIX = "sk_live_"


def hash_key(key: str) -> str:
    """The digest stored in api_keys.key_hash; the key itself is never stored."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_publishable_key() -> str:
    return PUBLISHABLE_PREFIX + secrets.token_urlsafe(24)


def new_secret_key() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def display_prefix(key: str) -> str:
    """What `keys list` shows of a key: enough to recognise it, too little to use it."""
    return key[: len(PUBLISHABLE_PREFIX) + 4] + "…"
