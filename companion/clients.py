"""The address a request came from, for limits kept per client.

uvicorn puts it in the scope: the connection's peer, or, when the peer is a trusted proxy
(``FORWARDED_ALLOW_IPS``, loopback by default), the address its ``X-Forwarded-For`` names.
The session endpoints served beside the API say whose request theirs is the same way
(``companion.session_mount``).
"""

from __future__ import annotations

from starlette.types import Scope


def client_address(scope: Scope) -> str:
    """The client's address; empty when the server gives none (a Unix socket)."""
    client = scope.get("client")
    return str(client[0]) if client else ""
