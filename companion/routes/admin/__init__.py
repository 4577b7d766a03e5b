"""The admin API (the companion's extension; docs/admin-api.md): thin routes over
``companion.admin``, each behind the permission it names (``routes.admin.auth``)."""

from companion.routes.admin.routes import ADMIN_PREFIX, router

__all__ = ["ADMIN_PREFIX", "router"]
