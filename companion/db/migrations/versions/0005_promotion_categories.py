"""order promotions limited to categories, from a number of items (order_promotion_categories)

"Áo & quần: mua 2 giảm 15%": a promotion may count only the goods of some categories and start
from a number of them (``min_quantity``); without categories it is an order-wide one as before.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("order_promotions") as batch:
        batch.add_column(
            sa.Column("min_quantity", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_table(
        "order_promotion_categories",
        sa.Column("store_id", sa.Integer(), nullable=False),
        sa.Column("promotion_id", sa.Integer(), nullable=False),
        sa.Column("category_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["category_id"],
            ["categories.id"],
            name=op.f("fk_order_promotion_categories_category_id_categories"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["promotion_id"],
            ["order_promotions.id"],
            name=op.f("fk_order_promotion_categories_promotion_id_order_promotions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["store_id"],
            ["stores.id"],
            name=op.f("fk_order_promotion_categories_store_id_stores"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "promotion_id", "category_id", name=op.f("pk_order_promotion_categories")
        ),
    )


def downgrade() -> None:
    op.drop_table("order_promotion_categories")
    with op.batch_alter_table("order_promotions") as batch:
        batch.drop_column("min_quantity")
