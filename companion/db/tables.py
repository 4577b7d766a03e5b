"""All tables on one MetaData: the catalogue and the commerce side."""

from companion.db import commerce_schema as commerce_schema  # noqa: F401  (registers tables)
from companion.db.schema import metadata

__all__ = ["metadata"]
