"""Fixtures the generator's tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.incremental_store import DemoStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[DemoStore]:
    """A demo store of two products (a module that needs more defines its own ``store``)."""
    demo = DemoStore(tmp_path, products=2)
    yield demo
    demo.close()
