"""staff accounts, their sessions and password resets, and the back office's audit log

The back office (/admin) signs in staff of its own, not customers: owner or staff role, argon2id
passwords, sessions and reset tokens kept as digests; every change they make is logged.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _store() -> tuple[sa.Column[int], sa.ForeignKeyConstraint]:
    return sa.Column("store_id", sa.Integer(), nullable=False), sa.ForeignKeyConstraint(
        ["store_id"], ["stores.id"], ondelete="CASCADE"
    )


def _staff(ondelete: str, *, nullable: bool) -> tuple[sa.Column[int], sa.ForeignKeyConstraint]:
    return sa.Column("staff_id", sa.Integer(), nullable=nullable), sa.ForeignKeyConstraint(
        ["staff_id"], ["staff_accounts.id"], ondelete=ondelete
    )


def upgrade() -> None:
    op.create_table(
        "staff_accounts",
        sa.Column("id", sa.Integer(), primary_key=True),
        *_store(),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("disabled_at", sa.DateTime(), nullable=True),
    )
    op.create_index("uq_staff_accounts_email", "staff_accounts", ["store_id", "email"], unique=True)
    op.create_table(
        "staff_sessions",
        sa.Column("id", sa.Integer(), primary_key=True),
        *_store(),
        *_staff("CASCADE", nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("uq_staff_sessions_token_hash", "staff_sessions", ["token_hash"], unique=True)
    op.create_table(
        "staff_password_resets",
        sa.Column("id", sa.Integer(), primary_key=True),
        *_store(),
        *_staff("CASCADE", nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
    )
    op.create_index(
        "uq_staff_password_resets_token_hash",
        "staff_password_resets",
        ["token_hash"],
        unique=True,
    )
    op.create_table(
        "admin_audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        *_store(),
        *_staff("SET NULL", nullable=True),
        sa.Column("staff_email", sa.String(length=254), nullable=False),
        sa.Column("action", sa.String(length=60), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_admin_audit_log_store_at", "admin_audit_log", ["store_id", "at", "id"])


def downgrade() -> None:
    op.drop_table("admin_audit_log")
    op.drop_table("staff_password_resets")
    op.drop_table("staff_sessions")
    op.drop_table("staff_accounts")
