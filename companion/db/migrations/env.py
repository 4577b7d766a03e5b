"""Alembic environment: always handed a live connection by companion.db.migrate."""

from __future__ import annotations

from alembic import context

from companion.db.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only reached by a misconfigured alembic call
    raise RuntimeError("run migrations through companion.db.migrate.upgrade(engine)")

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
