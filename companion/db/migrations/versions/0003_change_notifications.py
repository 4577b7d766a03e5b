"""notifications on channel storefront_changes when catalogue tables or keys change (PostgreSQL)

Every worker keeps catalogue answers and key lookups in memory and LISTENs on this channel
(companion.answer_cache.feeds): a committed write to one of these tables, by any process,
tells each worker to drop what it kept. The payload is the table's name, or for a variant
whose stock alone changed ``stock:<product id>`` (``in-stock:<product id>`` when the variant ran
out or came back): only that product's answers showing its stock are dropped.
PostgreSQL folds identical notifications of one transaction and sends them at commit. SQLite
needs none: its workers read ``PRAGMA data_version`` instead.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The tables as they were at this revision (a later table needs a later migration;
#: tests/companion/test_answer_cache_feeds.py checks the list against the schema).
TABLES = (
    "api_keys",
    "article_categories",
    "article_category_links",
    "article_tag_links",
    "article_tags",
    "articles",
    "banners",
    "brands",
    "categories",
    "collection_products",
    "collections",
    "custom_paths",
    "custom_variables",
    "flash_sale_products",
    "flash_sales",
    "menu_items",
    "menus",
    "pages",
    "product_categories",
    "product_images",
    "products",
    "promotions",
    "store_hosts",
    "stores",
)
VARIANTS = "variants"  # a trigger per row: tells a change of stock alone from any other
FUNCTION = "storefront_notify_change"
VARIANT_FUNCTION = "storefront_notify_variant_change"
TRIGGER = "storefront_changes"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        f"CREATE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN PERFORM pg_notify('storefront_changes', TG_TABLE_NAME); RETURN NULL; END $$"
    )
    for table in TABLES:
        op.execute(
            f"CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
            f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()"
        )
    op.execute(
        f"CREATE FUNCTION {VARIANT_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF TG_OP = 'UPDATE' AND (to_jsonb(OLD) - 'stock') = (to_jsonb(NEW) - 'stock') THEN "
        "PERFORM pg_notify('storefront_changes', CASE WHEN "
        "(OLD.stock IS NULL OR OLD.stock > 0) = (NEW.stock IS NULL OR NEW.stock > 0) "
        "THEN 'stock:' ELSE 'in-stock:' END || NEW.product_id); "
        "ELSE PERFORM pg_notify('storefront_changes', TG_TABLE_NAME); END IF; "
        "RETURN NULL; END $$"
    )
    op.execute(
        f"CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OR DELETE ON {VARIANTS} "
        f"FOR EACH ROW EXECUTE FUNCTION {VARIANT_FUNCTION}()"
    )
    op.execute(
        f"CREATE TRIGGER {TRIGGER}_truncate AFTER TRUNCATE ON {VARIANTS} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER IF EXISTS {TRIGGER} ON {table}")
    op.execute(f"DROP TRIGGER IF EXISTS {TRIGGER} ON {VARIANTS}")
    op.execute(f"DROP TRIGGER IF EXISTS {TRIGGER}_truncate ON {VARIANTS}")
    op.execute(f"DROP FUNCTION IF EXISTS {VARIANT_FUNCTION}()")
    op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}()")
