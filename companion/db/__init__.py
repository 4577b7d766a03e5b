"""Storage of the companion: tables, engine, migrations."""
