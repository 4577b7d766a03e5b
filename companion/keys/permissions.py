"""What a secret key may do on the admin API: the permissions ticked when it was created.

The spec leaves the names to the implementation; these are the companion's (docs/admin-api.md).
A ``:write`` permission does not imply its ``:read``: a key gets exactly what was ticked.
"""

from __future__ import annotations

PERMISSIONS: tuple[str, ...] = (
    "orders:read",
    "orders:write",
    "catalog:read",
    "catalog:write",
    "customers:read",
    "messages:read",
    "messages:write",
    "reviews:read",
    "reviews:write",
    "webhooks:read",
    "webhooks:write",
    "store:read",
    "store:write",
)


class UnknownPermission(ValueError):
    """A permission name the admin API does not have."""


def checked_permissions(names: list[str] | tuple[str, ...]) -> list[str]:
    """The names, sorted and once each; ``UnknownPermission`` names the unknown ones."""
    unknown = sorted(set(names) - set(PERMISSIONS))
    if unknown:
        raise UnknownPermission(
            f"unknown permission(s): {', '.join(unknown)}; choose from {', '.join(PERMISSIONS)}"
        )
    if not names:
        raise UnknownPermission("a secret key needs at least one permission")
    return sorted(set(names))
