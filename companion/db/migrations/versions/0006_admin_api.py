"""secret keys with permissions, the merchant's order note, reviews a merchant can hide

``api_keys.kind``: publishable (the public API) or secret (the admin API), ``permissions`` the
secret key's (a JSON list). ``orders.merchant_note``: the merchant's own note, apart from the
shopper's. ``reviews.status``: published, or hidden by the merchant (the public API leaves it out).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(
            sa.Column("kind", sa.String(20), nullable=False, server_default="publishable")
        )
        batch.add_column(sa.Column("permissions", sa.JSON(), nullable=True))
    with op.batch_alter_table("orders") as batch:
        batch.add_column(sa.Column("merchant_note", sa.Text(), nullable=True))
    with op.batch_alter_table("reviews") as batch:
        batch.add_column(
            sa.Column("status", sa.String(20), nullable=False, server_default="published")
        )


def downgrade() -> None:
    with op.batch_alter_table("reviews") as batch:
        batch.drop_column("status")
    with op.batch_alter_table("orders") as batch:
        batch.drop_column("merchant_note")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("permissions")
        batch.drop_column("kind")
