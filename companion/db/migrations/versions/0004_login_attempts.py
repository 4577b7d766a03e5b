"""login attempts claimed per client, client and e-mail, and e-mail (replaces login_failures)

The throttle now claims an attempt before the password is checked, and counts by client as well
as by e-mail (companion.customers.throttle). The old per-e-mail failure counts are dropped: at
worst an address mid-way through a lock gets a fresh window.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "login_attempts",
        sa.Column("store_id", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=400), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("window_started_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["store_id"],
            ["stores.id"],
            name=op.f("fk_login_attempts_store_id_stores"),
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("store_id", "subject", name=op.f("uq_login_attempts_store_id")),
    )
    op.drop_table("login_failures")


def downgrade() -> None:
    op.create_table(
        "login_failures",
        sa.Column("store_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_started_at", sa.DateTime(), nullable=False),
        sa.Column("locked_until", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["store_id"],
            ["stores.id"],
            name=op.f("fk_login_failures_store_id_stores"),
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("store_id", "email", name=op.f("uq_login_failures_store_id")),
    )
    op.drop_table("login_attempts")
