"""The admin API's tests run on the commerce tests' store (tests.companion.commerce.conftest)."""

from __future__ import annotations

from tests.companion.commerce.conftest import store, template

__all__ = ["store", "template"]
