"""The list envelope every list endpoint returns."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel

T = TypeVar("T")


class Envelope(BaseModel, Generic[T]):  # noqa: UP046  (Python 3.11: no PEP 695 syntax)
    items: list[T]
    next_cursor: str | None
    has_more: bool
