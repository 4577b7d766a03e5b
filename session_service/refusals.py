"""Why a request was refused, noted for the request log around the app.

The note is kept in the request's ``scope["state"]`` (Starlette's request state), where the
companion's request log (``companion.logging_http``) reads it and writes it on the request's
line. Both services note refusals with this one function, so an operator reads them alike.
"""

from __future__ import annotations

from starlette.types import Scope

#: The key of ``scope["state"]`` under which a refused request's reason waits for its line.
REFUSED = "refused"
#: Longest reason written: a reason may quote what the client sent.
MAX_REASON = 200


def note_refusal(scope: Scope, reason: str) -> None:
    """Say in the request's log line why it was refused (``body_too_large``, a bad signature,
    an address that is not the store's), so that an operator can see an attack."""
    scope.setdefault("state", {})[REFUSED] = reason[:MAX_REASON]
