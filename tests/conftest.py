"""Settings for the whole suite."""

from __future__ import annotations

import gc

import pytest


def pytest_collection_finish(session: pytest.Session) -> None:
    """Leave what collection made (every test module, pytest's own state) out of the cyclic
    garbage collector's passes: a build's ``release_memory`` runs a full collection, which
    would otherwise walk those objects too, a fifth of a second each time."""
    gc.freeze()

