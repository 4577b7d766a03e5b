"""The migrations build exactly the schema the code declares."""

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from companion.db.engine import make_engine
from companion.db.migrate import upgrade
from companion.db.tables import metadata


def test_migrated_database_matches_the_declared_tables(tmp_path: Path) -> None:
    engine = make_engine(str(tmp_path / "migrated.db"))
    upgrade(engine)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []
    engine.dispose()


def test_upgrade_twice_is_harmless(tmp_path: Path) -> None:
    engine = make_engine(str(tmp_path / "again.db"))
    upgrade(engine)
    upgrade(engine)
    assert set(metadata.tables) <= set(inspect(engine).get_table_names())
    engine.dispose()
