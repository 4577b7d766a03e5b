"""All tables on one MetaData: the catalogue, the commerce side, the shared rate limits."""

from companion.db import backoffice_schema as backoffice_schema  # noqa: F401  (registers tables)
from companion.db import commerce_schema as commerce_schema  # noqa: F401  (registers tables)
from companion.db import ratelimit_schema as ratelimit_schema  # noqa: F401  (registers tables)
from companion.db.schema import metadata

__all__ = ["metadata"]
