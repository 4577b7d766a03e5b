"""The back office's tables: staff accounts, their sessions and password resets, the audit log.

Same conventions as ``schema``: every row has ``store_id``; naive UTC timestamps. Tokens are
kept as SHA-256 digests only: a copy of the database opens no session and resets no password.
"""

from __future__ import annotations

from sqlalchemy import Column, DateTime, ForeignKey, Index, Integer, String, Table, Text

from companion.db.schema import metadata, store_fk

__all__ = ["metadata"]

# A merchant's staff: ``owner`` (everything) or ``staff`` (orders and catalogue).
staff_accounts = Table(
    "staff_accounts",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("email", String(254), nullable=False),  # lower-cased
    Column("password_hash", String(200), nullable=False),  # argon2id
    Column("role", String(20), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    Column("disabled_at", DateTime),
    Index("uq_staff_accounts_email", "store_id", "email", unique=True),
)

# One row per signed-in browser: the cookie's token digest, ending at ``expires_at``.
staff_sessions = Table(
    "staff_sessions",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column(
        "staff_id", Integer, ForeignKey("staff_accounts.id", ondelete="CASCADE"), nullable=False
    ),
    Column("token_hash", String(64), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("expires_at", DateTime, nullable=False),
    Index("uq_staff_sessions_token_hash", "token_hash", unique=True),
)

# A password reset sent by e-mail: used once, before ``expires_at``.
staff_password_resets = Table(
    "staff_password_resets",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column(
        "staff_id", Integer, ForeignKey("staff_accounts.id", ondelete="CASCADE"), nullable=False
    ),
    Column("token_hash", String(64), nullable=False),
    Column("expires_at", DateTime, nullable=False),
    Column("used_at", DateTime),
    Index("uq_staff_password_resets_token_hash", "token_hash", unique=True),
)

# Every change a staff member made, newest last; the e-mail kept as it was then.
admin_audit_log = Table(
    "admin_audit_log",
    metadata,
    Column("id", Integer, primary_key=True),
    store_fk(),
    Column("staff_id", Integer, ForeignKey("staff_accounts.id", ondelete="SET NULL")),
    Column("staff_email", String(254), nullable=False),
    Column("action", String(60), nullable=False),
    Column("subject", String(200), nullable=False, default=""),
    Column("detail", Text, nullable=False, default=""),
    Column("at", DateTime, nullable=False),
    Index("ix_admin_audit_log_store_at", "store_id", "at", "id"),
)
