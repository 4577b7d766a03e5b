"""Initial schema (placeholder: regenerated as explicit operations before release).

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

from alembic import op

from companion.db.tables import metadata

revision: str = "0001"
down_revision: str | None = None


def upgrade() -> None:
    metadata.create_all(op.get_bind())


def downgrade() -> None:
    metadata.drop_all(op.get_bind())
