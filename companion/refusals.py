"""What a service refuses to do, said in the service's terms.

Services (commerce, customers, payments) raise these plain exceptions and know nothing of HTTP;
the edge answers each with problem JSON (``companion.problems.problem_of``, registered by
``companion.errors_http``). ``code`` is the problem's machine-readable code, ``detail`` its
sentence for the developer, ``extra`` fields the problem carries beside them.
"""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """A request the service cannot carry out as asked."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class NotFound(Refused):
    """What the request names does not exist (in this store)."""

    def __init__(self, what: str) -> None:
        super().__init__("not_found", f"{what} was not found")


class Invalid(Refused):
    """One field of the request holds a value the service cannot use."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__("validation_error", f"{field}: {message}")
        self.field = field
        self.message = message


class Conflict(Refused):
    """The state of what the request names forbids it now (a closed cart, stock gone)."""


class NotYours(Refused):
    """It belongs to someone else than who asks."""


class NotSignedIn(Refused):
    """It needs a customer, and none (or no valid one) was named."""
