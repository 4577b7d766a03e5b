"""What the merchant's services refuse, in plain terms (the routes answer them as problems)."""

from __future__ import annotations


class AdminError(Exception):
    """Base of the refusals below; the message says what was wrong."""


class NotFound(AdminError):
    """No such record in this store."""


class Invalid(AdminError):
    """A value that cannot be stored: ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class Refused(AdminError):
    """A move the record's state does not allow now (an order's state machine, a duplicate)."""
