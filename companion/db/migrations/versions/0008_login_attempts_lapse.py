"""an index by which lapsed login attempts are swept

A claim that starts a count removes some of the store's lapsed counts
(companion.customers.login_attempts.sweep_lapsed); it finds them by this index.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_login_attempts_lapse", "login_attempts", ["store_id", "window_started_at"])


def downgrade() -> None:
    op.drop_index("ix_login_attempts_lapse", table_name="login_attempts")
